// This file turns the API server's field errors into Errors positioned by
// exact paths.

package schemas

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
)

// Error is one validation problem, positioned by path.
//
// Placement conventions:
//   - unknown-field: Path is the unknown field itself, OnKey (its key).
//   - required: Path is the object that lacks the field (the root for a
//     missing top-level field), OnKey, and Message names the missing field:
//     `missing required field "region"`. The missing field may itself be
//     inside an object that only exists after defaulting; Path is then not
//     in the document and callers should fall back to its nearest existing
//     ancestor.
//   - cel: Path is the node the rule is attached to, or the rule's
//     fieldPath; OnKey when that node is an object or a list (so an editor
//     underlines the key, not the whole block), else on the value.
//   - everything else (type, enum, pattern, range, length, format,
//     duplicate, metadata, invalid): Path is the offending value, OnKey
//     false.
//   - Messages drop the path prefix the API server repeats ("spec.x in body
//     must be …" becomes "must be …"): the editor shows the position.
type Error struct {
	Path     fieldpath.Path
	OnKey    bool
	Severity severity.Severity
	// Code is stable: unknown-field, type, enum, pattern, range, length,
	// format, required, cel, duplicate, metadata, invalid, crd, and schema
	// (the schema itself cannot be used; a warning).
	Code    string
	Message string
	// Field is the field a required finding misses, or the unknown field
	// an unknown-field finding names; Suggestion the known field a
	// misspelt one most likely meant. Quick fixes read these, not Message.
	Field, Suggestion string
	// Unevaluable marks a cel finding whose rule could not be evaluated on
	// the object (a runtime error such as a missing key), as opposed to
	// one that evaluated to false.
	Unevaluable bool
	// Deferred marks a cel finding of a rule the API server skips while
	// the object has errors that block CEL (ValidateThrough): it says it
	// once those are fixed.
	Deferred bool
}

func (e Error) String() string {
	return fmt.Sprintf("%s: %s [%s]", e.Path, e.Message, e.Code)
}

// resolver turns the API server's rendered field paths into
// fieldpath.Paths. field.Error keeps its path only as a string (and
// kube-openapi and the pruner build theirs by string concatenation), so the
// structure is recovered by walking the string and the object together:
// "spec.tags[2].key" (an index into a list), "metadata.labels[a.b/c]"
// (field.Path.Key), or kube-openapi's "metadata.labels.a.b/c" (a key with
// dots, recognised as the longest key of the map at that point).
type resolver struct {
	in any
	ss *structuralschema.Structural // the object's schema, when known
}

func (r *resolver) resolve(s string) fieldpath.Path {
	var out fieldpath.Path
	cur := r.in
	for s != "" {
		if s[0] == '.' {
			s = s[1:]
			continue
		}
		if s[0] == '[' {
			// A map key in brackets (it may itself contain brackets), or
			// a list index.
			if m, ok := cur.(map[string]any); ok {
				if k, ok := longestKey(m, s[1:], "]"); ok {
					out = append(out, fieldpath.Field(k))
					cur = m[k]
					s = s[len(k)+2:]
					continue
				}
			}
			end := strings.IndexByte(s, ']')
			if end < 0 {
				out = append(out, fieldpath.Field(s))
				return out
			}
			inner := s[1:end]
			s = s[end+1:]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				if _, isMap := cur.(map[string]any); !isMap {
					out = append(out, fieldpath.Index(n))
					cur = index(cur, n)
					continue
				}
			}
			out = append(out, fieldpath.Field(inner))
			cur = member(cur, inner)
			continue
		}
		k := ""
		if m, ok := cur.(map[string]any); ok {
			k, _ = longestKey(m, s, "")
		}
		if k == "" {
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			k = s[:end]
		}
		out = append(out, fieldpath.Field(k))
		cur = member(cur, k)
		s = s[len(k):]
	}
	return out
}

// longestKey finds the longest key k of m such that s starts with k+term
// (term "" means: followed by '.', '[' or the end). It looks up the
// prefixes of s that could be such a key, longest first, so it costs
// len(s) lookups however many keys m has (an object with 30,000 unknown
// fields resolves 30,000 paths in it).
func longestKey(m map[string]any, s, term string) (string, bool) {
	for i := len(s); i >= 0; i-- {
		if term != "" {
			if !strings.HasPrefix(s[i:], term) {
				continue
			}
		} else if i == 0 || i < len(s) && s[i] != '.' && s[i] != '[' {
			continue
		}
		if _, ok := m[s[:i]]; ok {
			return s[:i], true
		}
	}
	return "", false
}

func member(v any, k string) any {
	if m, ok := v.(map[string]any); ok {
		return m[k]
	}
	return nil
}

func index(v any, i int) any {
	if l, ok := v.([]any); ok && i >= 0 && i < len(l) {
		return l[i]
	}
	return nil
}

// at returns the value at p in the original object (nil if absent).
func (r *resolver) at(p fieldpath.Path) any {
	cur := r.in
	for _, s := range p {
		switch s.Kind {
		case fieldpath.KindField:
			cur = member(cur, s.Field)
		case fieldpath.KindIndex:
			cur = index(cur, s.Index)
		default:
			return nil
		}
	}
	return cur
}

var inBodyRE = regexp.MustCompile(`^\S* in body `)

// convert maps the API server's errors. code forces a code ("cel",
// "metadata", "crd"); "" classifies each error.
func (r *resolver) convert(errs field.ErrorList, code string) []Error {
	out := make([]Error, 0, len(errs))
	checked := map[string]bool{} // paths with a "Checked value" format report
	for _, fe := range errs {
		e := r.convertOne(fe, code)
		if _, _, ok := checkedFormat(fe); ok {
			checked[e.Path.String()] = true
		}
		out = append(out, e)
	}
	if len(checked) == 0 {
		return out
	}
	// kube-openapi also reports an int64 overflow as "must be of type
	// int64: "float64"" at the same value: one finding is enough.
	kept := out[:0]
	for i, e := range out {
		if _, _, ok := checkedFormat(errs[i]); !ok && checked[e.Path.String()] && strings.Contains(e.Message, "must be of type") {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

func (r *resolver) convertOne(fe *field.Error, code string) (e Error) {
	defer func() { e.Message = clipMessage(e.Message) }()
	if path, keyword, found, ok := composite(fe); ok {
		e = r.compositeError(path, keyword, found)
		if code != "" && code != "invalid" {
			e.Code = code
		}
		return e
	}
	if path, typ, ok := checkedFormat(fe); ok {
		p := r.resolve(path)
		e = Error{Severity: severity.Error, Path: p, Code: "format", Message: "must be of type " + typ}
		if v := r.at(p); v != nil {
			e.Message = fmt.Sprintf("must be of type %s: %s is out of range", typ, valueString(v))
		}
		if code != "" && code != "invalid" {
			e.Code = code
		}
		return e
	}
	p := r.resolve(fe.Field)
	e = Error{Severity: severity.Error, Path: p}
	detail := strings.TrimSpace(strings.Replace(fe.Detail, fe.Field+" in body ", "", 1))
	detail = inBodyRE.ReplaceAllString(detail, "")

	if code == "cel" {
		e.Code = "cel"
		e.Message = detail
		// The CEL validator's wording of a rule that failed to evaluate
		// (apiextensions-apiserver's schema/cel validation).
		e.Unevaluable = strings.Contains(fe.Detail, " evaluating rule: ")
		if e.Message == "" {
			e.Message = fe.ErrorBody()
		}
		switch r.at(p).(type) {
		case map[string]any, []any:
			e.OnKey = true
		}
		return e
	}

	switch fe.Type {
	case field.ErrorTypeRequired:
		last, ok := p.Last()
		e.Path, e.OnKey, e.Code = p.Parent(), true, "required"
		name := last.Field
		if !ok || last.Kind != fieldpath.KindField {
			e.Path, name = p, p.String()
		}
		e.Message = fmt.Sprintf("missing required field %q", name)
		if ok && last.Kind == fieldpath.KindField {
			e.Field = name
		}
		if detail != "" && detail != "Required value" {
			e.Message += ": " + detail
		}
		if code == "crd" {
			e.Code = code
		}
		return e
	case field.ErrorTypeNotSupported:
		e.Code = "enum"
		e.Message = fmt.Sprintf("unsupported value %s: %s", valueString(fe.BadValue), supportedValues(detail))
	case field.ErrorTypeDuplicate:
		e.Code = "duplicate"
		e.Message = "duplicate entry " + valueString(fe.BadValue)
		if detail != "" {
			e.Message += ": " + detail
		}
	case field.ErrorTypeTypeInvalid:
		e.Code = "type"
		if strings.Contains(detail, "must be of type ") && !isJSONType(detail) {
			e.Code = "format"
		}
		e.Message = detail
	case field.ErrorTypeForbidden:
		e.Code = "invalid"
		e.Message = "forbidden: " + detail
	case field.ErrorTypeTooLong, field.ErrorTypeTooMany:
		e.Code = "length"
		e.Message = strings.TrimSpace(fe.ErrorBody())
	default:
		e.Code = classifyDetail(detail)
		e.Message = detail
		if fe.BadValue != nil && e.Code == "invalid" && !strings.Contains(detail, valueString(fe.BadValue)) && isScalar(fe.BadValue) {
			e.Message = fmt.Sprintf("invalid value %s: %s", valueString(fe.BadValue), detail)
		}
		if e.Message == "" {
			e.Message = fe.ErrorBody()
		}
	}
	if code != "" {
		e.Code = code
	} else if len(p) > 0 && p[0] == fieldpath.Field("metadata") && e.Code == "invalid" {
		e.Code = "metadata"
	}
	r.refineMapEntry(&e, fe.BadValue)
	return e
}

// refineMapEntry positions errors that apimachinery reports on a whole
// labels / annotations / nodeSelector-like map (it validates keys and values
// with the map's own path) on the entry whose key (OnKey) or value is bad.
func (r *resolver) refineMapEntry(e *Error, bad any) {
	s, ok := bad.(string)
	if !ok {
		return
	}
	last, ok := e.Path.Last()
	if !ok || last.Kind != fieldpath.KindField || (last.Field != "labels" && last.Field != "annotations") {
		return
	}
	m, ok := r.at(e.Path).(map[string]any)
	if !ok {
		return
	}
	if _, isKey := m[s]; isKey {
		e.Path, e.OnKey = e.Path.Child(fieldpath.Field(s)), true
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if m[k] == s {
			e.Path, e.OnKey = e.Path.Child(fieldpath.Field(k)), false
			return
		}
	}
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, bool, int, int32, int64, float32, float64:
		return true
	}
	return false
}

func isJSONType(detail string) bool {
	_, t, _ := strings.Cut(detail, "must be of type ")
	t, _, _ = strings.Cut(t, ":")
	t, _, _ = strings.Cut(t, ",")
	switch strings.TrimSpace(t) {
	case "string", "integer", "number", "boolean", "object", "array", "null":
		return true
	}
	return false
}

func classifyDetail(detail string) string {
	switch {
	case strings.Contains(detail, "must be of type"):
		return "type"
	case strings.Contains(detail, "should match") || strings.Contains(detail, "must match"):
		return "pattern"
	case strings.Contains(detail, "should be greater") || strings.Contains(detail, "should be less") ||
		strings.Contains(detail, "must be greater") || strings.Contains(detail, "must be less") ||
		strings.Contains(detail, "multiple of"):
		return "range"
	case strings.Contains(detail, "should have at") || strings.Contains(detail, "chars long") ||
		strings.Contains(detail, "must be no more than") || strings.Contains(detail, "properties"):
		return "length"
	case strings.Contains(detail, "format"):
		return "format"
	}
	return "invalid"
}

// valueString is a value as a message quotes it (yamlflow.Value).
func valueString(v any) string { return yamlflow.Value(v) }

// sortErrors orders errors by path (segment-wise: fields by name, indices
// numerically), then code, then message.
func sortErrors(errs []Error) {
	slices.SortStableFunc(errs, func(a, b Error) int {
		if c := comparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func comparePaths(a, b fieldpath.Path) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.Kind != y.Kind {
			return int(x.Kind) - int(y.Kind)
		}
		if x.Kind == fieldpath.KindIndex && x.Index != y.Index {
			return x.Index - y.Index
		}
		if c := strings.Compare(x.Field, y.Field); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
