package patchandtransform

import (
	"crypto/sha1" //nolint:gosec // a content hash, as function-patch-and-transform computes it
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"math"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// This file runs function-patch-and-transform's transforms (transforms.go
// and validate.go of crossplane-contrib/function-patch-and-transform) on
// unstructured values. A transform arrives as the object written in the
// Composition ({"type": "math", "math": {...}}). It is read as the function
// reads its input (JSON into its v1beta1 types: unknown fields are
// ignored, a field of the wrong JSON type is an error, null is the same as
// absent, and no defaults are applied: math.type and string.type are
// required), checked as the function checks its whole input before running
// anything, and then resolved.
//
// Values keep the function's Go types: a math transform of an int64 is an
// int64, of a float64 a float64; a string transform always yields a
// string; numbers that come out of a map or match transform (and out of a
// JSON convert) are float64, as encoding/json decodes them.

// TransformError is why a transform failed. It is the one decision of
// whether a transform is valid (ValidateTransform): Reason, Field, Value,
// Of and Err say why in structured form, and Error words it exactly as
// function-patch-and-transform does.
type TransformError struct {
	// Field is the field of the transform object the failure is about,
	// relative to the transform (math.multiply, match.patterns[1]), or
	// nil when it is about the transform as a whole or its input value.
	Field fieldpath.Path
	// Invalid is true when the transform itself is wrong, whatever its
	// input: the function rejects its whole input before running any
	// patch ("invalid Function input" or "cannot get Function input").
	// It is false when the transform failed on this input value.
	Invalid bool
	// Reason is why the transform is invalid (FailedOnValue when it is
	// not).
	Reason Reason
	// Value is the value Reason is about, as written: the unknown type
	// (UnknownType), the regular expression (BadRegexp), the format or
	// type (BadValue), the integer (Unreadable).
	Value string
	// Of is, for MissingField, the type whose configuration needs Field:
	// the transform type (map), the math or string transform type
	// (Multiply, Format) or the pattern type (literal, regexp).
	Of string
	// Detail is the rest of the function's message: its explanation of a
	// Required or Invalid value, what a field of the wrong type must be,
	// or which transform could not resolve.
	Detail string
	// Err is the underlying error (strconv, regexp, encoding/json,
	// quantity parsing), if any; Error appends it.
	Err error
}

// Reason is why a transform is invalid.
type Reason int

// The reasons a transform is invalid. WrongType and Unreadable are found
// while the function decodes its input (it then stops, "cannot get
// Function input"); the others are its validation ("invalid Function
// input").
const (
	// FailedOnValue: the transform is valid but failed on its input.
	FailedOnValue Reason = iota
	// WrongType: Field (nil: the transform itself) is set to a value of
	// the wrong JSON type, or an integer field to a fraction.
	WrongType
	// Unreadable: Field is an integer the function cannot read, as a
	// step's input reaches it through a protobuf Struct (beyond
	// MaxInputInt).
	Unreadable
	// MissingField: Field is absent or null (or empty, for a string the
	// function does not hold as optional) but Of needs it.
	MissingField
	// EmptyMap: a map transform has no pair.
	EmptyMap
	// EmptyPatterns: a match transform has no pattern.
	EmptyPatterns
	// UnknownType: Field (type, math.type, string.type or a pattern's
	// type) holds an unknown Value.
	UnknownType
	// BadRegexp: Field's regular expression Value does not compile (Err).
	BadRegexp
	// BadValue: Field (convert.format or convert.toType) holds a Value
	// outside its enum.
	BadValue
)

// MaxInputInt is the largest integer a function reads back as an int64:
// Crossplane hands a step its input as a protobuf Struct, whose numbers
// are float64, and larger integers round up to 2^63.
const MaxInputInt = 1<<63 - 513

func (e *TransformError) Error() string {
	var msg string
	switch e.Reason {
	case MissingField, EmptyMap, EmptyPatterns:
		msg = fmt.Sprintf("%s: Required value: %s", e.Field, e.Detail)
	case UnknownType, BadRegexp, BadValue:
		msg = fmt.Sprintf("%s: Invalid value: %q: %s", e.Field, e.Value, e.Detail)
	case WrongType, Unreadable:
		msg = e.Detail
		if e.Field != nil {
			msg = fmt.Sprintf("%s: %s", e.Field, e.Detail)
		}
	default:
		msg = e.Detail
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

func (e *TransformError) Unwrap() error { return e.Err }

// ValidateTransform is the one decision of whether a transform (the
// object written in a Composition, or anything else found in its place)
// is valid, as function-patch-and-transform decides it: nil when it is,
// else every reason it is not, those its decoding finds (WrongType,
// Unreadable) before those its validation finds. The function stops at
// the first, which is the one Transform and TransformAll report; the
// rest are for an editor, which shows them all at once: after a field of
// the wrong type, validation goes on as if that field were set to its
// zero value (an empty object, "", 0), and every invalid pattern of a
// match transform is reported. classic validates a classic Composition's
// transform (which Crossplane runs itself, after the same validation),
// with the API server's defaults (math.type Multiply, string.type Format)
// and its integers exact.
func ValidateTransform(t any, classic bool) []*TransformError {
	x, errs := readTransformAs(t, classic)
	return append(errs, x.validate()...)
}

// Transform runs one transform on in. The error, if any, is a
// *TransformError.
func Transform(t map[string]any, in any) (any, error) {
	x, errs := readTransform(t)
	if len(errs) == 0 {
		errs = x.validate()
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return x.resolve(normalizeInput(in))
}

// TransformAll runs a patch's transforms in order, each on the output of
// the one before, and returns the last output and -1. As the function
// checks its whole input before running any patch, every transform is
// read and checked first: the first one that is invalid fails the whole
// list, even if an earlier one would fail on the value. The failing
// transform's index is returned with an error that wraps its
// *TransformError.
func TransformAll(ts []any, in any) (any, int, error) {
	return transformAll(ts, in, false)
}

// transformAll is TransformAll; classic reads a classic Composition's
// transforms, which Crossplane runs itself on its typed Composition: the
// API server has defaulted them, and integers stay exact instead of
// passing through a protobuf Struct.
func transformAll(ts []any, in any, classic bool) (any, int, error) {
	xs := make([]*xform, len(ts))
	for i, t := range ts {
		x, errs := readTransformAs(t, classic)
		if len(errs) > 0 {
			return nil, i, fmt.Errorf("transform at index %d is invalid: %w", i, errs[0])
		}
		xs[i] = x
	}
	for i, x := range xs {
		if errs := x.validate(); len(errs) > 0 {
			return nil, i, fmt.Errorf("transform at index %d is invalid: %w", i, errs[0])
		}
	}
	v := normalizeInput(in)
	for i, x := range xs {
		out, err := x.resolve(v)
		if err == nil {
			err = checkValue("the "+x.typ+" transform's output", out)
		}
		if err != nil {
			return nil, i, fmt.Errorf("transform at index %d returned error: %w", i, err)
		}
		v = out
	}
	return v, -1, nil
}

// normalizeInput gives number types the function never sees the types it
// would have (int64 or float64).
func normalizeInput(v any) any {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case float32:
		return float64(n)
	case json.Number:
		if x, err := jsonnum.Number(string(n)); err == nil {
			return x
		}
	}
	return v
}

// The transform as the function's v1beta1 types hold it. Pointers are
// optional fields (nil when absent or null).
type xform struct {
	typ     string
	math    *mathX
	mapping map[string]any // map: nil when absent
	hasMap  bool
	match   *matchX
	str     *stringX
	convert *convertX
}

type mathX struct {
	typ                          string
	multiply, clampMin, clampMax *int64
}

type matchX struct {
	patterns      []patternX
	fallbackValue any // nil when absent or null
	fallbackTo    string
}

type patternX struct {
	typ             string
	literal, regexp *string
	result          any
}

type stringX struct {
	typ                   string
	format, convert, trim *string
	regexp                *regexpX
	join                  *string // the separator; nil without join
	replace               *replaceX
}

type regexpX struct {
	match string
	group *int
}

type replaceX struct{ search, replace string }

type convertX struct {
	toType string
	format *string
}

// reader reads JSON-typed fields, collecting type errors in the order the
// function's decoding meets them. A field of the wrong type reads as set
// to its zero value, so that validation can go on. exact keeps integers
// as written (a classic Composition's transforms).
type reader struct {
	errs  []*TransformError
	exact bool
}

func (r *reader) fail(at fieldpath.Path, reason Reason, value, detail string) {
	r.errs = append(r.errs, &TransformError{Field: at, Invalid: true, Reason: reason, Value: value, Detail: detail})
}

func (r *reader) wrongType(at fieldpath.Path, detail string) {
	r.fail(at, WrongType, "", detail)
}

// setField returns m[key] and whether it is set (present and not null).
func setField(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	return v, ok && v != nil
}

func (r *reader) object(m map[string]any, key string, at fieldpath.Path) map[string]any {
	v, ok := setField(m, key)
	if !ok {
		return nil
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		r.wrongType(at.Child(fieldpath.Field(key)), "must be an object, not "+paved.JSONKind(v))
		return map[string]any{}
	}
	return o
}

func (r *reader) str(m map[string]any, key string, at fieldpath.Path) *string {
	v, ok := setField(m, key)
	if !ok {
		return nil
	}
	s, isStr := v.(string)
	if !isStr {
		r.wrongType(at.Child(fieldpath.Field(key)), "must be a string, not "+paved.JSONKind(v))
		return new(string)
	}
	return &s
}

// plain reads a string field that is not optional in the function's
// types: absent and null read as "".
func (r *reader) plain(m map[string]any, key string, at fieldpath.Path) string {
	if s := r.str(m, key, at); s != nil {
		return *s
	}
	return ""
}

// integer reads an integer field. Crossplane hands the function its input
// as a protobuf Struct, whose numbers are float64: an integer is rounded
// to the nearest float64 on the way, and one that then no longer fits an
// int64 (beyond MaxInputInt) is rejected, as are fractions.
func (r *reader) integer(m map[string]any, key string, at fieldpath.Path) *int64 {
	v, ok := setField(m, key)
	if !ok {
		return nil
	}
	var f float64
	switch n := normalizeInput(v).(type) {
	case int64:
		if r.exact {
			return &n
		}
		f = float64(n)
		if n > MaxInputInt {
			r.fail(at.Child(fieldpath.Field(key)), Unreadable, strconv.FormatInt(n, 10),
				fmt.Sprintf("cannot be read: %d reaches the function as 9223372036854775808 (a step's input is a protobuf Struct, whose numbers are float64), which does not fit an int64", n))
			return new(int64)
		}
	case float64:
		f = n
	default:
		r.wrongType(at.Child(fieldpath.Field(key)), "must be an integer, not "+paved.JSONKind(v))
		return new(int64)
	}
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		r.wrongType(at.Child(fieldpath.Field(key)), fmt.Sprintf("must be an integer, not %v", v))
		return new(int64)
	}
	i := int64(f)
	return &i
}

var root = fieldpath.Path(nil)

func field(names ...string) fieldpath.Path {
	p := make(fieldpath.Path, len(names))
	for i, n := range names {
		p[i] = fieldpath.Field(n)
	}
	return p
}

// readTransform decodes a transform object as the function's JSON
// decoding would, failing on fields of the wrong JSON type.
func readTransform(t map[string]any) (*xform, []*TransformError) {
	return readTransformAs(t, false)
}

// readTransformAs is readTransform; classic reads a classic Composition's
// transform, after the API server's defaulting and with exact integers.
// It always returns a transform, read as if every field of the wrong type
// were set to its zero value.
func readTransformAs(tv any, classic bool) (*xform, []*TransformError) {
	r := reader{exact: classic}
	t, ok := tv.(map[string]any)
	if !ok {
		r.wrongType(root, "a transform must be an object, not "+paved.JSONKind(tv))
	}
	x := &xform{typ: r.plain(t, "type", root)}

	// classicType is the type of a classic Composition's math or string
	// transform, which the Composition CRD defaults (to def) unless it
	// is a string.
	classicType := func(m map[string]any, key, def string) (string, bool) {
		if !classic || x.typ != key {
			return "", false
		}
		if s, _ := m["type"].(string); s == "" {
			return def, true
		}
		return "", false
	}

	if m := r.object(t, "math", root); m != nil {
		at := field("math")
		typ, defaulted := classicType(m, "math", "Multiply")
		if !defaulted {
			typ = r.plain(m, "type", at)
		}
		x.math = &mathX{
			typ:      typ,
			multiply: r.integer(m, "multiply", at),
			clampMin: r.integer(m, "clampMin", at),
			clampMax: r.integer(m, "clampMax", at),
		}
	}

	if m := r.object(t, "map", root); m != nil {
		x.mapping, x.hasMap = m, true
	}

	if m := r.object(t, "match", root); m != nil {
		at := field("match")
		x.match = &matchX{fallbackTo: r.plain(m, "fallbackTo", at)}
		x.match.fallbackValue, _ = setField(m, "fallbackValue")
		if v, ok := setField(m, "patterns"); ok {
			list, isList := v.([]any)
			if !isList {
				r.wrongType(field("match", "patterns"), "must be an array, not "+paved.JSONKind(v))
			}
			for i, pv := range list {
				var pat patternX // a null element is an empty pattern
				at := field("match", "patterns").Child(fieldpath.Index(i))
				switch pm := pv.(type) {
				case nil:
				case map[string]any:
					pat.typ = r.plain(pm, "type", at)
					pat.literal = r.str(pm, "literal", at)
					pat.regexp = r.str(pm, "regexp", at)
					pat.result, _ = setField(pm, "result")
				default:
					r.wrongType(at, "must be an object, not "+paved.JSONKind(pv))
				}
				x.match.patterns = append(x.match.patterns, pat)
			}
		}
	}

	if m := r.object(t, "string", root); m != nil {
		at := field("string")
		typ, defaulted := classicType(m, "string", "Format")
		if !defaulted {
			typ = r.plain(m, "type", at)
		}
		s := &stringX{
			typ:     typ,
			format:  r.str(m, "fmt", at),
			convert: r.str(m, "convert", at),
			trim:    r.str(m, "trim", at),
		}
		if rm := r.object(m, "regexp", at); rm != nil {
			s.regexp = &regexpX{match: r.plain(rm, "match", field("string", "regexp"))}
			if g := r.integer(rm, "group", field("string", "regexp")); g != nil {
				gi := int(*g)
				s.regexp.group = &gi
			}
		}
		if jm := r.object(m, "join", at); jm != nil {
			sep := r.plain(jm, "separator", field("string", "join"))
			s.join = &sep
		}
		if rm := r.object(m, "replace", at); rm != nil {
			s.replace = &replaceX{
				search:  r.plain(rm, "search", field("string", "replace")),
				replace: r.plain(rm, "replace", field("string", "replace")),
			}
		}
		x.str = s
	}

	if m := r.object(t, "convert", root); m != nil {
		at := field("convert")
		x.convert = &convertX{toType: r.plain(m, "toType", at), format: r.str(m, "format", at)}
	}

	return x, r.errs
}

// missing is the function's field.Required error for a field that of
// needs.
func missing(at fieldpath.Path, of, detail string) *TransformError {
	return &TransformError{Field: at, Invalid: true, Reason: MissingField, Of: of, Detail: detail}
}

// invalid is the function's field.Invalid error.
func invalid(at fieldpath.Path, reason Reason, value, detail string) *TransformError {
	return &TransformError{Field: at, Invalid: true, Reason: reason, Value: value, Detail: detail}
}

func badRegexp(at fieldpath.Path, re string) *TransformError {
	if _, err := regexp.Compile(re); err != nil {
		e := invalid(at, BadRegexp, re, "invalid regexp")
		e.Err = err
		return e
	}
	return nil
}

// one is the list of at most one error.
func one(e *TransformError) []*TransformError {
	if e == nil {
		return nil
	}
	return []*TransformError{e}
}

// validate is the function's ValidateTransform, except that it reports
// every invalid pattern of a match transform, where the function stops at
// the first.
func (x *xform) validate() []*TransformError {
	switch x.typ {
	case "math":
		if x.math == nil {
			return one(missing(field("math"), "math", "given transform type math requires configuration"))
		}
		return one(x.math.validate())
	case "map":
		if !x.hasMap {
			return one(missing(field("map"), "map", "given transform type map requires configuration"))
		}
		if len(x.mapping) == 0 {
			return one(&TransformError{Field: field("map"), Invalid: true, Reason: EmptyMap,
				Detail: "at least one pair must be specified if a map transform is specified"})
		}
	case "match":
		if x.match == nil {
			return one(missing(field("match"), "match", "given transform type match requires configuration"))
		}
		return x.match.validate()
	case "string":
		if x.str == nil {
			return one(missing(field("string"), "string", "given transform type string requires configuration"))
		}
		return one(x.str.validate())
	case "convert":
		if x.convert == nil {
			return one(missing(field("convert"), "convert", "given transform type convert requires configuration"))
		}
		if f := x.convert.format; f != nil && !validFormat(*f) {
			return one(invalid(field("convert", "format"), BadValue, *f, "invalid format"))
		}
		if !validIOType(x.convert.toType) {
			return one(invalid(field("convert", "toType"), BadValue, x.convert.toType, "invalid type"))
		}
	default:
		return one(invalid(field("type"), UnknownType, x.typ, "unknown transform type"))
	}
	return nil
}

func (m *matchX) validate() []*TransformError {
	if len(m.patterns) == 0 {
		return one(&TransformError{Field: field("match", "patterns"), Invalid: true, Reason: EmptyPatterns,
			Detail: "at least one pattern must be specified if a match transform is specified"})
	}
	var errs []*TransformError
	for i, p := range m.patterns {
		at := field("match", "patterns").Child(fieldpath.Index(i))
		switch p.typ {
		case "literal", "":
			if p.literal == nil {
				errs = append(errs, missing(at.Child(fieldpath.Field("literal")), "literal", "literal pattern type requires a literal"))
			}
		case "regexp":
			if p.regexp == nil {
				errs = append(errs, missing(at.Child(fieldpath.Field("regexp")), "regexp", "regexp pattern type requires a regexp"))
			} else if e := badRegexp(at.Child(fieldpath.Field("regexp")), *p.regexp); e != nil {
				errs = append(errs, e)
			}
		default:
			errs = append(errs, invalid(at.Child(fieldpath.Field("type")), UnknownType, p.typ, "unknown pattern type"))
		}
	}
	return errs
}

func (m *mathX) validate() *TransformError {
	switch m.typ {
	case "":
		return missing(field("math", "type"), "math", "math transform type is required")
	case "Multiply":
		if m.multiply == nil {
			return missing(field("math", "multiply"), m.typ, "must specify a value if a multiply math transform is specified")
		}
	case "ClampMin":
		if m.clampMin == nil {
			return missing(field("math", "clampMin"), m.typ, "must specify a value if a clamp min math transform is specified")
		}
	case "ClampMax":
		if m.clampMax == nil {
			return missing(field("math", "clampMax"), m.typ, "must specify a value if a clamp max math transform is specified")
		}
	default:
		return invalid(field("math", "type"), UnknownType, m.typ, "unknown math transform type")
	}
	return nil
}

func (s *stringX) validate() *TransformError {
	switch s.typ {
	case "":
		return missing(field("string", "type"), "string", "string transform type is required")
	case "Format":
		if s.format == nil {
			return missing(field("string", "fmt"), s.typ, "format transform requires a format")
		}
	case "Convert":
		if s.convert == nil {
			return missing(field("string", "convert"), s.typ, "convert transform requires a conversion type")
		}
	case "TrimPrefix", "TrimSuffix":
		if s.trim == nil {
			return missing(field("string", "trim"), s.typ, "trim transform requires a trim value")
		}
	case "Regexp":
		if s.regexp == nil {
			return missing(field("string", "regexp"), s.typ, "regexp transform requires a regexp")
		}
		if s.regexp.match == "" {
			return missing(field("string", "regexp", "match"), s.typ, "regexp transform requires a match")
		}
		return badRegexp(field("string", "regexp", "match"), s.regexp.match)
	case "Join":
		if s.join == nil {
			return missing(field("string", "join"), s.typ, "join transform requires a join")
		}
	case "Replace":
		if s.replace == nil {
			return missing(field("string", "replace"), s.typ, "replace transform requires a replace")
		}
		if s.replace.search == "" {
			return missing(field("string", "replace", "search"), s.typ, "replace transform requires a search")
		}
	default:
		return invalid(field("string", "type"), UnknownType, s.typ, "unknown string transform type")
	}
	return nil
}

func validFormat(f string) bool {
	switch f {
	case "none", "quantity", "json":
		return true
	}
	return false
}

func validIOType(t string) bool {
	switch t {
	case "string", "bool", "int", "int64", "float64", "object", "array":
		return true
	}
	return false
}

// failed is a transform that could not resolve on its input.
func failed(typ string, at fieldpath.Path, err error) *TransformError {
	return &TransformError{Field: at, Detail: typ + " transform could not resolve", Err: err}
}

// resolve is the function's Resolve, on a validated transform.
func (x *xform) resolve(in any) (any, error) {
	var (
		out any
		at  fieldpath.Path
		err error
	)
	switch x.typ {
	case "math":
		out, err = x.math.resolve(in)
	case "map":
		out, err = resolveMap(x.mapping, in)
	case "match":
		out, at, err = x.match.resolve(in)
	case "string":
		out, at, err = x.str.resolve(in)
	case "convert":
		out, err = x.convert.resolve(in)
	}
	if err != nil {
		return nil, failed(x.typ, at, err)
	}
	return out, nil
}

func (m *mathX) resolve(in any) (any, error) {
	switch in.(type) {
	case int64, float64:
	default:
		return nil, fmt.Errorf("input is required to be a number for math transformer, got %T", in)
	}
	switch m.typ {
	case "Multiply":
		if f, ok := in.(float64); ok {
			return f * float64(*m.multiply), nil
		}
		return in.(int64) * *m.multiply, nil
	default: // ClampMin, ClampMax: compare the input truncated to an integer
		var n int64
		switch v := in.(type) {
		case int64:
			n = v
		case float64:
			n = int64(v)
		}
		if m.typ == "ClampMin" && n < *m.clampMin {
			return *m.clampMin, nil
		}
		if m.typ == "ClampMax" && n > *m.clampMax {
			return *m.clampMax, nil
		}
		return in, nil
	}
}

// jsonResult is a value written in the transform as the function decodes
// it from JSON: numbers become float64.
func jsonResult(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

func resolveMap(pairs map[string]any, in any) (any, error) {
	s, ok := in.(string)
	if !ok {
		return nil, fmt.Errorf("type %T is not supported for map transform", in)
	}
	v, ok := pairs[s]
	if !ok {
		return nil, fmt.Errorf("key %s is not found in map", s)
	}
	if v == nil {
		// A null value reaches the function as no JSON at all.
		return nil, fmt.Errorf("value for key %s is not valid JSON: unexpected end of JSON input", s)
	}
	out, err := jsonResult(v)
	if err != nil {
		return nil, fmt.Errorf("value for key %s is not valid JSON: %w", s, err)
	}
	return out, nil
}

func (m *matchX) resolve(in any) (any, fieldpath.Path, error) {
	for i, p := range m.patterns {
		at := field("match", "patterns").Child(fieldpath.Index(i))
		ok, err := p.matches(in)
		if err != nil {
			return nil, at, fmt.Errorf("cannot match pattern at index %d: %w", i, err)
		}
		if ok {
			out, err := jsonResult(p.result)
			if err != nil {
				return nil, at, fmt.Errorf("cannot parse result of pattern at index %d: %w", i, err)
			}
			return out, nil, nil
		}
	}
	if m.fallbackTo == "Input" {
		if m.fallbackValue != nil {
			return nil, field("match", "fallbackTo"), fmt.Errorf("cannot set both a fallback value and the fallback to input flag")
		}
		return in, nil, nil
	}
	out, err := jsonResult(m.fallbackValue)
	if err != nil {
		return nil, field("match", "fallbackValue"), fmt.Errorf("cannot parse fallback value: %w", err)
	}
	return out, nil, nil
}

func (p patternX) matches(in any) (bool, error) {
	switch p.typ {
	case "literal":
		if p.literal == nil {
			return false, fmt.Errorf("literal is required by type literal")
		}
		s, ok := in.(string)
		if !ok {
			return false, fmt.Errorf("unsupported input type '%T'", in)
		}
		return s == *p.literal, nil
	case "regexp":
		if p.regexp == nil {
			return false, fmt.Errorf("regexp is required by type regexp")
		}
		re, err := regexp.Compile(*p.regexp)
		if err != nil {
			return false, fmt.Errorf("cannot compile regexp: %w", err)
		}
		if in == nil {
			return false, fmt.Errorf("unsupported input type 'null'")
		}
		s, ok := in.(string)
		if !ok {
			return false, fmt.Errorf("unsupported input type '%T'", in)
		}
		return re.MatchString(s), nil
	}
	// Validation accepts a pattern without a type as a literal, but the
	// function has no default when it matches.
	return false, fmt.Errorf("unsupported pattern type '%s'", p.typ)
}

func (s *stringX) resolve(in any) (any, fieldpath.Path, error) {
	switch s.typ {
	case "Format":
		out, err := formatValue("the Format output", *s.format, in)
		if err != nil {
			return nil, field("string", "fmt"), err
		}
		return out, nil, nil
	case "Convert":
		out, err := stringConvert(*s.convert, in)
		if err != nil {
			return nil, field("string", "convert"), err
		}
		return out, nil, nil
	case "TrimPrefix":
		return strings.TrimPrefix(fmt.Sprintf("%v", in), *s.trim), nil, nil
	case "TrimSuffix":
		return strings.TrimSuffix(fmt.Sprintf("%v", in), *s.trim), nil, nil
	case "Regexp":
		re, err := regexp.Compile(s.regexp.match)
		if err != nil {
			return nil, field("string", "regexp", "match"), fmt.Errorf("could not compile regexp: %w", err)
		}
		groups := re.FindStringSubmatch(fmt.Sprintf("%v", in))
		g := 0
		if s.regexp.group != nil {
			g = *s.regexp.group
		}
		if len(groups) == 0 || g >= len(groups) || g < 0 {
			// A negative group makes the function panic.
			return nil, field("string", "regexp"), fmt.Errorf("regexp %q had no matches for group %d", s.regexp.match, g)
		}
		return groups[g], nil, nil
	case "Join":
		list, ok := in.([]any)
		if !ok {
			return nil, nil, fmt.Errorf("could not parse input array")
		}
		var b strings.Builder
		for _, v := range list {
			fmt.Fprintf(&b, "%v%s", v, *s.join)
			if b.Len() > MaxValueSize {
				return nil, field("string", "join"), &LimitError{What: "the Join output", Size: b.Len(), Limit: MaxValueSize}
			}
		}
		out := b.String()
		if len(*s.join) > 0 && len(out) > 0 {
			// The function drops one byte, whatever the separator's length.
			out = out[:len(out)-1]
		}
		return out, nil, nil
	case "Replace":
		out, err := replaceAll("the Replace output", fmt.Sprintf("%v", in), s.replace.search, s.replace.replace)
		if err != nil {
			return nil, field("string", "replace"), err
		}
		return out, nil, nil
	}
	return nil, field("string", "type"), fmt.Errorf("type %s is not supported for string transform type", s.typ)
}

func stringConvert(conv string, in any) (string, error) {
	str := fmt.Sprintf("%v", in)
	switch conv {
	case "ToUpper":
		return strings.ToUpper(str), nil
	case "ToLower":
		return strings.ToLower(str), nil
	case "ToJson":
		b, err := json.Marshal(in)
		if err != nil {
			return "", fmt.Errorf("cannot marshal to JSON: %w", err)
		}
		return string(b), nil
	case "ToBase64":
		return base64.StdEncoding.EncodeToString([]byte(str)), nil
	case "FromBase64":
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return "", fmt.Errorf("string is not valid base64: %w", err)
		}
		return string(b), nil
	case "ToSha1", "ToSha256", "ToSha512", "ToAdler32":
		b, err := hashInput(in)
		if err != nil {
			if conv == "ToAdler32" {
				return "", fmt.Errorf("unable to generate Adler checksum: %w", err)
			}
			return "", fmt.Errorf("cannot generate hash: %w", err)
		}
		switch conv {
		case "ToSha1":
			h := sha1.Sum(b) //nolint:gosec // see import
			return hex.EncodeToString(h[:]), nil
		case "ToSha256":
			h := sha256.Sum256(b)
			return hex.EncodeToString(h[:]), nil
		case "ToSha512":
			h := sha512.Sum512(b)
			return hex.EncodeToString(h[:]), nil
		default:
			return strconv.FormatUint(uint64(adler32.Checksum(b)), 10), nil
		}
	}
	return "", fmt.Errorf("type %s is not supported for string convert", conv)
}

// hashInput is what the function hashes: a string's bytes, or else the
// value's JSON.
func hashInput(in any) ([]byte, error) {
	if s, ok := in.(string); ok {
		return []byte(s), nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal to JSON: %w", err)
	}
	return b, nil
}

func (c *convertX) resolve(in any) (any, error) {
	from := fmt.Sprintf("%T", in)
	if !validIOType(from) {
		return nil, fmt.Errorf("invalid input type %T", in)
	}
	orig := from
	to := c.toType
	if to == "int" {
		to = "int64"
	}
	if from == "int" {
		from = "int64"
	}
	if to == from {
		return in, nil
	}
	format := "none"
	if c.format != nil {
		format = *c.format
	}
	switch from + ">" + to + ">" + format {
	case "string>int64>none":
		return strconv.ParseInt(in.(string), 10, 64)
	case "string>bool>none":
		return strconv.ParseBool(in.(string))
	case "string>float64>none":
		return strconv.ParseFloat(in.(string), 64)
	case "string>float64>quantity":
		if err := checkQuantity(in.(string)); err != nil {
			return nil, err
		}
		q, err := resource.ParseQuantity(in.(string))
		if err != nil {
			return nil, err
		}
		return q.AsApproximateFloat64(), nil
	case "int64>string>none":
		return strconv.FormatInt(in.(int64), 10), nil
	case "int64>bool>none":
		return in.(int64) == 1, nil
	case "int64>float64>none":
		return float64(in.(int64)), nil
	case "bool>string>none":
		return strconv.FormatBool(in.(bool)), nil
	case "bool>int64>none":
		if in.(bool) {
			return int64(1), nil
		}
		return int64(0), nil
	case "bool>float64>none":
		if in.(bool) {
			return float64(1), nil
		}
		return float64(0), nil
	case "float64>string>none":
		return strconv.FormatFloat(in.(float64), 'f', -1, 64), nil
	case "float64>int64>none":
		return int64(in.(float64)), nil
	case "float64>bool>none":
		return in.(float64) == 1, nil
	case "string>object>json":
		// JSON null yields a nil map (and a nil list below), as in the
		// function.
		o := map[string]any{}
		if err := json.Unmarshal([]byte(in.(string)), &o); err != nil {
			return nil, err
		}
		return o, nil
	case "string>array>json":
		var o []any
		if err := json.Unmarshal([]byte(in.(string)), &o); err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("conversion from %s to %s is not supported with format %s", orig, to, format)
}
