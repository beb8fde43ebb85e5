// This file places oneOf/anyOf/allOf/not failures on the field they concern,
// naming the alternatives.

package schemas

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// compositeRE is kube-openapi's report of a failed oneOf, anyOf, allOf or
// not, made with a "<nil>" field: the path is quoted in the detail.
var compositeRE = regexp.MustCompile(`^"([^"]*)" must (validate one and only one schema \(oneOf\)|validate at least one schema \(anyOf\)|validate all the schemas \(allOf\)|not validate the schema \(not\))(?:\. Found (\d+) valid alternatives)?`)

// composite recognises that report: the path it names (with fe.Field's own
// prefix), which keyword failed, and how many alternatives matched.
func composite(fe *field.Error) (path, keyword string, found string, ok bool) {
	prefix, isNil := strings.CutSuffix(fe.Field, "<nil>")
	if !isNil && fe.Field != "" {
		return "", "", "", false
	}
	m := compositeRE.FindStringSubmatch(strings.TrimSpace(fe.Detail))
	if m == nil {
		return "", "", "", false
	}
	switch {
	case strings.Contains(m[2], "(oneOf)"):
		keyword = "oneOf"
	case strings.Contains(m[2], "(anyOf)"):
		keyword = "anyOf"
	case strings.Contains(m[2], "(allOf)"):
		keyword = "allOf"
	default:
		keyword = "not"
	}
	p := m[1]
	if p == "." {
		p = ""
	}
	return prefix + p, keyword, m[3], true
}

// compositeError places a oneOf/anyOf/allOf/not failure on the field it
// concerns, naming the alternatives.
func (r *resolver) compositeError(path, keyword, found string) Error {
	p := r.resolve(path)
	e := Error{Severity: severity.Error, Path: p, Code: "invalid"}
	var vv *structuralschema.ValueValidation
	if node, _ := structural.Walk(r.ss, p); node != nil {
		vv = node.ValueValidation
	}
	var alts []structuralschema.NestedValueValidation
	if vv != nil {
		switch keyword {
		case "oneOf":
			alts = vv.OneOf
		case "anyOf":
			alts = vv.AnyOf
		case "allOf":
			alts = vv.AllOf
		}
	}
	var names []string
	for _, a := range alts {
		names = append(names, describeAlternative(a))
	}
	list := ""
	if len(names) > 0 {
		list = ": " + strings.Join(names, "; or ")
	}
	switch keyword {
	case "oneOf":
		if found != "" && found != "0" {
			e.Message = fmt.Sprintf("must match exactly one of the alternatives (oneOf), and it matches %s%s", found, list)
		} else {
			e.Message = "must match exactly one of the alternatives (oneOf), and it matches none" + list
		}
	case "anyOf":
		e.Message = "must match at least one of the alternatives (anyOf), and it matches none" + list
	case "allOf":
		e.Message = "must match every one of the schemas (allOf)" + strings.ReplaceAll(list, "; or ", "; and ")
	default:
		e.Message = "must not match the schema under not"
		if vv != nil && vv.Not != nil {
			e.Message += ": " + describeAlternative(*vv.Not)
		}
	}
	if _, isObj := r.at(p).(map[string]any); isObj {
		e.OnKey = true
	}
	return e
}

// describeAlternative says in a few words what one alternative asks.
func describeAlternative(a structuralschema.NestedValueValidation) string {
	var parts []string
	v := a.ValueValidation
	if len(v.Required) > 0 {
		parts = append(parts, "has "+strings.Join(v.Required, ", "))
	}
	if len(a.Properties) > 0 {
		var props []string
		for _, k := range sortedKeys(a.Properties) {
			props = append(props, k+" "+describeAlternative(a.Properties[k]))
		}
		parts = append(parts, strings.Join(props, ", "))
	}
	if a.ForbiddenGenerics.Type != "" {
		parts = append(parts, "is of type "+a.ForbiddenGenerics.Type)
	}
	if v.Pattern != "" {
		parts = append(parts, fmt.Sprintf("matches %q", v.Pattern))
	}
	if v.Format != "" {
		parts = append(parts, "has format "+v.Format)
	}
	if len(v.Enum) > 0 {
		var vals []string
		for _, x := range v.Enum {
			vals = append(vals, valueString(x.Object))
		}
		parts = append(parts, "is one of "+strings.Join(vals, ", "))
	}
	if v.Minimum != nil {
		parts = append(parts, fmt.Sprintf("is at least %v", *v.Minimum))
	}
	if v.Maximum != nil {
		parts = append(parts, fmt.Sprintf("is at most %v", *v.Maximum))
	}
	if v.MinLength != nil {
		parts = append(parts, fmt.Sprintf("has at least %d characters", *v.MinLength))
	}
	if v.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("has at most %d characters", *v.MaxLength))
	}
	if v.MinItems != nil {
		parts = append(parts, fmt.Sprintf("has at least %d items", *v.MinItems))
	}
	if v.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("has at most %d items", *v.MaxItems))
	}
	if v.MinProperties != nil {
		parts = append(parts, fmt.Sprintf("has at least %d fields", *v.MinProperties))
	}
	if v.MaxProperties != nil {
		parts = append(parts, fmt.Sprintf("has at most %d fields", *v.MaxProperties))
	}
	if len(parts) == 0 {
		return "(anything)"
	}
	return strings.Join(parts, " and ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
