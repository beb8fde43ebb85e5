// This file finds the schema that governs a path, descending into embedded
// resources (a base, a step's input, an Object's manifest).

package analysis

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// schemaAt finds the schema that governs path p of a document: the
// document's own, or, below an embedded resource (a schema node marked
// x-kubernetes-embedded-resource whose value names its apiVersion and
// kind), that resource's schema. This is how a Composition's bases, a
// pipeline step's input and a provider-kubernetes Object's manifest get
// the hover and completion of the kind they hold. rel is p relative to
// the returned schema.
func schemaAt(d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (sch *schemas.Schema, ss *structuralschema.Structural, rel fieldpath.Path, ok bool) {
	if env.Workspace.Schemas == nil {
		return nil, nil, nil, false
	}
	gvk, _, ok := resourceHeader(d, m)
	if !ok {
		return nil, nil, nil, false
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return nil, nil, nil, false
	}
	return schemaBelow(d, m, p, sch, env)
}

// schemaBelow is schemaAt in a document whose own schema is sch.
func schemaBelow(d *document.Doc, m map[string]any, p fieldpath.Path, sch *schemas.Schema, env Env) (*schemas.Schema, *structuralschema.Structural, fieldpath.Path, bool) {
	ss, err := sch.Structural()
	if err != nil {
		return sch, nil, nil, false
	}
	start := 0
	cur := ss
	for i, seg := range p {
		if cur == nil {
			break
		}
		cur, _ = structural.Step(cur, seg)
		if cur == nil || !cur.XEmbeddedResource || i == len(p)-1 {
			continue
		}
		inner, _ := valueAt(m, p[:i+1]).(map[string]any)
		igvk, ok := baseGVK(inner)
		if !ok {
			continue
		}
		isch, found := nearest(env.Workspace.Schemas.Candidates(igvk), d.File.URI)
		if !found {
			continue
		}
		iss, err := isch.Structural()
		if err != nil {
			continue
		}
		sch, ss, cur, start = isch, iss, iss, i+1
	}
	return sch, ss, p[start:], true
}
