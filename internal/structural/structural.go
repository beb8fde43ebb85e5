// Package structural is the one walk of a structural schema (the API
// server's, k8s.io/apiextensions-apiserver) along a field path, and the one
// list of the object metadata fields that CRD schemas leave out.
package structural

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Step follows one segment from cur: a property, the values of a map
// (additionalProperties), or the items of a list. ok is false when cur
// has no such property or items; node is nil with ok true when the schema
// allows the segment but says nothing of it (additionalProperties: true).
// Step does not judge types: callers that report "not an object" or "not
// a list" look at cur.Type themselves.
func Step(cur *structuralschema.Structural, seg fieldpath.Segment) (node *structuralschema.Structural, ok bool) {
	if cur == nil {
		return nil, false
	}
	switch seg.Kind {
	case fieldpath.KindIndex, fieldpath.KindWildcard:
		return cur.Items, cur.Items != nil
	case fieldpath.KindField:
		if prop, found := cur.Properties[seg.Field]; found {
			return &prop, true
		}
		if ap := cur.AdditionalProperties; ap != nil && (ap.Bool || ap.Structural != nil) {
			return ap.Structural, true
		}
	}
	return nil, false
}

// Walk follows p from s and returns the node at p with its parent (the
// object or list holding it); nil when the schema does not reach p.
func Walk(s *structuralschema.Structural, p fieldpath.Path) (node, parent *structuralschema.Structural) {
	cur := s
	for _, seg := range p {
		next, ok := Step(cur, seg)
		if !ok || next == nil {
			return nil, nil
		}
		parent, cur = cur, next
	}
	return cur, parent
}

// Opaque reports whether a schema says nothing about what lies below it:
// nil, x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string,
// or an untyped node without properties or items.
func Opaque(s *structuralschema.Structural) bool {
	return s == nil || s.XPreserveUnknownFields || s.XIntOrString || (s.Type == "" && s.Properties == nil && s.Items == nil)
}

// MetaField is one field of object metadata.
type MetaField struct {
	Name string
	// Type is "string", "integer", "array" or "map[string]string"
	// (labels and annotations).
	Type string
	// Common marks the fields Compositions commonly patch from or to
	// (what completion offers); the others are the API server's.
	Common bool
}

// ObjectMeta lists metadata's fields (ObjectMeta's JSON names), which
// CRD schemas leave as a bare object and the API server fills or checks.
var ObjectMeta = []MetaField{
	{"name", "string", true}, {"generateName", "string", true}, {"namespace", "string", true},
	{"labels", "map[string]string", true}, {"annotations", "map[string]string", true},
	{"finalizers", "array", false}, {"ownerReferences", "array", false}, {"uid", "string", true},
	{"resourceVersion", "string", false}, {"generation", "integer", false}, {"creationTimestamp", "string", false},
	{"deletionTimestamp", "string", false}, {"deletionGracePeriodSeconds", "integer", false},
	{"managedFields", "array", false}, {"selfLink", "string", false},
}

// MetaFieldType is the type of metadata.name and the like; ok is false
// for a name ObjectMeta does not have.
func MetaFieldType(name string) (typ string, ok bool) {
	for _, f := range ObjectMeta {
		if f.Name == name {
			return f.Type, true
		}
	}
	return "", false
}

var (
	stringNode = &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	intNode    = &structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
)

// MetaNode is a schema for the value at p inside metadata (p without the
// leading "metadata"): strings and integers for scalar fields, a string
// for a label's or an annotation's value; nil where metadata's shape is
// richer than a scalar (ownerReferences, managedFields, the maps
// themselves).
func MetaNode(p fieldpath.Path) *structuralschema.Structural {
	if len(p) == 0 || p[0].Kind != fieldpath.KindField {
		return nil
	}
	typ, ok := MetaFieldType(p[0].Field)
	switch {
	case !ok:
		return nil
	case len(p) == 1 && typ == "string":
		return stringNode
	case len(p) == 1 && typ == "integer":
		return intNode
	case len(p) == 2 && typ == "map[string]string":
		return stringNode
	}
	return nil
}
