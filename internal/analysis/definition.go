// This file defines go-to-definition of a kind (Definition) and workspace
// symbols (WorkspaceSymbols).

package analysis

import (
	"context"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
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
	if !ok || len(hit.Path) == 0 || env.Workspace.Schemas == nil || read == nil {
		return nil
	}
	last, _ := hit.Path.Last()
	obj, err := hit.Doc.Object()
	if err != nil {
		return nil
	}
	m, _ := obj.(map[string]any)
	if !hit.OnKey && last.Field == "patchSetName" && hit.Value != nil {
		// A PatchSet patch goes to the patchSet it names.
		if decl, _ := patchSetUses(m, hit.Path, hit.Value.Value); decl != nil {
			if _, v, ok := hit.Doc.Lookup(decl); ok {
				return []Location{{File: f, Span: f.NodeSpan(v)}}
			}
		}
		return nil
	}
	if !hit.OnKey && fieldPathKeys[last.Field] {
		if loc, ok := fieldPathDefinition(hit, m, env, read); ok {
			return []Location{loc}
		}
		return nil
	}
	if last.Field != "apiVersion" && last.Field != "kind" {
		return nil
	}
	var gvk schemas.GVK
	switch {
	case len(hit.Path) == 1:
		if gvk, _, ok = resourceHeader(hit.Doc, m); !ok {
			return nil
		}
	case hit.Path.Parent().String() == "spec.compositeTypeRef" || isResourceHeader(hit.Doc, hit.Path.Parent(), f.URI, env):
		// A Composition's compositeTypeRef names the XR (go to its XRD);
		// an embedded resource (a base) names its kind.
		ref, _ := valueAt(m, hit.Path.Parent()).(map[string]any)
		if gvk, ok = baseGVK(ref); !ok {
			return nil
		}
	default:
		return nil
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), f.URI)
	if !found {
		return nil
	}
	if loc, ok := definitionOf(sch.Source.File, gvk, read); ok {
		return []Location{loc}
	}
	return nil
}

func valueAt(obj any, p fieldpath.Path) any {
	cur := obj
	for _, s := range p {
		switch s.Kind {
		case fieldpath.KindField:
			m, _ := cur.(map[string]any)
			cur = m[s.Field]
		case fieldpath.KindIndex:
			l, _ := cur.([]any)
			if s.Index < 0 || s.Index >= len(l) {
				return nil
			}
			cur = l[s.Index]
		default:
			return nil
		}
	}
	return cur
}

// definitionOf finds the document of file that defines gvk (a CRD, XRD or
// MRD, by spec.group and spec.names.kind or spec.claimNames.kind) and
// returns the span of that kind name.
func definitionOf(file string, gvk schemas.GVK, read FileReader) (Location, bool) {
	if file == "" || read == nil {
		return Location{}, false
	}
	text, err := read(file)
	if err != nil {
		return Location{}, false
	}
	def := document.Parse(file, 0, text)
	for _, d := range def.Docs {
		if !defines(d, gvk) {
			continue
		}
		for _, names := range []string{"names", "claimNames"} {
			if _, k, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field(names), fieldpath.Field("kind")}); ok && k.Kind == yaml.ScalarNode && k.Value == gvk.Kind {
				return Location{File: def, Span: def.NodeSpan(k)}, true
			}
		}
	}
	return Location{}, false
}

// WorkspaceSymbol is a kind or an object found across the workspace.
type WorkspaceSymbol struct {
	Name        string
	Detail      string // group/version, or the object's apiVersion
	DefinesKind bool   // a kind definition (CRD, XRD) rather than an object
	// File is the FileSymbols.File the symbol was found in, and Span its
	// kind name (a definition) or its kind (an object) in that file's text.
	File string
	Span document.Span
}

// FileSymbols is what workspace symbols use of one file, before any
// query: its objects and the kinds it defines. It depends on the file's
// text alone, so a caller may keep it for as long as the text is
// unchanged (the server keeps it per file, by size and modification
// time) instead of parsing the file for every query.
type FileSymbols struct {
	File    string            // the document.File's URI (a path for files read from disk)
	Objects []WorkspaceSymbol // one per object ("Kind/name"), in order
	Kinds   []KindDefinition  // the kinds its CRD, XRD or MRD documents define
}

// KindDefinition is a kind a document defines (spec.group with
// spec.names.kind or spec.claimNames.kind), at that kind name.
type KindDefinition struct {
	Group, Kind string
	Span        document.Span
}

// SymbolsOfFile is the FileSymbols of f.
func SymbolsOfFile(f *document.File) FileSymbols {
	out := FileSymbols{File: f.URI}
	for _, sym := range Symbols(f) {
		out.Objects = append(out.Objects, WorkspaceSymbol{Name: sym.Name, Detail: sym.Detail, File: f.URI, Span: sym.Selection})
	}
	for _, d := range f.Docs {
		_, g, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("group")})
		if !ok || g.Kind != yaml.ScalarNode {
			continue
		}
		for _, names := range []string{"names", "claimNames"} {
			if _, k, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field(names), fieldpath.Field("kind")}); ok && k.Kind == yaml.ScalarNode {
				out.Kinds = append(out.Kinds, KindDefinition{Group: g.Value, Kind: k.Value, Span: f.NodeSpan(k)})
			}
		}
	}
	return out
}

// WorkspaceSymbols lists the kinds defined in workspace files and the
// objects of files, whose name contains query (case-insensitive). files
// are the files searched for objects; kindsIn gives the FileSymbols of
// the file a kind comes from (ok false: it cannot be read), where the
// kind's first definition is its location.
func WorkspaceSymbols(ctx context.Context, query string, env Env, files []FileSymbols, kindsIn func(path string) (FileSymbols, bool)) []WorkspaceSymbol {
	q := strings.ToLower(query)
	var out []WorkspaceSymbol
	if env.Workspace.Schemas != nil && kindsIn != nil {
		for _, k := range env.Workspace.Schemas.Kinds() {
			if ctx.Err() != nil {
				return nil
			}
			if k.Source.Kind == schemas.SourceBuiltin || k.Source.File == "" || !strings.Contains(strings.ToLower(k.GVK.Kind), q) {
				continue
			}
			fs, ok := kindsIn(k.Source.File)
			if !ok {
				continue
			}
			for _, def := range fs.Kinds {
				if def.Group == k.GVK.Group && def.Kind == k.GVK.Kind {
					out = append(out, WorkspaceSymbol{Name: k.GVK.Kind, Detail: k.GVK.APIVersion(), DefinesKind: true, File: fs.File, Span: def.Span})
					break
				}
			}
		}
	}
	for _, fs := range files {
		for _, sym := range fs.Objects {
			if strings.Contains(strings.ToLower(sym.Name), q) {
				out = append(out, sym)
			}
		}
	}
	return out
}
