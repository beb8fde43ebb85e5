// This file finds what an XRD's schema writes that is not a JSON schema
// keyword: Crossplane drops it when it builds the composite's CRD, so the
// constraint the author meant is never enforced.

package schemas

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// Crossplane decodes each version's openAPIV3Schema of an XRD into the
// API server's JSONSchemaProps with encoding/json (crossplane v2.2.1,
// internal/xcrd/crd.go parseSchema; v1 the same), which ignores members
// it does not know: a misspelt keyword (minItem, enun, requried) is
// dropped without a word, and the derived CRD lacks the constraint. The
// XRD itself is accepted (its schema is free-form to the API server).

var (
	keywordsOnce sync.Once
	keywords     []string // JSONSchemaProps' JSON members
	ruleKeys     []string // ValidationRule's
)

func jsonMembers(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// xrdSchemaKeywords reports every member of an XRD's version schemas
// that JSONSchemaProps (or a validation rule) does not have.
func xrdSchemaKeywords(obj map[string]any) []Error {
	keywordsOnce.Do(func() {
		keywords = jsonMembers(reflect.TypeOf(apiextensionsv1.JSONSchemaProps{}))
		ruleKeys = jsonMembers(reflect.TypeOf(apiextensionsv1.ValidationRule{}))
	})
	spec, _ := obj["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	var out []Error
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		sch, _ := vm["schema"].(map[string]any)
		root, ok := sch["openAPIV3Schema"].(map[string]any)
		if !ok {
			continue
		}
		p := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("versions"), fieldpath.Index(i), fieldpath.Field("schema"), fieldpath.Field("openAPIV3Schema")}
		walkKeywords(root, p, 0, &out)
	}
	return out
}

func walkKeywords(s map[string]any, at fieldpath.Path, depth int, out *[]Error) {
	if depth > 64 || len(*out) > 100 {
		return
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s[k]
		kp := at.Child(fieldpath.Field(k))
		switch k {
		case "properties", "patternProperties", "definitions", "dependencies":
			m, _ := v.(map[string]any)
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if sub, ok := m[n].(map[string]any); ok {
					walkKeywords(sub, kp.Child(fieldpath.Field(n)), depth+1, out)
				}
			}
		case "items", "additionalProperties", "additionalItems", "not":
			switch x := v.(type) {
			case map[string]any:
				walkKeywords(x, kp, depth+1, out)
			case []any:
				for j, it := range x {
					if sub, ok := it.(map[string]any); ok {
						walkKeywords(sub, kp.Child(fieldpath.Index(j)), depth+1, out)
					}
				}
			}
		case "allOf", "anyOf", "oneOf":
			l, _ := v.([]any)
			for j, it := range l {
				if sub, ok := it.(map[string]any); ok {
					walkKeywords(sub, kp.Child(fieldpath.Index(j)), depth+1, out)
				}
			}
		case "x-kubernetes-validations":
			l, _ := v.([]any)
			for j, it := range l {
				rm, _ := it.(map[string]any)
				for rk := range rm {
					if !contains(ruleKeys, rk) {
						*out = append(*out, unknownKeyword(kp.Child(fieldpath.Index(j), fieldpath.Field(rk)), rk, ruleKeys, "validation rule member"))
					}
				}
			}
		default:
			if !contains(keywords, k) {
				e := unknownKeyword(kp, k, keywords, "JSON schema keyword")
				if schemaLike(v) {
					// A property written where its parent's keywords are:
					// "properties:" is missing above it.
					e.Suggestion = ""
					e.Message = fmt.Sprintf("%q is not a JSON schema keyword: it reads like a property written without \"properties:\" above it; Crossplane drops it when it builds the composite resource's CRD from the XRD (it decodes the schema with encoding/json, which ignores members it does not know), so the field is not declared and the API server prunes it", k)
				}
				*out = append(*out, e)
			}
		}
	}
}

// schemaLike says whether v looks like a schema of its own (an object
// with a type, description or properties).
func schemaLike(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"type", "description", "properties", "items"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func unknownKeyword(p fieldpath.Path, k string, known []string, what string) Error {
	e := Error{Path: p, OnKey: true, Severity: severity.Warning, Code: "xrd-keyword", Field: k,
		Message: fmt.Sprintf("%q is not a %s", k, what)}
	if best, ok := suggest.Closest(k, known); ok {
		e.Suggestion = best
		e.Message += fmt.Sprintf(" (did you mean %q?)", best)
	}
	e.Message += ": Crossplane drops it when it builds the composite resource's CRD from the XRD (it decodes the schema with encoding/json, which ignores members it does not know), so it constrains nothing"
	return e
}

func contains(vs []string, s string) bool {
	i := sort.SearchStrings(vs, s)
	return i < len(vs) && vs[i] == s
}
