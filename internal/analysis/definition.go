package analysis

import (
	"context"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Location is a span in some file.
type Location struct {
	File *document.File
	Span document.Span
}

// FileReader gives analysis the text of other files (open buffers first,
// then disk) without doing IO itself.
type FileReader func(path string) ([]byte, error)

// Definition finds where the kind named by the document's apiVersion/kind
// is defined, when the cursor is on either of them: the CRD, XRD or MRD
// document in a workspace file, at its spec.names.kind (or claimNames.kind).
// Built-in kinds have no file to go to.
func Definition(ctx context.Context, f *document.File, offset int, env Env, read FileReader) []Location {
	hit, ok := f.At(offset)
	if !ok || len(hit.Path) != 1 || env.Schemas == nil || read == nil {
		return nil
	}
	if name := hit.Path[0].Field; name != "apiVersion" && name != "kind" {
		return nil
	}
	obj, err := hit.Doc.Object()
	if err != nil {
		return nil
	}
	m, _ := obj.(map[string]any)
	gvk, _, ok := resourceHeader(hit.Doc, m)
	if !ok {
		return nil
	}
	sch, found := nearest(env.Schemas.Candidates(gvk), f.URI)
	if !found || sch.Source.File == "" {
		return nil
	}
	text, err := read(sch.Source.File)
	if err != nil {
		return nil
	}
	def := document.Parse(sch.Source.File, 0, text)
	for _, d := range def.Docs {
		for _, names := range []string{"names", "claimNames"} {
			_, g, okG := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("group")})
			_, k, okK := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field(names), fieldpath.Field("kind")})
			if okK && k.Kind == yaml.ScalarNode && k.Value == gvk.Kind && (!okG || g.Value == gvk.Group) {
				return []Location{{File: def, Span: def.NodeSpan(k)}}
			}
		}
	}
	return nil
}
