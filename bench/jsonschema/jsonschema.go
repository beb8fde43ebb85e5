// Package jsonschema converts CRDs to the JSON Schema files kubeconform
// reads (draft 4, its default), one file per served version, laid out as
// {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json (kind lower
// case, as kubeconform fills the template). yaml-language-server reads the
// same files through yaml.schemas.
//
// It replaces kubeconform's openapi2jsonschema.py, which walks every map
// of the CRD as if it were a schema: a field named `properties` (or
// `format`) is taken for the keyword and the output silently stops
// checking what it should. This converter walks the schema structurally:
// only property values, items, additionalProperties and the junctors
// (allOf/anyOf/oneOf/not) are schemas.
//
// Strictness, chosen to check what the API server with kubectl's default
// strict field validation checks, as closely as JSON Schema can:
//   - every object schema with properties gets additionalProperties: false
//     (unknown fields are errors), the root included (the script's
//     DENY_ROOT_ADDITIONAL_PROPERTIES), unless it has
//     x-kubernetes-preserve-unknown-fields or its own additionalProperties;
//     never inside allOf/anyOf/oneOf/not, whose sub-schemas list only some
//     properties;
//   - nullable: true adds "null" to the type; x-kubernetes-int-or-string
//     becomes anyOf integer/string;
//   - CEL rules (x-kubernetes-validations), list-map keys, defaulting and
//     ObjectMeta rules have no JSON Schema equivalent and are left out:
//     kubeconform checks less than crd-lsp.
//
// A bench tool, not shipped.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Convert returns one JSON Schema per served version of the CRD, keyed by
// its path in kubeconform's layout.
func Convert(crd *apiextv1.CustomResourceDefinition) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		s := Schema(v.Schema.OpenAPIV3Schema, false)
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
		}
		out[Path(crd.Spec.Group, crd.Spec.Names.Kind, v.Name)] = append(b, '\n')
	}
	return out, nil
}

// Path is where kubeconform's template
// {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json looks for a kind.
func Path(group, kind, version string) string {
	return path.Join(group, strings.ToLower(kind)+"_"+version+".json")
}

// Schema converts one OpenAPI v3 schema of a CRD. inJunctor is true below
// allOf/anyOf/oneOf/not, where objects are not closed.
func Schema(s *apiextv1.JSONSchemaProps, inJunctor bool) map[string]any {
	out := map[string]any{}
	if s.Description != "" {
		out["description"] = s.Description
	}
	switch {
	case s.XIntOrString:
		alts := []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		if s.Nullable {
			alts = append(alts, map[string]any{"type": "null"})
		}
		out["anyOf"] = alts
	case s.Type != "" && s.Nullable:
		out["type"] = []string{s.Type, "null"}
	case s.Type != "":
		out["type"] = s.Type
	}
	if s.Format != "" && s.Format != "int-or-string" {
		out["format"] = s.Format
	}
	if len(s.Properties) > 0 {
		props := map[string]any{}
		for name, p := range s.Properties {
			props[name] = Schema(&p, inJunctor)
		}
		out["properties"] = props
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		out["additionalProperties"] = Schema(s.AdditionalProperties.Schema, inJunctor)
	case s.AdditionalProperties != nil:
		out["additionalProperties"] = s.AdditionalProperties.Allows
	case len(s.Properties) > 0 && !preserve && !inJunctor:
		out["additionalProperties"] = false
	}
	if s.Items != nil && s.Items.Schema != nil {
		out["items"] = Schema(s.Items.Schema, inJunctor)
	}
	if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	if len(s.Enum) > 0 {
		vals := make([]any, 0, len(s.Enum))
		for _, e := range s.Enum {
			var v any
			if err := json.Unmarshal(e.Raw, &v); err == nil {
				vals = append(vals, v)
			}
		}
		out["enum"] = vals
	}
	num := func(key string, p *float64) {
		if p != nil {
			out[key] = *p
		}
	}
	num("minimum", s.Minimum)
	num("maximum", s.Maximum)
	num("multipleOf", s.MultipleOf)
	if s.ExclusiveMinimum {
		out["exclusiveMinimum"] = true
	}
	if s.ExclusiveMaximum {
		out["exclusiveMaximum"] = true
	}
	count := func(key string, p *int64) {
		if p != nil {
			out[key] = *p
		}
	}
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	if s.Pattern != "" {
		out["pattern"] = s.Pattern
	}
	if s.UniqueItems {
		out["uniqueItems"] = true
	}
	junctor := func(key string, list []apiextv1.JSONSchemaProps) {
		if len(list) == 0 {
			return
		}
		subs := make([]any, 0, len(list))
		for i := range list {
			subs = append(subs, Schema(&list[i], true))
		}
		out[key] = subs
	}
	junctor("allOf", s.AllOf)
	junctor("anyOf", s.AnyOf)
	junctor("oneOf", s.OneOf)
	if s.Not != nil {
		out["not"] = Schema(s.Not, true)
	}
	return out
}
