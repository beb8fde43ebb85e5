// This file holds what a go-templating step's inline template reads of
// the composite resource to the composite's schema: a field the XRD does
// not define renders <no value> (or never takes its if branch), which
// nobody sees until the composed resource is wrong.

package analysis

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/structural"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// compositeRoots are where the request holds the composite resource as
// observed: its fields follow the XRD's schema.
var compositeRoot = []string{"observed", "composite", "resource"}

// templateReads warns on each field a step's template reads of the
// observed composite that the composite's schema (from its XRD) does not
// have, at the field in the template, with the field most likely meant.
func templateReads(d *document.Doc, m map[string]any, ts *templateStep, env Env) []Diagnostic {
	if len(ts.problems) > 0 || env.Workspace.Schemas == nil {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	g, ok := baseGVK(ref)
	if !ok {
		return nil
	}
	def, defined := compositeDefinition(d, g, env, nil)
	if !defined || def.XR == nil {
		return nil
	}
	var out []Diagnostic
	seen := map[int]bool{}
	for _, r := range gotemplating.Reads(ts.tpl) {
		if len(r.Path) <= len(compositeRoot) || !hasPrefix(r.Path, compositeRoot) {
			continue
		}
		i, parent, ok := firstUnknown(def.XR, r.Path[len(compositeRoot):])
		if ok {
			continue
		}
		at := len(compositeRoot) + i
		if r.Starts[at] < 0 || seen[r.Starts[at]] {
			continue // a field through a variable or a with block: said where it is written
		}
		seen[r.Starts[at]] = true
		sp, mapped := ts.span(r.Starts[at], r.Ends[at])
		if !mapped {
			continue
		}
		field := r.Path[at]
		where := fieldpath.Path{}
		for _, s := range r.Path[len(compositeRoot):at] {
			where = where.Child(fieldpath.Field(s))
		}
		names := make([]string, 0, len(parent.Properties))
		for n := range parent.Properties {
			names = append(names, n)
		}
		msg := fmt.Sprintf("the composite resource's schema has no field %q", field)
		if len(where) > 0 {
			msg = fmt.Sprintf("the composite resource's schema has no field %q in %s", field, where)
		}
		dg := Diagnostic{Span: sp, Severity: severity.Warning, Code: "template-field", Path: ts.parts[0].String()}
		if best, ok := suggest.Closest(field, names); ok {
			msg += fmt.Sprintf("; did you mean %q?", best)
			dg.Replace = best
		}
		switch {
		case r.Cond:
			msg += " (the template tests a field that never exists: the branch that needs it is never taken)"
		case r.Defaulted:
			msg += " (no composite can set it: the API server prunes what the XRD does not define, so the default always applies)"
		default:
			msg += " (the template renders <no value> there)"
		}
		dg.Message = msg
		out = append(out, dg)
	}
	return out
}

// firstUnknown follows path through s and says the index of the first
// field s has no place for and the object that lacks it; ok is true when
// the whole path fits, or leads where the schema says nothing (a map, a
// preserved-unknown object, a list, metadata).
func firstUnknown(s *structuralschema.Structural, path []string) (int, *structuralschema.Structural, bool) {
	cur := s
	for i, f := range path {
		if i == 0 && f == "metadata" {
			return 0, nil, true // object metadata: the API server's, not the XRD's
		}
		if cur == nil || structural.Opaque(cur) || cur.Type != "object" || cur.AdditionalProperties != nil {
			return 0, nil, true
		}
		next, ok := structural.Step(cur, fieldpath.Field(f))
		if !ok {
			if len(cur.Properties) == 0 {
				return 0, nil, true
			}
			return i, cur, false
		}
		if next == nil {
			return 0, nil, true
		}
		cur = next
	}
	return 0, nil, true
}

func hasPrefix(p, prefix []string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}
