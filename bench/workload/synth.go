package workload

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// requiredParam finds the parameters upjet makes required through CEL on
// spec: `!('*' in self.managementPolicies || ...) || has(self.forProvider.X)
// || (has(self.initProvider) && has(self.initProvider.X))`. With the default
// managementPolicies ['*'] the API server demands spec.forProvider.X.
var requiredParam = regexp.MustCompile(`has\(self\.forProvider\.([A-Za-z0-9_]+)\)`)

// RequiredParameters lists the spec.forProvider fields the spec's CEL rules
// require, sorted.
func RequiredParameters(spec *apiextv1.JSONSchemaProps) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range spec.XValidations {
		if !strings.Contains(r.Rule, "managementPolicies") {
			continue
		}
		for _, m := range requiredParam.FindAllStringSubmatch(r.Rule, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

// Object synthesises a valid object of the kind: metadata (name, a label,
// the namespace for namespaced kinds), every field the schema requires,
// the upjet parameters CEL requires, and tags where forProvider has them.
// Values satisfy type, enum, pattern, length, item and range constraints;
// an unsatisfiable constraint is an error (the kind is then not used).
// index varies a label and a tag so that documents are not identical.
func (k Kind) Object(name string, index int) (map[string]any, error) {
	meta := map[string]any{
		"name":   name,
		"labels": map[string]any{"bench.crd-lsp.dev/index": strconv.Itoa(index)},
	}
	if k.Namespaced {
		meta["namespace"] = "bench"
	}
	obj := map[string]any{"apiVersion": k.APIVersion(), "kind": k.Kind, "metadata": meta}
	spec, ok := k.Schema.Properties["spec"]
	if !ok {
		return nil, fmt.Errorf("%s: no spec in the schema", k.Kind)
	}
	sv, err := synthObject("spec", &spec, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Kind, err)
	}
	fp, ok := spec.Properties["forProvider"]
	if !ok {
		return nil, fmt.Errorf("%s: no spec.forProvider", k.Kind)
	}
	forProvider, _ := sv["forProvider"].(map[string]any)
	if forProvider == nil {
		forProvider = map[string]any{}
		sv["forProvider"] = forProvider
	}
	for _, p := range RequiredParameters(&spec) {
		ps, ok := fp.Properties[p]
		if !ok {
			return nil, fmt.Errorf("%s: CEL requires forProvider.%s, which the schema lacks", k.Kind, p)
		}
		if _, done := forProvider[p]; done {
			continue
		}
		v, err := synth(p, &ps, 1)
		if err != nil {
			return nil, fmt.Errorf("%s: forProvider.%s: %w", k.Kind, p, err)
		}
		forProvider[p] = v
	}
	if t, ok := fp.Properties["tags"]; ok && t.Type == "object" && t.AdditionalProperties != nil && t.AdditionalProperties.Schema != nil && t.AdditionalProperties.Schema.Type == "string" {
		forProvider["tags"] = map[string]any{"bench": "crd-lsp", "index": strconv.Itoa(index)}
	}
	obj["spec"] = sv
	return obj, nil
}

// maxDepth bounds recursion through required nested objects.
const maxDepth = 12

func synthObject(name string, s *apiextv1.JSONSchemaProps, depth int) (map[string]any, error) {
	v, err := synth(name, s, depth)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", name)
	}
	return m, nil
}

// synth returns a value of the schema, named name for value heuristics.
func synth(name string, s *apiextv1.JSONSchemaProps, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: required fields nest deeper than %d", name, maxDepth)
	}
	if len(s.Enum) > 0 {
		var v any
		if err := json.Unmarshal(s.Enum[0].Raw, &v); err != nil {
			return nil, fmt.Errorf("%s: enum: %w", name, err)
		}
		return v, nil
	}
	if s.XIntOrString {
		return "1", nil
	}
	switch s.Type {
	case "string":
		return synthString(name, s)
	case "integer", "number":
		n := int64(1)
		if s.Minimum != nil {
			n = int64(*s.Minimum)
			if s.ExclusiveMinimum || float64(n) < *s.Minimum {
				n++
			}
		}
		if s.Maximum != nil && float64(n) > *s.Maximum {
			return nil, fmt.Errorf("%s: no integer in [%v, %v]", name, *s.Minimum, *s.Maximum)
		}
		return n, nil
	case "boolean":
		return false, nil
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			return []any{}, nil
		}
		n := 1
		if s.MinItems != nil && int(*s.MinItems) > n {
			n = int(*s.MinItems)
		}
		if s.MaxItems != nil && int(*s.MaxItems) < n {
			n = int(*s.MaxItems)
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			v, err := synth(name, s.Items.Schema, depth+1)
			if err != nil {
				return nil, err
			}
			if s.Items.Schema.Type == "string" && n > 1 {
				v = fmt.Sprintf("%v-%d", v, i) // list-set items must differ
			}
			out = append(out, v)
		}
		return out, nil
	case "object", "":
		out := map[string]any{}
		for _, r := range s.Required {
			p, ok := s.Properties[r]
			if !ok {
				if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
					out[r] = "bench"
					continue
				}
				return nil, fmt.Errorf("%s: required %q has no schema", name, r)
			}
			v, err := synth(r, &p, depth+1)
			if err != nil {
				return nil, err
			}
			out[r] = v
		}
		if len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			v, err := synth(name, s.AdditionalProperties.Schema, depth+1)
			if err != nil {
				return nil, err
			}
			out["bench"] = v
		}
		if s.MinProperties != nil && int64(len(out)) < *s.MinProperties {
			return nil, fmt.Errorf("%s: minProperties %d not supported", name, *s.MinProperties)
		}
		if len(s.XValidations) > 0 && name != "spec" {
			return nil, fmt.Errorf("%s: CEL rules below spec are not synthesised", name)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: type %q not supported", name, s.Type)
}

// synthString tries plausible values for the field's name and returns the
// first that satisfies the string constraints.
func synthString(name string, s *apiextv1.JSONSchemaProps) (any, error) {
	lower := strings.ToLower(name)
	var cands []string
	switch {
	case lower == "region":
		cands = append(cands, "us-east-1")
	case strings.HasSuffix(lower, "arn"):
		cands = append(cands, "arn:aws:iam::123456789012:role/bench")
	case strings.Contains(lower, "cidr"):
		cands = append(cands, "10.0.0.0/16")
	case strings.Contains(lower, "availabilityzone"):
		cands = append(cands, "us-east-1a")
	case strings.Contains(lower, "json") || strings.Contains(lower, "policy"):
		cands = append(cands, `{"Version":"2012-10-17","Statement":[]}`)
	}
	switch s.Format {
	case "date-time":
		cands = append([]string{"2025-01-01T00:00:00Z"}, cands...)
	case "duration":
		cands = append([]string{"1h"}, cands...)
	case "byte":
		cands = append([]string{"YmVuY2g="}, cands...)
	case "int64", "int32":
		cands = append([]string{"1"}, cands...)
	}
	cands = append(cands, "bench-"+kebab(name), "bench", "1", "a", "A", "us-east-1")
	var re *regexp.Regexp
	if s.Pattern != "" {
		var err error
		if re, err = regexp.Compile(s.Pattern); err != nil {
			return nil, fmt.Errorf("%s: pattern %q: %w", name, s.Pattern, err)
		}
	}
	for _, c := range cands {
		if s.MinLength != nil && int64(len(c)) < *s.MinLength {
			continue
		}
		if s.MaxLength != nil && int64(len(c)) > *s.MaxLength {
			continue
		}
		if re != nil && !re.MatchString(c) {
			continue
		}
		return c, nil
	}
	return nil, fmt.Errorf("%s: no candidate value fits the string constraints", name)
}

func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
