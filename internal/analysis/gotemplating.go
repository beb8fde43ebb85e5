package analysis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/gotemplate"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// templateStep is a function-go-templating step with an inline template,
// and how its template's text maps to the file.
type templateStep struct {
	index int
	name  string
	tpl   gotemplate.Template
	docs  []gotemplate.Document
	// parts are the paths of the template's strings in the Composition;
	// maps their value-to-text mappings (ok false when one does not map).
	parts []fieldpath.Path
	maps  []document.ValueMap
	ok    []bool
	// problems are the template's syntax errors.
	problems []gotemplate.Problem
}

// templateSteps reads the function-go-templating steps of a Composition
// whose template is inline.
func templateSteps(d *document.Doc, m map[string]any) []*templateStep {
	spec, _ := m["spec"].(map[string]any)
	pipeline, _ := spec["pipeline"].([]any)
	var out []*templateStep
	for i, s := range pipeline {
		sm, _ := s.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		tpl, ok := gotemplate.FromInput(in)
		if !ok {
			continue
		}
		ts := &templateStep{index: i, tpl: tpl, docs: gotemplate.Documents(tpl), problems: gotemplate.Check(tpl)}
		ts.name, _ = sm["step"].(string)
		inline := stepPath(i).Child(fieldpath.Field("input"), fieldpath.Field("inline"))
		for _, p := range tpl.Parts {
			pp := inline.Child(fieldpath.Field("template"))
			if p.Index >= 0 {
				pp = inline.Child(fieldpath.Field("templates"), fieldpath.Index(p.Index))
			}
			var vm document.ValueMap
			ok := false
			if _, n, found := d.Lookup(pp); found && n != nil && n.Kind == yaml.ScalarNode {
				vm, ok = d.File.ValueOffsets(n)
			}
			ts.parts, ts.maps, ts.ok = append(ts.parts, pp), append(ts.maps, vm), append(ts.ok, ok)
		}
		out = append(out, ts)
	}
	return out
}

// span maps [start, end) of the template's text to the file; ok is false
// where the text does not map (the "\n---\n" joining two templates, a
// string written in a way whose decoding is not exact).
func (ts *templateStep) span(start, end int) (document.Span, bool) {
	part, off, ok := ts.tpl.Locate(start)
	if !ok {
		return document.Span{}, false
	}
	for i, p := range ts.tpl.Parts {
		if p != part || !ts.ok[i] {
			continue
		}
		n := max(0, min(end, p.End)-start)
		return ts.maps[i].Span(document.Span{Start: off, End: off + n}), true
	}
	return document.Span{}, false
}

// fallback is where a finding goes that has no place in the template: the
// template's key, else the step.
func (ts *templateStep) fallback(d *document.Doc) (document.Span, string) {
	if len(ts.parts) > 0 {
		if k, _, ok := d.Spans(ts.parts[0]); ok && k != (document.Span{}) {
			return k, ""
		}
	}
	return at(d, stepPath(ts.index).Child(fieldpath.Field("step")), false, 0, "", "").Span, ""
}

// docAt is the template document holding a Text offset.
func (ts *templateStep) docAt(off int) (gotemplate.Document, bool) {
	for _, doc := range ts.docs {
		if off >= doc.Start && off <= doc.End {
			return doc, true
		}
	}
	return gotemplate.Document{}, false
}

// producer is the template document that composed the resource name (of
// apiVersion/kind av, k): the one naming it literally in its
// composition-resource-name annotation, else the only document of that
// apiVersion and kind without a literal name.
func (ts *templateStep) producer(name, av, k string) (gotemplate.Document, bool) {
	var cands []gotemplate.Document
	for _, doc := range ts.docs {
		if doc.Meta {
			continue
		}
		if doc.ResourceName == name {
			return doc, true
		}
		if doc.ResourceName == "" && doc.APIVersion == av && doc.Kind == k {
			cands = append(cands, doc)
		}
	}
	if len(cands) == 1 {
		return cands[0], true
	}
	return gotemplate.Document{}, false
}

// pathSpan finds where path p (or its nearest ancestor written literally)
// is in a template document: its key (onKey) or value, in the file. The
// document is read with its actions blanked out, so literal keys keep
// their place.
func (ts *templateStep) pathSpan(doc gotemplate.Document, p fieldpath.Path, onKey bool) (document.Span, fieldpath.Path, bool) {
	text := ts.tpl.Blanked(doc.Start, doc.End)
	f := document.Parse("", 0, []byte(text))
	if len(f.Docs) != 1 || len(f.Docs[0].Errors) > 0 || f.Docs[0].Root == nil {
		return document.Span{}, nil, false
	}
	sd := f.Docs[0]
	key, val, found := sd.Spans(p)
	near := p
	if !found {
		near, key, val = sd.Nearest(p)
		onKey = true
		if len(near) == 0 {
			if k, _, ok := sd.Spans(fieldpath.Path{fieldpath.Field("kind")}); ok {
				key = k
			}
		}
	}
	sp := val
	if onKey && key != (document.Span{}) || sp.End <= sp.Start {
		sp = key
	}
	if sp == (document.Span{}) {
		return document.Span{}, nil, false
	}
	fs, ok := ts.span(doc.Start+sp.Start, doc.Start+sp.End)
	return fs, near, ok
}

// goTemplates checks a Composition's function-go-templating inline
// templates without running them: syntax errors (as the function parses
// them) at their place in the block scalar, and each plain YAML template
// document against its kind's schema, as the bases of patch-and-transform
// are (presence and CEL rules wait for rendering: a later step may patch
// the resource).
func goTemplates(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	var out []Diagnostic
	for _, ts := range templateSteps(d, m) {
		for _, p := range ts.problems {
			sp, ok := ts.span(p.Start, p.End)
			if !ok {
				sp, _ = ts.fallback(d)
			}
			out = append(out, Diagnostic{Span: sp, Severity: SeverityError, Code: "template-syntax",
				Message: fmt.Sprintf("function-go-templating cannot parse the template: %s", p.Message)})
		}
		if env.Schemas == nil {
			continue
		}
		for _, doc := range ts.docs {
			if !doc.Plain || doc.Meta || doc.APIVersion == "" || doc.Kind == "" {
				continue
			}
			if doc.APIVersion == ref["apiVersion"] && doc.Kind == ref["kind"] && doc.ResourceName == "" {
				continue // the desired composite's status, not a composed resource
			}
			out = append(out, templateDocument(ctx, d, ts, doc, env)...)
		}
	}
	return out
}

// templateDocument validates one plain template document.
func templateDocument(ctx context.Context, d *document.Doc, ts *templateStep, doc gotemplate.Document, env Env) []Diagnostic {
	f := document.Parse("", 0, []byte(doc.Text))
	if len(f.Docs) != 1 {
		return nil
	}
	sd := f.Docs[0]
	var out []Diagnostic
	place := func(s document.Span) document.Span {
		if sp, ok := ts.span(doc.Start+s.Start, doc.Start+s.End); ok {
			return sp
		}
		sp, _ := ts.fallback(d)
		return sp
	}
	if len(sd.Errors) > 0 {
		for _, e := range sd.Errors {
			out = append(out, Diagnostic{Span: place(e.Span), Severity: SeverityError, Code: "template-yaml",
				Message: "function-go-templating cannot decode this template document: " + e.Message})
		}
		return out
	}
	obj, err := sd.Object()
	m, _ := obj.(map[string]any)
	if err != nil || m == nil {
		return nil
	}
	gvk, ok := baseGVK(m)
	if !ok {
		return nil
	}
	sch, found := nearest(env.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return nil
	}
	for _, e := range sch.Validate(ctx, m) {
		if !baseCodes[e.Code] || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
			continue
		}
		dg := at(sd, e.Path, e.OnKey, e.Severity, e.Code, e.Message)
		dg.Span = place(dg.Span)
		out = append(out, dg)
	}
	return out
}

// templateLine matches text/template's position in an execution error:
// "template: manifests:12:5: executing ...".
var templateLine = regexp.MustCompile(`template: manifests:(\d+):(\d+): `)

// templateResultSpan places a function-go-templating result that names a
// line and column of the template (an execution error) there.
func (ts *templateStep) resultSpan(msg string) (document.Span, bool) {
	sm := templateLine.FindStringSubmatch(msg)
	if sm == nil {
		return document.Span{}, false
	}
	line, _ := strconv.Atoi(sm[1])
	col, _ := strconv.Atoi(sm[2])
	off := 0
	for i := 1; i < line; i++ {
		j := strings.IndexByte(ts.tpl.Text[off:], '\n')
		if j < 0 {
			return document.Span{}, false
		}
		off += j + 1
	}
	off += col // text/template counts the column from 0 after the line start
	if off > len(ts.tpl.Text) {
		return document.Span{}, false
	}
	end := off
	if a := strings.Index(ts.tpl.Text[off:], ts.tpl.Right); a >= 0 && !strings.Contains(ts.tpl.Text[off:off+a], "\n") {
		end = off + a
	}
	return ts.span(off, max(end, off+1))
}

// schemaFor is the schema of an object's kind nearest the document.
func schemaFor(d *document.Doc, obj map[string]any, env Env) (*schemas.Schema, bool) {
	if env.Schemas == nil {
		return nil, false
	}
	gvk, ok := baseGVK(obj)
	if !ok {
		return nil, false
	}
	return nearest(env.Schemas.Candidates(gvk), d.File.URI)
}
