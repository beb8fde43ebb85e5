// This file decodes a step's input as function-go-templating does: into its
// Go type, refusing unknown fields and values of the wrong type.

package gotemplating

import (
	"fmt"
	"sort"
)

// shape is a Go type of the function's input (input/v1beta1/input.go) as
// github.com/go-json-experiment/json decodes into it, which
// function-sdk-go's request.GetInput uses with RejectUnknownMembers: names
// match exactly (case-sensitive), null leaves the zero value.
type shape struct {
	// typ is the Go type's name as the decoder's errors print it.
	typ  string
	kind shapeKind
	// fields of an object; elem of a list or a map.
	fields map[string]*shape
	elem   *shape
}

type shapeKind int

const (
	shapeAny shapeKind = iota
	shapeString
	shapeNumber
	shapeObject
	shapeList
	shapeMap
)

var (
	goString      = &shape{typ: "string", kind: shapeString}
	goStringList  = &shape{typ: "[]string", kind: shapeList, elem: goString}
	goStringMap   = &shape{typ: "map[string]string", kind: shapeMap, elem: goString}
	goInt64       = &shape{typ: "int64", kind: shapeNumber}
	goAny         = &shape{kind: shapeAny}
	goObjectMetaV = &shape{typ: "v1.ObjectMeta", kind: shapeObject, fields: map[string]*shape{
		"name": goString, "generateName": goString, "namespace": goString, "selfLink": goString,
		"uid": {typ: "types.UID", kind: shapeString}, "resourceVersion": goString,
		"generation": goInt64, "creationTimestamp": goAny, "deletionTimestamp": goAny,
		"deletionGracePeriodSeconds": goInt64, "labels": goStringMap, "annotations": goStringMap,
		"ownerReferences": goAny, "finalizers": goStringList, "managedFields": goAny,
	}}
)

// inputShape is the GoTemplate type of a release: v0.12.0 added
// inline.templates and options.
func inputShape(b behaviour) *shape {
	inline := map[string]*shape{"template": goString}
	top := map[string]*shape{
		"apiVersion": goString, "kind": goString, "metadata": goObjectMetaV,
		"delims":      {typ: "v1beta1.Delims", kind: shapeObject, fields: map[string]*shape{"left": goString, "right": goString}},
		"source":      {typ: "v1beta1.TemplateSource", kind: shapeString},
		"inline":      {typ: "v1beta1.TemplateSourceInline", kind: shapeObject, fields: inline},
		"fileSystem":  {typ: "v1beta1.TemplateSourceFileSystem", kind: shapeObject, fields: map[string]*shape{"dirPath": goString}},
		"environment": {typ: "v1beta1.TemplateSourceEnvironment", kind: shapeObject, fields: map[string]*shape{"key": goString}},
	}
	if b.v012 {
		inline["templates"] = goStringList
		top["options"] = goStringList
	}
	return &shape{typ: "v1beta1.GoTemplate", kind: shapeObject, fields: top}
}

// decodeInput says why the release cannot decode in, worded as the
// function's Fatal result words it; "" when it can. Members are visited
// in the order protojson writes them (sorted), the first problem wins, as
// the decoder stops at it.
func decodeInput(in map[string]any, b behaviour) string {
	if err := decodeInto(in, inputShape(b)); err != "" {
		return "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.GoTemplate from *v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.GoTemplate: json: " + err
	}
	return ""
}

func decodeInto(v any, s *shape) string {
	if v == nil || s.kind == shapeAny {
		return ""
	}
	wrong := func() string {
		return fmt.Sprintf("cannot unmarshal JSON %s into Go value of type %s", jsonKindOf(v), s.typ)
	}
	switch s.kind {
	case shapeString:
		if _, ok := v.(string); !ok {
			return wrong()
		}
	case shapeNumber:
		switch v.(type) {
		case int64, float64, int:
		default:
			return wrong()
		}
	case shapeList:
		l, ok := v.([]any)
		if !ok {
			return wrong()
		}
		for _, e := range l {
			if err := decodeInto(e, s.elem); err != "" {
				return err
			}
		}
	case shapeMap, shapeObject:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fs := s.elem
			if s.kind == shapeObject {
				fs = s.fields[k]
				if fs == nil {
					return fmt.Sprintf("cannot unmarshal Go value of type %s: unknown name %q", s.typ, k)
				}
			}
			if err := decodeInto(m[k], fs); err != "" {
				return err
			}
		}
	}
	return ""
}

// jsonKindOf names a JSON value's kind as go-json-experiment does.
func jsonKindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}
