package k8srules

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
)

//go:embed rules.json
var rulesJSON []byte

// Table is the generated file's content.
type Table struct {
	GeneratedFrom string `json:"generatedFrom"`
	Rules         []Rule `json:"rules"`
}

var (
	loadOnce sync.Once
	byKind   map[string][]Rule
	from     string
)

func load() {
	var t Table
	if err := json.Unmarshal(rulesJSON, &t); err != nil {
		panic("k8srules: rules.json: " + err.Error()) // a committed file the tests read
	}
	from = t.GeneratedFrom
	byKind = map[string][]Rule{}
	for _, r := range t.Rules {
		k := key(r.Group, r.Version, r.Kind)
		byKind[k] = append(byKind[k], r)
	}
}

func key(group, version, kind string) string { return group + "/" + version + "/" + kind }

// Rules returns the rules of one kind at one version.
func Rules(group, version, kind string) []Rule {
	loadOnce.Do(load)
	return byKind[key(group, version, kind)]
}

// Source names the module the rules were read from (k8s.io/api@v0.37.2).
func Source() string {
	loadOnce.Do(load)
	return from
}

// Finding is one rule an object breaks.
type Finding struct {
	// Path is the field the finding is about (a required field's own path).
	Path fieldpath.Path
	// Missing is the field a required finding misses (the last segment of
	// Path), "" otherwise (also when the field is given as its zero value).
	Missing string
	// Rule is the broken rule's name (required, format, …), Message the
	// explanation, naming the path and the kind.
	Rule, Message string
	Source        string
}

// Check applies a built-in kind's declarative validation rules to an
// object as the API server decodes it for create (obj: JSON-shaped maps).
// Values of the wrong JSON type are left to the schema validator.
func Check(group, version, kind string, obj map[string]any) []Finding {
	return check(Rules(group, version, kind), group, version, kind, obj)
}

func check(rules []Rule, group, version, kind string, obj map[string]any) []Finding {
	if len(rules) == 0 {
		return nil
	}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	whose := " — Kubernetes' own validation for " + gv + " " + kind
	var out []Finding
	add := func(p fieldpath.Path, r Rule, msg string) {
		out = append(out, Finding{Path: p, Rule: r.Rule, Message: p.String() + ": " + msg + whose + " (+k8s:" + tagText(r) + ", " + r.Source + ")", Source: r.Source})
	}
	for _, r := range rules {
		segs := splitPath(r.Path)
		switch r.Rule {
		case "required":
			parent, last := segs[:len(segs)-1], segs[len(segs)-1]
			walk(obj, parent, nil, func(p fieldpath.Path, v any) {
				m, ok := v.(map[string]any)
				if !ok {
					return
				}
				if x, present := m[last]; unset(x, r.Arg) {
					fp := p.Child(fieldpath.Field(last))
					missing, what := last, "Required value"
					if present && x != nil {
						// Given, as its zero value: the finding is on the value.
						missing, what = "", "Required value: "+yamlflow.Value(x)+" counts as unset"
					}
					out = append(out, Finding{Path: fp, Missing: missing, Rule: r.Rule,
						Message: fp.String() + ": " + what + whose + " (+k8s:required, " + r.Source + ")", Source: r.Source})
				}
			})
		case "union", "zeroOrOneOf":
			walk(obj, segs, nil, func(p fieldpath.Path, v any) {
				m, ok := v.(map[string]any)
				if !ok {
					return
				}
				var all, set []string
				for _, mem := range r.Values {
					name, value := strings.CutSuffix(mem, "=")
					all = append(all, "`"+name+"`")
					if x, present := m[name]; present && x != nil && !(value && isZero(x)) && !emptyCollection(x) {
						set = append(set, name)
					}
				}
				switch {
				case len(set) > 1 && r.Rule == "union":
					add(p, r, fmt.Sprintf("must specify exactly one of: %s (found %s)", strings.Join(all, ", "), strings.Join(set, ", ")))
				case len(set) > 1:
					add(p, r, fmt.Sprintf("must specify at most one of: %s (found %s)", strings.Join(all, ", "), strings.Join(set, ", ")))
				case len(set) == 0 && r.Rule == "union":
					add(p, r, "must specify one of: "+strings.Join(all, ", "))
				}
			})
		default:
			walk(obj, segs, nil, func(p fieldpath.Path, v any) {
				switch r.Each {
				case "key":
					m, _ := v.(map[string]any)
					keys := make([]string, 0, len(m))
					for k := range m {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					for _, k := range keys {
						if msg := value(r, k, false); msg != "" {
							add(p.Child(fieldpath.Field(k)), r, "key "+strconv.Quote(k)+": "+msg)
						}
					}
				case "val":
					each(v, p, func(p fieldpath.Path, v any) {
						if msg := value(r, v, false); msg != "" {
							add(p, r, msg)
						}
					})
				default:
					if l, ok := v.([]any); ok && r.Rule == "unique" {
						if i, msg := duplicate(l, r); msg != "" {
							add(p.Child(fieldpath.Index(i)), r, msg)
						}
						return
					}
					if msg := value(r, v, r.Pointer); msg != "" {
						add(p, r, msg)
					}
				}
			})
		}
	}
	return out
}

func tagText(r Rule) string {
	switch r.Rule {
	case "unique":
		if r.Arg == "map" {
			return "listType=map, listMapKey=" + strings.Join(r.Keys, ",")
		}
		return "unique=set"
	case "enum", "union":
		if r.Rule == "union" {
			return "unionMember"
		}
		return "enum"
	case "zeroOrOneOf":
		return "zeroOrOneOfMember"
	}
	s := r.Rule + "=" + r.Arg
	if r.Each == "key" {
		s = "eachKey=+k8s:" + s
	} else if r.Each == "val" {
		s = "eachVal=+k8s:" + s
	}
	return s
}

// unset reports whether a required field counts as not given: absent or
// null, or, for a Go value type, its zero value (RequiredValue compares
// with the zero value), for a slice or map, empty.
func unset(v any, shape string) bool {
	if v == nil {
		return true
	}
	switch shape {
	case "value":
		return isZero(v)
	case "slice", "map":
		return emptyCollection(v)
	}
	return false
}

func isZero(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case float64:
		return x == 0
	case int:
		return x == 0
	}
	return false
}

func emptyCollection(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case map[string]any:
		return false // a struct or a map given as {} is set for a pointer
	}
	return false
}

// value checks one value against a value rule and returns the message, or
// "". Zero values of Go value types are skipped: +k8s:optional stops there,
// and a required one is reported as required.
func value(r Rule, v any, pointer bool) string {
	ctx, op := context.Background(), operation.Operation{Type: operation.Create}
	switch r.Rule {
	case "format", "maxBytes", "maxLength":
		s, ok := v.(string)
		if !ok || s == "" {
			return ""
		}
		var errs field.ErrorList
		switch r.Rule {
		case "format":
			fn := formats[r.Arg]
			if fn == nil {
				return ""
			}
			errs = fn(ctx, op, nil, &s, nil)
		case "maxBytes":
			n, err := strconv.Atoi(r.Arg)
			if err != nil {
				return ""
			}
			errs = validate.MaxBytes(ctx, op, nil, &s, nil, n)
		case "maxLength":
			n, err := strconv.Atoi(r.Arg)
			if err != nil {
				return ""
			}
			errs = validate.MaxLength(ctx, op, nil, &s, nil, n)
		}
		return describe(errs, r)
	case "minimum", "maximum":
		n, ok := integer(v)
		if !ok || (n == 0 && !pointer) {
			return ""
		}
		bound, err := strconv.ParseInt(r.Arg, 10, 64)
		if err != nil {
			return ""
		}
		if r.Rule == "minimum" {
			return describe(validate.Minimum(ctx, op, nil, &n, nil, bound), r)
		}
		return describe(validate.Maximum(ctx, op, nil, &n, nil, bound), r)
	case "maxItems":
		l, ok := v.([]any)
		if !ok {
			return ""
		}
		n, err := strconv.Atoi(r.Arg)
		if err != nil {
			return ""
		}
		return describe(validate.MaxItems(ctx, op, nil, l, nil, n), r)
	case "enum":
		s, ok := v.(string)
		if !ok || s == "" {
			return ""
		}
		for _, x := range r.Values {
			if x == s {
				return ""
			}
		}
		quoted := make([]string, len(r.Values))
		for i, x := range r.Values {
			quoted[i] = strconv.Quote(x)
		}
		return fmt.Sprintf("Unsupported value: %q: supported values: %s", s, strings.Join(quoted, ", "))
	}
	return ""
}

// duplicate finds the first repeated element (set) or key (map): its
// index and the message.
func duplicate(l []any, r Rule) (int, string) {
	for i := 1; i < len(l); i++ {
		for j := 0; j < i; j++ {
			if r.Arg == "set" && reflect.DeepEqual(normal(l[i]), normal(l[j])) {
				return i, fmt.Sprintf("Duplicate value: the same as item %d", j)
			}
			if r.Arg == "map" {
				a, aok := l[i].(map[string]any)
				b, bok := l[j].(map[string]any)
				if !aok || !bok {
					continue
				}
				same := true
				var desc []string
				for _, k := range r.Keys {
					if !reflect.DeepEqual(normal(a[k]), normal(b[k])) {
						same = false
						break
					}
					desc = append(desc, k+"="+fmt.Sprint(a[k]))
				}
				if same {
					return i, fmt.Sprintf("Duplicate value: the same key (%s) as item %d", strings.Join(desc, ", "), j)
				}
			}
		}
	}
	return 0, ""
}

// normal makes numbers comparable whatever their decoding (1 and 1.0).
func normal(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case nil:
		return nil
	}
	return v
}

func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func describe(errs field.ErrorList, r Rule) string {
	if len(errs) == 0 {
		return ""
	}
	var parts []string
	for _, e := range errs {
		d := e.Detail
		if d == "" {
			d = string(e.Type)
		} else if e.Type == field.ErrorTypeTooLong || e.Type == field.ErrorTypeTooMany {
			d = e.Type.String() + ": " + d
		}
		parts = append(parts, d)
	}
	if r.Rule != "format" {
		return strings.Join(parts, "; ")
	}
	var short []string
	for _, p := range parts {
		if len(p) <= 100 && !strings.Contains(p, "regex used for validation") {
			short = append(short, p)
		}
	}
	if len(short) == 0 {
		return formatNames[r.Arg]
	}
	return formatNames[r.Arg] + " (here: " + strings.Join(short, "; ") + ")"
}

type formatFunc func(context.Context, operation.Operation, *field.Path, *string, *string) field.ErrorList

// formats are the runtime checks of +k8s:format, the API server's own.
var formats = map[string]formatFunc{
	"k8s-short-name":                    validate.ShortName[string],
	"k8s-long-name":                     validate.LongName[string],
	"k8s-label-key":                     validate.LabelKey[string],
	"k8s-prefixed-label-key":            validate.PrefixedLabelKey[string],
	"k8s-long-name-caseless":            validate.LongNameCaseless[string],
	"k8s-label-value":                   validate.LabelValue[string],
	"k8s-path-segment-name":             validate.PathSegmentName[string],
	"k8s-uuid":                          validate.UUID[string],
	"k8s-resource-pool-name":            validate.ResourcePoolName[string],
	"k8s-extended-resource-name":        validate.ExtendedResourceName[string],
	"k8s-resource-fully-qualified-name": validate.ResourceFullyQualifiedName[string],
}

// formatNames say in a line what each format accepts (the runtime check
// decides; its own reasons follow when they are short).
var formatNames = map[string]string{
	"k8s-short-name":                    "must be a DNS label (k8s-short-name): lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
	"k8s-long-name":                     "must be a DNS subdomain (k8s-long-name): DNS labels (lowercase letters, digits and '-') joined by '.', at most 253 characters",
	"k8s-long-name-caseless":            "must be a DNS subdomain in any case (k8s-long-name-caseless): labels of letters, digits and '-' joined by '.', at most 253 characters",
	"k8s-label-key":                     "must be a label key (k8s-label-key): an optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
	"k8s-prefixed-label-key":            "must be a label key with a prefix (k8s-prefixed-label-key): a DNS subdomain and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
	"k8s-label-value":                   "must be a label value (k8s-label-value): empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
	"k8s-path-segment-name":             "must be a path segment name (k8s-path-segment-name): not '.' or '..', without '/' or '%'",
	"k8s-uuid":                          "must be a UUID (k8s-uuid): lowercase hexadecimal digits in groups of 8-4-4-4-12 joined by '-'",
	"k8s-resource-pool-name":            "must be a resource pool name (k8s-resource-pool-name): DNS subdomains joined by '/', at most 253 characters",
	"k8s-extended-resource-name":        "must be an extended resource name (k8s-extended-resource-name): a domain-prefixed name such as example.com/gpu, outside kubernetes.io, not starting with 'requests.'",
	"k8s-resource-fully-qualified-name": "must be a fully qualified name (k8s-resource-fully-qualified-name): a DNS subdomain of at most 63 characters, '/', and a C identifier of at most 32 characters",
}

// Formats lists the formats the checker knows (the generator keeps only
// rules of these).
func Formats() []string {
	out := make([]string, 0, len(formats))
	for f := range formats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func splitPath(p string) []string {
	var segs []string
	for _, part := range strings.Split(p, ".") {
		for {
			i := strings.IndexAny(part, "[{")
			if i < 0 {
				break
			}
			if i > 0 {
				segs = append(segs, part[:i])
			}
			segs = append(segs, part[i:i+3])
			part = part[i+3:]
		}
		if part != "" {
			segs = append(segs, part)
		}
	}
	return segs
}

// walk calls fn with every value reached by following segs from v.
func walk(v any, segs []string, p fieldpath.Path, fn func(fieldpath.Path, any)) {
	if len(segs) == 0 {
		fn(p, v)
		return
	}
	switch segs[0] {
	case "[*]":
		l, _ := v.([]any)
		for i, x := range l {
			walk(x, segs[1:], p.Child(fieldpath.Index(i)), fn)
		}
	case "{*}":
		m, _ := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(m[k], segs[1:], p.Child(fieldpath.Field(k)), fn)
		}
	default:
		m, _ := v.(map[string]any)
		x, ok := m[segs[0]]
		if !ok || x == nil {
			return
		}
		walk(x, segs[1:], p.Child(fieldpath.Field(segs[0])), fn)
	}
}

// each calls fn with every element of a list or value of a map.
func each(v any, p fieldpath.Path, fn func(fieldpath.Path, any)) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			fn(p.Child(fieldpath.Index(i)), e)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fn(p.Child(fieldpath.Field(k)), x[k])
		}
	}
}
