package structural

import (
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

func node(typ string) structuralschema.Structural {
	return structuralschema.Structural{Generic: structuralschema.Generic{Type: typ}}
}

func TestWalk(t *testing.T) {
	str := node("string")
	items := node("object")
	items.Properties = map[string]structuralschema.Structural{"port": node("integer")}
	list := node("array")
	list.Items = &items
	labels := node("object")
	labels.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &str}
	closed := node("object")
	closed.AdditionalProperties = &structuralschema.StructuralOrBool{Bool: false}
	open := node("object")
	open.AdditionalProperties = &structuralschema.StructuralOrBool{Bool: true}
	spec := node("object")
	spec.Properties = map[string]structuralschema.Structural{"ports": list, "labels": labels, "closed": closed, "open": open}
	root := node("object")
	root.Properties = map[string]structuralschema.Structural{"spec": spec}

	for _, tc := range []struct {
		path    string
		want    string // the node's type; "" for none
		reached bool
	}{
		{"spec.ports[0].port", "integer", true},
		{"spec.ports[*].port", "integer", true},
		{"spec.labels[a.b/c]", "string", true},
		{"spec.ports[0].nope", "", false},
		{"spec.closed.x", "", false},
		{"spec.open.x", "", false}, // allowed, but the schema says nothing
		{"spec.nope", "", false},
	} {
		p, err := fieldpath.Parse(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		n, parent := Walk(&root, p)
		if (n != nil) != tc.reached || (n != nil && n.Type != tc.want) {
			t.Errorf("Walk(%s) = %v, want type %q reached=%v", tc.path, n, tc.want, tc.reached)
		}
		if n != nil && parent == nil {
			t.Errorf("Walk(%s) gave no parent", tc.path)
		}
	}
	if _, ok := Step(&open, fieldpath.Field("x")); !ok {
		t.Error("additionalProperties: true allows any field")
	}
	if _, ok := Step(&closed, fieldpath.Field("x")); ok {
		t.Error("additionalProperties: false allows no field")
	}
}

func TestMetaNode(t *testing.T) {
	for path, want := range map[string]string{
		"name": "string", "generation": "integer", "labels[app]": "string",
		"labels": "", "ownerReferences[0].uid": "", "nope": "",
	} {
		p, err := fieldpath.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if n := MetaNode(p); n != nil {
			got = n.Type
		}
		if got != want {
			t.Errorf("MetaNode(%s) = %q, want %q", path, got, want)
		}
	}
	if _, ok := MetaFieldType("creationTimestamp"); !ok {
		t.Error("creationTimestamp is object metadata")
	}
}
