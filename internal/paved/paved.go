package paved

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// This file reads and writes unstructured objects (map[string]any, []any,
// string, bool, int64, float64, nil) by fieldpath.Path, as crossplane-runtime's
// pkg/fieldpath Paved does for function-patch-and-transform: GetValue,
// SetValue, ExpandWildcards and MergeValue. The wildcard segment is an
// ordinary field named "*" to Get and Set, as it is to crossplane-runtime.

// MaxIndex is the largest list index Set and Merge write to: Crossplane
// paves objects with this limit (crossplane-runtime's
// DefaultMaxFieldPathIndex) and refuses longer paths.
const MaxIndex = 1024

// notFoundError is a path that does not exist in an object: a missing
// field, an index past the end of a list, a field of a null value.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// IsNotFound reports whether err (or an error it wraps) says that a path
// does not exist in an object, as opposed to the path not fitting the
// object's shape (a field of a string, an index into an object).
func IsNotFound(err error) bool {
	var nf *notFoundError
	return errors.As(err, &nf)
}

// pathString renders the first n segments of p for an error message.
func pathString(p fieldpath.Path, n int) string {
	return p[:n].String()
}

// Get returns the value at p in obj. A path that does not exist returns an
// error for which IsNotFound is true; a path that does not fit the
// object's shape (an index into an object, a field of a list or a
// scalar) returns another error. A null on the way is not found when a
// field of it is asked for, but not a list when an index is. The root
// path returns obj itself.
func Get(obj map[string]any, p fieldpath.Path) (any, error) {
	return get(obj, p)
}

func get(root any, p fieldpath.Path) (any, error) {
	it := root
	for i, s := range p {
		switch s.Kind {
		case fieldpath.KindIndex:
			list, ok := it.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an array", pathString(p, i))
			}
			if s.Index < 0 || s.Index >= len(list) {
				return nil, &notFoundError{fmt.Sprintf("%s: no such element", pathString(p, i+1))}
			}
			it = list[s.Index]
		default: // a field; the wildcard is the field "*"
			switch o := it.(type) {
			case map[string]any:
				v, ok := o[fieldName(s)]
				if !ok {
					return nil, &notFoundError{fmt.Sprintf("%s: no such field", pathString(p, i+1))}
				}
				it = v
			case nil:
				return nil, &notFoundError{fmt.Sprintf("%s: expected map, got nil", pathString(p, i))}
			default:
				return nil, fmt.Errorf("%s: not an object", pathString(p, i))
			}
		}
	}
	return it, nil
}

// fieldName is the object key a field (or wildcard) segment addresses.
func fieldName(s fieldpath.Segment) string {
	if s.Kind == fieldpath.KindWildcard {
		return "*"
	}
	return s.Field
}

// Set writes a copy of v at p in obj, as crossplane-runtime's SetValue:
//
//   - v is copied through JSON first, so numbers become int64 when they
//     are integral (2.0 is stored as 2) and float64 otherwise; a value
//     JSON cannot hold (NaN, ±Inf) is an error and nothing is written
//   - every index of p must be at most MaxIndex
//   - missing objects and lists on the way are created (a list long
//     enough for the next index, padded with nulls), an existing list
//     too short for the next index grows with nulls, and a null list
//     element is replaced; an existing field that is null is not, so a
//     field below it is an error
//   - an index into a non-list or a field of a non-object is an error
//
// Setting the root path does nothing.
func Set(obj map[string]any, p fieldpath.Path, v any) error {
	val, err := jsonCopy(v)
	if err != nil {
		return err
	}
	for _, s := range p {
		if s.Kind == fieldpath.KindIndex && s.Index > MaxIndex {
			return fmt.Errorf("index %d is greater than max allowed index %d", s.Index, MaxIndex)
		}
	}
	var in any = obj
	for i, s := range p {
		final := i == len(p)-1
		switch s.Kind {
		case fieldpath.KindIndex:
			list, ok := in.([]any)
			if !ok || s.Index < 0 {
				return fmt.Errorf("%s is not an array", describe(p, i))
			}
			if final {
				list[s.Index] = val
				return nil
			}
			prepareElement(list, s.Index, p[i+1])
			in = list[s.Index]
		default:
			o, ok := in.(map[string]any)
			if !ok {
				return fmt.Errorf("%s is not an object", describe(p, i))
			}
			if final {
				o[fieldName(s)] = val
				return nil
			}
			prepareField(o, fieldName(s), p[i+1])
			in = o[fieldName(s)]
		}
	}
	return nil
}

// describe names the first n segments of p in a Set error.
func describe(p fieldpath.Path, n int) string {
	if n == 0 {
		return "the root"
	}
	return pathString(p, n)
}

// container returns what must exist for the next segment to be written:
// a list just long enough for an index, or an object.
func container(next fieldpath.Segment) any {
	if next.Kind == fieldpath.KindIndex {
		return make([]any, next.Index+1)
	}
	return map[string]any{}
}

// grow returns v extended with nulls to hold next's index when v is a list
// too short for it, and v unchanged otherwise.
func grow(v any, next fieldpath.Segment) any {
	list, ok := v.([]any)
	if !ok || next.Kind != fieldpath.KindIndex || next.Index < len(list) {
		return v
	}
	return append(list, make([]any, next.Index-len(list)+1)...)
}

func prepareElement(list []any, i int, next fieldpath.Segment) {
	if list[i] == nil {
		list[i] = container(next)
		return
	}
	list[i] = grow(list[i], next)
}

func prepareField(o map[string]any, k string, next fieldpath.Segment) {
	v, ok := o[k]
	if !ok {
		o[k] = container(next)
		return
	}
	o[k] = grow(v, next)
}

// Expand returns the paths p's wildcards stand for in obj, as
// crossplane-runtime's ExpandWildcards: a wildcard over a list becomes each
// of its indices, over an object each of its keys (in sorted order here;
// Crossplane's order is Go's random map order). Only paths that exist are
// returned: an expansion whose remaining segments are missing contributes
// nothing, and p without wildcards is returned only if it exists. A
// wildcard over null is an error for which IsNotFound is true, a wildcard
// over a scalar or a path that does not fit the object's shape is another
// error.
func Expand(obj map[string]any, p fieldpath.Path) ([]fieldpath.Path, error) {
	out, err := expand(obj, p)
	if err != nil {
		return nil, fmt.Errorf("cannot expand wildcards for %s: %w", p, err)
	}
	return out, nil
}

func expand(root any, p fieldpath.Path) ([]fieldpath.Path, error) {
	it := root
	for i, s := range p {
		if s.Kind == fieldpath.KindWildcard {
			var subs []fieldpath.Segment
			switch v := it.(type) {
			case []any:
				for j := range v {
					subs = append(subs, fieldpath.Index(j))
				}
			case map[string]any:
				keys := make([]string, 0, len(v))
				for k := range v {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					subs = append(subs, fieldpath.Field(k))
				}
			case nil:
				return nil, &notFoundError{fmt.Sprintf("wildcard field %s is not found in the path", pathString(p, i))}
			default:
				return nil, fmt.Errorf("%s: unexpected wildcard usage", pathString(p, i))
			}
			var out []fieldpath.Path
			for _, sub := range subs {
				q := make(fieldpath.Path, len(p))
				copy(q, p)
				q[i] = sub
				r, err := expand(root, q)
				if err != nil {
					return nil, err
				}
				out = append(out, r...)
			}
			return out, nil
		}
		v, err := get(root, p[:i+1])
		if IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		it = v
	}
	return []fieldpath.Path{p.Child()}, nil
}

// MergeOptions says how Merge combines a value with what is already at
// its path: crossplane-runtime's MergeOptions, which is also the shape of
// the classic (native) Composition's deprecated policy.mergeOptions.
type MergeOptions struct {
	// Merge merges instead of replacing. Without it the value replaces
	// what is there and the other options are ignored (crossplane-runtime's
	// nil options).
	Merge bool
	// KeepMapValues keeps the values already in objects: a merged value
	// only fills fields that are missing or empty (null, "", 0, false, an
	// empty list or object). Without it the merged value wins.
	KeepMapValues bool
	// AppendSlice appends lists to the lists already there (without the
	// elements already present, at the top level only).
	AppendSlice bool
}

// ToFieldPathPolicy returns the options function-patch-and-transform uses
// for a patch's policy.toFieldPath ("" when it is not set), or an error
// for an unknown policy.
func ToFieldPathPolicy(policy string) (MergeOptions, error) {
	switch policy {
	case "", "Replace":
		return MergeOptions{}, nil
	case "MergeObjects", "MergeObject":
		return MergeOptions{Merge: true, KeepMapValues: true}, nil
	case "MergeObjectsAppendArrays":
		return MergeOptions{Merge: true, KeepMapValues: true, AppendSlice: true}, nil
	case "ForceMergeObjects":
		return MergeOptions{Merge: true}, nil
	case "ForceMergeObjectsAppendArrays", "AppendArray":
		return MergeOptions{Merge: true, AppendSlice: true}, nil
	}
	return MergeOptions{}, fmt.Errorf("invalid patch policy %s", policy)
}

// PatchMergeOptions returns the options function-patch-and-transform uses
// for a patch object (its policy.toFieldPath). It ignores
// policy.mergeOptions, as the function does: that field of the classic
// Composition is not part of its input (see LegacyMergeOptions).
func PatchMergeOptions(patch map[string]any) (MergeOptions, error) {
	pol, ok := patch["policy"]
	if !ok || pol == nil {
		return MergeOptions{}, nil
	}
	pm, ok := pol.(map[string]any)
	if !ok {
		return MergeOptions{}, fmt.Errorf("policy must be an object, not %s", JSONKind(pol))
	}
	tp, ok := pm["toFieldPath"]
	if !ok || tp == nil {
		return MergeOptions{}, nil
	}
	s, ok := tp.(string)
	if !ok {
		return MergeOptions{}, fmt.Errorf("policy.toFieldPath must be a string, not %s", JSONKind(tp))
	}
	return ToFieldPathPolicy(s)
}

// LegacyMergeOptions returns the options of a classic Composition patch's
// policy.mergeOptions object ({keepMapValues, appendSlice}); an absent
// (nil) object replaces.
func LegacyMergeOptions(mo map[string]any) (MergeOptions, error) {
	if mo == nil {
		return MergeOptions{}, nil
	}
	out := MergeOptions{Merge: true}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"keepMapValues", &out.KeepMapValues}, {"appendSlice", &out.AppendSlice}} {
		switch v := mo[f.key].(type) {
		case nil:
		case bool:
			*f.dst = v
		default:
			return MergeOptions{}, fmt.Errorf("mergeOptions.%s must be a boolean, not %s", f.key, JSONKind(v))
		}
	}
	return out, nil
}

// Merge writes v at p in obj, combined with the value already there as
// crossplane-runtime's MergeValue does with mergo:
//
//   - without opts.Merge, or when nothing (or null) is at p, or v is null,
//     v replaces what is there (as Set)
//   - otherwise, objects merge recursively key by key; where both sides
//     are objects they merge, where the new value is a list it replaces
//     the old one (KeepMapValues: only an empty or missing one; AppendSlice:
//     it is appended, and appending to a non-list is an error), and any
//     other new value replaces the old one (KeepMapValues: only an empty or
//     missing one); null values in the new object clear the old ones
//     unless KeepMapValues
//   - at the top level with AppendSlice, elements of a new list that are
//     already in the old one are dropped before appending
//
// The result is stored with Set. When p does not fit the object's shape
// the error is returned and obj is unchanged.
func Merge(obj map[string]any, p fieldpath.Path, v any, opts MergeOptions) error {
	if len(p) == 0 {
		return Set(obj, p, v)
	}
	var dst any
	if opts.Merge {
		cur, err := Get(obj, p)
		switch {
		case IsNotFound(err):
		case err != nil:
			return err
		default:
			dst = cur
		}
	}
	merged, err := mergeValues(dst, v, opts)
	if err != nil {
		return err
	}
	return Set(obj, p, merged)
}

// mergeValues merges src onto dst, neither modified.
func mergeValues(dst, src any, opts MergeOptions) (any, error) {
	if dst == nil || src == nil {
		return src, nil
	}
	if opts.AppendSlice {
		src = withoutDuplicates(dst, src)
	}
	// mergo merges maps, so Crossplane wraps both values in one.
	wrap := map[string]any{"arg": DeepCopy(dst)}
	if err := mergeMaps(wrap, map[string]any{"arg": src}, !opts.KeepMapValues, opts.AppendSlice); err != nil {
		return nil, fmt.Errorf("failed to merge values: %w", err)
	}
	return wrap["arg"], nil
}

// withoutDuplicates returns the elements of src not deeply equal to an
// element of dst when both are lists, and src otherwise.
func withoutDuplicates(dst, src any) any {
	d, ok1 := dst.([]any)
	s, ok2 := src.([]any)
	if !ok1 || !ok2 {
		return src
	}
	var out []any
	for _, x := range s {
		found := false
		for _, y := range d {
			if reflect.DeepEqual(x, y) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// mergeMaps merges src into dst in place, key by key, following mergo's
// deepMerge for map[string]any with WithOverride (overwrite) and
// WithAppendSlice (appendSlice).
func mergeMaps(dst, src map[string]any, overwrite, appendSlice bool) error {
	keys := make([]string, 0, len(src))
	for k := range src {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sv := src[k]
		dv, had := dst[k]
		if sv == nil {
			if overwrite {
				dst[k] = nil
			}
			continue
		}
		switch s := sv.(type) {
		case map[string]any:
			if d, ok := dv.(map[string]any); ok {
				if err := mergeMaps(d, s, overwrite, appendSlice); err != nil {
					return err
				}
			}
		case []any:
			var list any = dv
			if !had || dv == nil {
				list = []any{}
			}
			switch {
			case (overwrite || len(dst) == 0) && !appendSlice:
				list = s
			case appendSlice:
				d, ok := list.([]any)
				if !ok {
					return fmt.Errorf("cannot append two slices with different type ([]interface {}, %T)", list)
				}
				list = append(append(make([]any, 0, len(d)+len(s)), d...), s...)
			}
			dst[k] = list
		}
		if had && !isEmpty(dv) {
			if _, ok := sv.([]any); ok {
				continue
			}
			_, sm := sv.(map[string]any)
			_, dm := dv.(map[string]any)
			if sm && dm {
				continue
			}
		}
		if overwrite || !had || isEmpty(dv) {
			dst[k] = sv
		}
	}
	return nil
}

// isEmpty is mergo's notion of an empty value (encoding/json's omitempty).
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return r.Len() == 0
	case reflect.Bool:
		return !r.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return r.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return r.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return r.Float() == 0
	case reflect.Interface, reflect.Pointer, reflect.Func:
		return r.IsNil()
	}
	return false
}

// DeepCopy returns a copy of an unstructured value sharing nothing with
// it: objects and lists are copied, everything else is returned as is.
func DeepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = DeepCopy(x)
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = DeepCopy(x)
		}
		return out
	}
	return v
}

// jsonCopy returns v after a round trip through JSON as Kubernetes decodes
// it (k8s.io/apimachinery/pkg/util/json): integral numbers become int64,
// other numbers float64, and the result shares nothing with v.
func jsonCopy(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal value to JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("cannot unmarshal value from JSON: %w", err)
	}
	out, err = jsonnum.Normalize(out)
	if err != nil {
		return nil, fmt.Errorf("cannot unmarshal value from JSON: %w", err)
	}
	return out, nil
}

// JSONKind names the JSON type of an unstructured value for messages.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int, int32, float64, float32, json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
