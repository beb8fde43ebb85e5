// This file brings hover into function-go-templating inline templates
// (gotemplating_complete.go completes there): a field of a chain inside an
// action (the composite's fields after .observed.composite.resource., a
// composed resource's after .observed.resources.NAME.resource., the
// request's own keys), and the keys of the kind a template document
// writes, as in plain YAML.

package analysis

import (
	"context"
	"regexp"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// templateCursor is a file offset inside an inline template.
type templateCursor struct {
	d   *document.Doc
	m   map[string]any
	ts  *templateStep
	off int // in ts.tpl.Text
}

// templateAt finds the inline template holding offset, if any.
func templateAt(f *document.File, offset int) (templateCursor, bool) {
	d := f.DocAt(offset)
	if d == nil {
		return templateCursor{}, false
	}
	obj, err := d.Object()
	m, _ := obj.(map[string]any)
	if err != nil || m == nil || m["kind"] != "Composition" {
		return templateCursor{}, false
	}
	for _, ts := range templateSteps(d, m) {
		for i, p := range ts.tpl.Parts {
			if !ts.ok[i] {
				continue
			}
			if j, ok := ts.maps[i].Index(offset); ok {
				return templateCursor{d: d, m: m, ts: ts, off: p.Start + j}, true
			}
		}
	}
	return templateCursor{}, false
}

// inAction says whether the cursor is inside an action ({{ … }}).
func (c templateCursor) inAction() bool {
	before := c.ts.tpl.Text[:c.off]
	l := strings.LastIndex(before, c.ts.tpl.Left)
	return l >= 0 && strings.LastIndex(before, c.ts.tpl.Right) < l
}

// chainChar says whether b may be part of a field chain ($x.a.b).
func chainChar(b byte) bool {
	return b == '.' || b == '$' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// varDecl matches a variable declared from a chain: $x := .a.b (or =).
var varDecl = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)\s*:?=\s*(\$?[A-Za-z0-9_.]*)`)

// resolveChain turns a chain written in the template (".a.b", "$.a",
// "$x.b") into its path from the request's root; ok is false when it
// does not start at the root or at a variable declared from it.
func resolveChain(chain, before string) ([]string, bool) {
	for depth := 0; depth < 8; depth++ {
		switch {
		case strings.HasPrefix(chain, "$."):
			chain = chain[1:]
		case chain == "$":
			return nil, true
		case strings.HasPrefix(chain, "$"):
			name, rest, _ := strings.Cut(chain[1:], ".")
			var decl string
			for _, m := range varDecl.FindAllStringSubmatch(before, -1) {
				if m[1] == name {
					decl = m[2] // the last declaration before the cursor
				}
			}
			if decl == "" || decl == chain {
				return nil, false
			}
			if rest != "" {
				chain = strings.TrimSuffix(decl, ".") + "." + rest
			} else {
				chain = decl
			}
			continue
		}
		if !strings.HasPrefix(chain, ".") {
			return nil, false
		}
		if chain == "." {
			return nil, true
		}
		return strings.Split(chain[1:], "."), true
	}
	return nil, false
}

// templateField is a field a chain may go on with.
type templateField struct {
	name, detail, doc string
}

// chainFields are the fields after path (from the request's root), with
// the schema of the object they belong to when a kind's schema says them.
func (c templateCursor) chainFields(ctx context.Context, path []string, env Env) ([]templateField, *structuralschema.Structural, *schemas.Schema) {
	static := func(names ...string) []templateField {
		out := make([]templateField, len(names))
		for i, n := range names {
			out[i] = templateField{name: n, detail: "request"}
		}
		return out
	}
	switch {
	case len(path) == 0:
		return static("observed", "desired", "context", "extraResources", "requiredResources", "credentials", "input", "meta"), nil, nil
	case len(path) == 1 && (path[0] == "observed" || path[0] == "desired"):
		return static("composite", "resources"), nil, nil
	case len(path) == 2 && (path[0] == "observed" || path[0] == "desired") && path[1] == "composite":
		return static("resource", "connectionDetails", "ready"), nil, nil
	case len(path) == 2 && (path[0] == "observed" || path[0] == "desired") && path[1] == "resources":
		var out []templateField
		seen := map[string]bool{}
		for _, doc := range c.ts.docs {
			if doc.ResourceName != "" && !seen[doc.ResourceName] {
				seen[doc.ResourceName] = true
				out = append(out, templateField{name: doc.ResourceName, detail: doc.Kind, doc: "a resource this template composes"})
			}
		}
		return out, nil, nil
	case len(path) == 3 && (path[0] == "observed" || path[0] == "desired") && path[1] == "resources":
		return static("resource", "connectionDetails", "ready"), nil, nil
	}
	var root *structuralschema.Structural
	var sch *schemas.Schema
	var rest []string
	switch {
	case len(path) >= 3 && (path[0] == "observed" || path[0] == "desired") && path[1] == "composite" && path[2] == "resource":
		spec, _ := c.m["spec"].(map[string]any)
		ref, _ := spec["compositeTypeRef"].(map[string]any)
		g, ok := baseGVK(ref)
		if !ok {
			return nil, nil, nil
		}
		def, known := compositeDefinition(c.d, g, env, nil)
		if !known || def.XR == nil {
			return nil, nil, nil
		}
		root, rest = def.XR, path[3:]
		sch, _ = nearest(env.Workspace.Schemas.Candidates(g), c.d.File.URI)
	case len(path) >= 4 && (path[0] == "observed" || path[0] == "desired") && path[1] == "resources" && path[3] == "resource":
		for _, doc := range c.ts.docs {
			if doc.ResourceName != path[2] || doc.APIVersion == "" || doc.Kind == "" {
				continue
			}
			g, ok := baseGVK(map[string]any{"apiVersion": doc.APIVersion, "kind": doc.Kind})
			if !ok {
				continue
			}
			if s, found := nearest(env.Workspace.Schemas.Candidates(g), c.d.File.URI); found {
				if ss, err := s.Structural(); err == nil && ss != nil {
					root, sch, rest = ss, s, path[4:]
					break
				}
			}
		}
	}
	if root == nil {
		return nil, nil, nil
	}
	p := fieldpath.Path{}
	for _, s := range rest {
		p = p.Child(fieldpath.Field(s))
	}
	node, _ := walkStructural(root, p)
	if node == nil {
		return nil, nil, nil
	}
	var out []templateField
	if len(rest) == 0 {
		out = append(out, templateField{name: "apiVersion", detail: "string"}, templateField{name: "kind", detail: "string"}, templateField{name: "metadata", detail: "object"})
	}
	for name, prop := range node.Properties {
		if len(rest) == 0 && (name == "apiVersion" || name == "kind" || name == "metadata") {
			continue
		}
		prop := prop
		out = append(out, templateField{name: name, detail: typeName(&prop), doc: prop.Description})
	}
	return out, node, sch
}

// document is the template document holding the cursor, with its actions
// blanked (a literal YAML document of the same length), and the cursor's
// offset in it.
func (c templateCursor) document() (gotemplating.Document, *document.File, int, bool) {
	for _, doc := range c.ts.docs {
		if c.off < doc.Start || c.off > doc.End || doc.Meta {
			continue
		}
		text := c.ts.tpl.Blanked(doc.Start, doc.End)
		return doc, document.Parse(c.d.File.URI, c.d.File.Version, []byte(text)), c.off - doc.Start, true
	}
	return gotemplating.Document{}, nil, 0, false
}

// templateHover explains what the cursor is on inside an inline template:
// a field of a chain in an action (from the schema of the composite or of
// the composed resource it reads), or a key of the template document (as
// in a plain manifest of its kind).
func templateHover(ctx context.Context, f *document.File, offset int, env Env) (*HoverResult, bool) {
	c, ok := templateAt(f, offset)
	if !ok {
		return nil, false
	}
	if !c.inAction() {
		doc, sf, off, ok := c.document()
		if !ok {
			return nil, true
		}
		h := Hover(ctx, sf, off, env)
		if h == nil {
			return nil, true
		}
		sp, ok := c.ts.span(doc.Start+h.Span.Start, doc.Start+h.Span.End)
		if !ok {
			return nil, true
		}
		h.Span = sp
		return h, true
	}
	text := c.ts.tpl.Text
	start, end := c.off, c.off
	for start > 0 && chainChar(text[start-1]) {
		start--
	}
	for end < len(text) && chainChar(text[end]) && text[end] != '.' {
		end++
	}
	token := text[start:end]
	i := strings.LastIndexByte(token, '.')
	if i < 0 || i == len(token)-1 {
		return nil, true
	}
	name := token[i+1:]
	sp, ok := c.ts.span(start+i+1, end)
	if !ok {
		return nil, true
	}
	path, ok := resolveChain(token[:i+1], text[:start])
	if !ok {
		return chainHover(c, end, name, sp, env), true
	}
	if len(path) > 0 && path[len(path)-1] == "" {
		path = path[:len(path)-1]
	}
	fields, node, sch := c.chainFields(ctx, path, env)
	for _, fd := range fields {
		if fd.name != name {
			continue
		}
		if node != nil && sch != nil {
			if prop, ok := node.Properties[name]; ok {
				p := fieldpath.Path{}
				for _, s := range append(append([]string{}, path...), name) {
					p = p.Child(fieldpath.Field(s))
				}
				return &HoverResult{Span: sp, Markdown: fieldDoc(p, &prop, node, sch)}, true
			}
		}
		md := "**" + fd.name + "**"
		if fd.detail != "" {
			md += " `" + fd.detail + "`"
		}
		if fd.doc != "" {
			md += "\n\n" + fd.doc
		}
		return &HoverResult{Span: sp, Markdown: md}, true
	}
	return chainHover(c, end, name, sp, env), true
}

// chainHover explains a field of a chain the way completion resolves it
// (through with, range and the getters, gotemplating.ChainAt): what
// completion offers for that exact name.
func chainHover(c templateCursor, end int, name string, sp document.Span, env Env) *HoverResult {
	base, partial, _, ok := gotemplating.ChainAt(c.ts.tpl, end)
	if !ok || partial != name {
		return nil
	}
	for _, cm := range chainCompletions(c.d, c.m, c.ts, base, partial, sp, env) {
		if cm.Label != name {
			continue
		}
		md := "**" + cm.Label + "**"
		if cm.Detail != "" {
			md += " `" + cm.Detail + "`"
		}
		if cm.Documentation != "" {
			md += "\n\n" + cm.Documentation
		}
		return &HoverResult{Span: sp, Markdown: md}
	}
	return nil
}
