package generate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A small OpenAPI v3 document covering the conversion rules.
const testDoc = `{
  "paths": {
    "/apis/example.io/v1/namespaces/{namespace}/widgets": {"post": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Widget"}}},
    "/apis/example.io/v1/namespaces/{namespace}/widgets/{name}": {"get": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Widget"}}},
    "/apis/example.io/v1/namespaces/{namespace}/widgets/{name}/status": {"get": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Widget"}}},
    "/apis/example.io/v1/widgets": {"get": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Widget"}}},
    "/apis/example.io/v1/watch/gadgets": {"get": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Gadget"}}},
    "/apis/example.io/v1/gadgets": {"get": {"x-kubernetes-group-version-kind": {"group": "example.io", "version": "v1", "kind": "Gadget"}}}
  },
  "components": {"schemas": {
    "Widget": {
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "example.io", "version": "v1", "kind": "Widget"}],
      "properties": {
        "metadata": {"allOf": [{"$ref": "#/components/schemas/ObjectMeta"}], "default": {}},
        "spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}], "default": {}, "description": "The spec."}
      }
    },
    "WidgetList": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.io", "version": "v1", "kind": "WidgetList"}]},
    "Gadget": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.io", "version": "v1", "kind": "Gadget"}], "properties": {"metadata": {"$ref": "#/components/schemas/ObjectMeta"}}},
    "Other": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "other.io", "version": "v1", "kind": "Other"}]},
    "DeleteOptions": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "DeleteOptions"}, {"group": "example.io", "version": "v1", "kind": "DeleteOptions"}]},
    "ObjectMeta": {"type": "object", "properties": {"name": {"type": "string", "default": ""}}},
    "Spec": {
      "description": "Spec of a widget.",
      "type": "object",
      "required": ["node"],
      "properties": {
        "node": {"allOf": [{"$ref": "#/components/schemas/Node"}], "default": {}},
        "port": {"$ref": "#/components/schemas/IntOrString"},
        "size": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"},
        "count": {"type": "integer", "format": "int32", "default": 0},
        "ratio": {"type": "number", "format": "float32"},
        "blob": {"type": "string", "format": "byte", "x-kubernetes-list-type": "atomic"},
        "when": {"type": "string", "format": "date-time"},
        "mode": {"type": "string", "default": "Fast"},
        "raw": {"type": "object"},
        "any": {"description": "anything"},
        "items": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "protocol"],
          "x-kubernetes-patch-merge-key": "name",
          "x-kubernetes-patch-strategy": "merge",
          "items": {"type": "object", "properties": {"name": {"type": "string", "default": ""}, "protocol": {"type": "string"}, "note": {"type": "string", "default": ""}}}
        }
      }
    },
    "Node": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Node"}, "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}}}},
    "IntOrString": {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"description": "Quantity.", "oneOf": [{"type": "string"}, {"type": "number"}]}
  }}
}`

func TestKubernetesCRDs(t *testing.T) {
	crds, err := KubernetesCRDs([]byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range crds {
		kinds = append(kinds, c.Kind)
	}
	if !reflect.DeepEqual(kinds, []string{"Gadget", "Widget"}) {
		t.Fatalf("kinds = %v, want [Gadget Widget]", kinds)
	}
	got := func(c KindCRD) map[string]any {
		b, err := json.Marshal(c.CRD)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const gadget = `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	  "metadata": {"name": "gadgets.example.io"},
	  "spec": {"group": "example.io", "scope": "Cluster",
	    "names": {"kind": "Gadget", "listKind": "GadgetList", "plural": "gadgets", "singular": "gadget"},
	    "versions": [{"name": "v1", "served": true, "storage": true,
	      "schema": {"openAPIV3Schema": {"type": "object", "properties": {"metadata": {"type": "object"}}}}}]}}`
	widget := `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	  "metadata": {"name": "widgets.example.io"},
	  "spec": {"group": "example.io", "scope": "Namespaced",
	    "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
	    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
	      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
	        "metadata": {"type": "object"},
	        "spec": {"description": "The spec.", "type": "object", "required": ["node"], "properties": {
	          "node": {"type": "object", "properties": {
	            "child": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
	            "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
	          "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
	          "size": {"description": "Quantity.", "x-kubernetes-preserve-unknown-fields": true, "pattern": "` + jsonQuantityPattern + `"},
	          "count": {"type": "integer", "format": "int32"},
	          "ratio": {"type": "number"},
	          "blob": {"type": "string", "format": "byte"},
	          "when": {"type": "string", "format": "date-time"},
	          "mode": {"type": "string", "default": "Fast"},
	          "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
	          "any": {"description": "anything", "x-kubernetes-preserve-unknown-fields": true},
	          "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"],
	            "items": {"type": "object", "properties": {
	              "name": {"type": "string", "default": ""},
	              "protocol": {"type": "string", "default": ""},
	              "note": {"type": "string"}}}}}}}}}}]}}`
	for i, want := range []string{gadget, widget} {
		var w map[string]any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		if g := got(crds[i]); !reflect.DeepEqual(g, w) {
			gb, _ := json.MarshalIndent(g, "", "  ")
			t.Errorf("%s:\n%s", crds[i].Kind, gb)
		}
	}
}

var jsonQuantityPattern = func() string {
	b, _ := json.Marshal(quantityPattern)
	return string(b[1 : len(b)-1])
}()

func TestVerbatim(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{in: "---\na: 1\n", want: "a: 1\n"},
		{in: "a: 1", want: "a: 1\n"},
		{in: "a: 1\n---\nb: 2\n", err: true},
		{in: "---\n---\nb: 2\n", err: true},
		{in: "a: |\n  x\n---\n# source: y\n", err: true},
		{in: "", err: true},
	} {
		got, err := verbatim([]byte(c.in))
		if (err != nil) != c.err || (err == nil && string(got) != c.want) {
			t.Errorf("verbatim(%q) = %q, %v", c.in, got, err)
		}
	}
}
