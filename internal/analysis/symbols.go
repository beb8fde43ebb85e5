// This file defines the document outline (Symbols).

package analysis

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Symbol is one entry of a document outline.
type Symbol struct {
	Name      string
	Detail    string
	Object    bool          // a Kubernetes object (a YAML document) rather than a field
	Span      document.Span // the whole symbol
	Selection document.Span // what to highlight: the kind, or the key
	Children  []Symbol
}

// Symbols outlines a file: one symbol per YAML document ("Kind/name", with
// apiVersion as detail) whose children are its top-level fields.
func Symbols(f *document.File) []Symbol {
	var out []Symbol
	for _, d := range f.Docs {
		if d.Root == nil || d.Root.Kind != yaml.MappingNode {
			continue
		}
		name, detail := fmt.Sprintf("document %d", d.Index+1), ""
		sel := f.NodeSpan(d.Root)
		if _, v, ok := d.Lookup(fieldpath.Path{fieldpath.Field("kind")}); ok && v.Kind == yaml.ScalarNode {
			name = v.Value
			sel = f.NodeSpan(v)
		}
		if _, v, ok := d.Lookup(fieldpath.Path{fieldpath.Field("metadata"), fieldpath.Field("name")}); ok && v.Kind == yaml.ScalarNode {
			name += "/" + v.Value
		}
		if _, v, ok := d.Lookup(fieldpath.Path{fieldpath.Field("apiVersion")}); ok && v.Kind == yaml.ScalarNode {
			detail = v.Value
		}
		doc := Symbol{Name: name, Detail: detail, Object: true, Span: f.NodeSpan(d.Root), Selection: sel}
		for i := 0; i+1 < len(d.Root.Content); i += 2 {
			k, v := d.Root.Content[i], d.Root.Content[i+1]
			ks, vs := f.NodeSpan(k), f.NodeSpan(v)
			end := vs.End
			if end < ks.End {
				end = ks.End
			}
			doc.Children = append(doc.Children, Symbol{Name: k.Value, Span: document.Span{Start: ks.Start, End: end}, Selection: ks})
		}
		out = append(out, doc)
	}
	return out
}
