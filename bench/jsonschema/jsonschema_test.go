package jsonschema

import (
	"encoding/json"
	"reflect"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// A CRD with a field named `properties` (and one named `format`), the
// shape openapi2jsonschema.py mistakes for keywords.
const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [properties]
            properties:
              properties:
                type: object
                properties:
                  format: {type: string, enum: [a, b]}
              port:
                x-kubernetes-int-or-string: true
              note: {type: string, nullable: true}
              free:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known: {type: integer, minimum: 1}
              labels:
                type: object
                additionalProperties: {type: string}
            anyOf:
            - required: [port]
            - properties:
                note: {type: string}
              required: [note]
`

func convert(t *testing.T) map[string]any {
	t.Helper()
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(crdYAML), &crd); err != nil {
		t.Fatal(err)
	}
	files, err := Convert(&crd)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("got files %v, want only the served version", keys(files))
	}
	b, ok := files["example.org/widget_v1.json"]
	if !ok {
		t.Fatalf("got files %v, want example.org/widget_v1.json (kubeconform's lower-case kind)", keys(files))
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func at(t *testing.T, s any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("%v: %v is not an object", path, s)
		}
		s, ok = m[p]
		if !ok {
			t.Fatalf("%v: no %q in %v", path, p, m)
		}
	}
	return s
}

func TestFieldNamedProperties(t *testing.T) {
	s := convert(t)
	spec := at(t, s, "properties", "spec")
	// The field `properties` is a property with its own schema...
	field := at(t, spec, "properties", "properties").(map[string]any)
	if field["type"] != "object" || field["additionalProperties"] != false {
		t.Errorf("field `properties` = %v, want a closed object schema", field)
	}
	// ...whose field `format` is a string enum, not a format keyword.
	want := map[string]any{"type": "string", "enum": []any{"a", "b"}}
	if got := at(t, field, "properties", "format"); !reflect.DeepEqual(got, want) {
		t.Errorf("field `format` = %v, want %v", got, want)
	}
	// The properties map itself gains no keyword.
	if _, bad := at(t, spec, "properties").(map[string]any)["additionalProperties"]; bad {
		t.Error("additionalProperties was added inside the properties map, as a field")
	}
	if got := at(t, spec, "required"); !reflect.DeepEqual(got, []any{"properties"}) {
		t.Errorf("required = %v", got)
	}
}

func TestStrictness(t *testing.T) {
	s := convert(t)
	if s["additionalProperties"] != false {
		t.Error("root is not closed: unknown top-level fields would pass")
	}
	if _, ok := at(t, s, "properties", "metadata").(map[string]any)["additionalProperties"]; ok {
		t.Error("metadata (no properties in the CRD) was closed")
	}
	spec := at(t, s, "properties", "spec")
	if at(t, spec, "additionalProperties") != false {
		t.Error("spec is not closed")
	}
	free := at(t, spec, "properties", "free").(map[string]any)
	if _, ok := free["additionalProperties"]; ok {
		t.Error("x-kubernetes-preserve-unknown-fields object was closed")
	}
	if got := at(t, spec, "properties", "labels", "additionalProperties"); !reflect.DeepEqual(got, map[string]any{"type": "string"}) {
		t.Errorf("map values = %v", got)
	}
	// anyOf sub-schemas list only some properties: closing them would
	// reject valid objects.
	for _, sub := range at(t, spec, "anyOf").([]any) {
		if _, ok := sub.(map[string]any)["additionalProperties"]; ok {
			t.Errorf("anyOf branch %v was closed", sub)
		}
	}
	wantPort := []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	if got := at(t, spec, "properties", "port", "anyOf"); !reflect.DeepEqual(got, wantPort) {
		t.Errorf("int-or-string = %v, want %v", got, wantPort)
	}
	if got := at(t, spec, "properties", "note", "type"); !reflect.DeepEqual(got, []any{"string", "null"}) {
		t.Errorf("nullable string type = %v", got)
	}
	if got := at(t, spec, "properties", "free", "properties", "known", "minimum"); got != 1.0 {
		t.Errorf("minimum = %v", got)
	}
}
