// This file checks function-go-templating steps with inline templates and
// places what the function reports at the template text that caused it.

package analysis

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// templateStep is a function-go-templating step with an inline template,
// and how its template's text maps to the file.
type templateStep struct {
	index int
	name  string
	tpl   gotemplating.Template
	docs  []gotemplating.Document
	// parts are the paths of the template's strings in the Composition;
	// maps their value-to-text mappings (ok false when one does not map).
	parts []fieldpath.Path
	maps  []document.ValueMap
	ok    []bool
	// problems are the template's syntax errors.
	problems []gotemplating.Problem
	// blanked caches each document read as YAML with its actions blanked
	// out (blankedDoc), by document index; blankText the whole template
	// blanked (once: each document's is a slice of it).
	blanked   map[int]*blankedYAML
	blankText *string
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
		tpl, ok := gotemplating.FromInput(in)
		if !ok {
			continue
		}
		ts := &templateStep{index: i, tpl: tpl, problems: gotemplating.Check(tpl)}
		if len(ts.problems) == 0 || !ts.problems[0].Limit {
			ts.docs = gotemplating.Documents(tpl)
		}
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
	return diagnosticAt(d, stepPath(ts.index).Child(fieldpath.Field("step")), false, 0, "", "").Span, ""
}

// producer is the template document that composed the resource name
// (obj, as rendered): the one naming it literally in its
// composition-resource-name annotation, else the only document of its
// literal apiVersion and kind whose name is templated ({{ $name }},
// setResourceNameAnnotation of a computed name, in a range or not) and
// whose literal values are all the resource's.
func (ts *templateStep) producer(name string, obj map[string]any) (gotemplating.Document, bool) {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	var cands []gotemplating.Document
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
	if len(cands) > 1 {
		// Documents of one kind: the one whose literal values the
		// resource holds.
		var fit []gotemplating.Document
		for _, doc := range cands {
			if ts.literalsHeld(doc, obj) {
				fit = append(fit, doc)
			}
		}
		cands = fit
	}
	if len(cands) == 1 {
		return cands[0], true
	}
	return gotemplating.Document{}, false
}

// blankedYAML is a template document read as YAML with its actions
// blanked out: the text parsed and its document (nil when it is not
// YAML even so).
type blankedYAML struct {
	text string
	f    *document.File
	doc  *document.Doc
}

// blankedDoc reads a template document as YAML with its actions blanked
// out (Template.Blanked), so that literal keys keep their place. When
// that is not YAML (an action writing a key: "{{ $k }}: {{ $v }}"),
// each line holding an action is blanked whole, but for a literal
// "key:" before its first action, and read again.
func (ts *templateStep) blankedDoc(doc gotemplating.Document) *blankedYAML {
	if b, ok := ts.blanked[doc.Index]; ok {
		return b
	}
	if ts.blanked == nil {
		ts.blanked = map[int]*blankedYAML{}
	}
	parse := func(text string) *blankedYAML {
		f := document.Parse("", 0, []byte(text))
		if len(f.Docs) != 1 || len(f.Docs[0].Errors) > 0 || f.Docs[0].Root == nil {
			return nil
		}
		return &blankedYAML{text: text, f: f, doc: f.Docs[0]}
	}
	if ts.blankText == nil {
		all := ts.tpl.Blanked(0, len(ts.tpl.Text))
		ts.blankText = &all
	}
	text := ""
	if doc.Start >= 0 && doc.End <= len(*ts.blankText) && doc.Start <= doc.End {
		text = (*ts.blankText)[doc.Start:doc.End]
	}
	b := parse(text)
	if b == nil && len(text) == len(doc.Text) {
		b = parse(blankActionLines(doc.Text, text))
	}
	if b == nil {
		b = &blankedYAML{text: text}
	}
	ts.blanked[doc.Index] = b
	return b
}

// literalKey is a line's literal key before anything else: indentation,
// an optional list dash, the key and its colon.
var literalKey = regexp.MustCompile(`^[ \t]*(?:-[ \t]+)?[^\s#:{}\[\]"',&*!|>%@]+:(?:[ \t]|$)`)

// blankActionLines blanks each line of orig whose blanked form
// (blanked, of the same length) differs, keeping a literal key written
// before its first action.
func blankActionLines(orig, blanked string) string {
	b := []byte(blanked)
	for ls := 0; ls < len(orig); {
		le := strings.IndexByte(orig[ls:], '\n')
		if le < 0 {
			le = len(orig)
		} else {
			le += ls
		}
		first := -1
		for i := ls; i < le; i++ {
			if orig[i] != blanked[i] {
				first = i
				break
			}
		}
		if first >= 0 {
			keep := 0
			if m := literalKey.FindString(orig[ls:le]); m != "" && ls+len(strings.TrimRight(m, " \t")) <= first {
				keep = len(strings.TrimRight(m, " \t"))
			}
			for i := ls + keep; i < le; i++ {
				if b[i] != '\r' {
					b[i] = ' '
				}
			}
		}
		ls = le + 1
	}
	return string(b)
}

// literalsHeld says whether every scalar value a template document
// writes literally (no action on its lines) is, as text, the value the
// rendered object has there (or the object lacks it: a block around it
// may not have been taken).
func (ts *templateStep) literalsHeld(doc gotemplating.Document, obj map[string]any) bool {
	b := ts.blankedDoc(doc)
	if b.doc == nil {
		return false
	}
	held := true
	b.doc.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
		if !held {
			return false
		}
		if v == nil || v.Kind != yaml.ScalarNode || k == nil {
			return true
		}
		sp := b.f.NodeSpan(v)
		if sp.End <= sp.Start || sp.End > len(doc.Text) {
			return true
		}
		// The whole lines the value is on, without an action.
		ls := strings.LastIndexByte(doc.Text[:sp.Start], '\n') + 1
		le := strings.IndexByte(doc.Text[sp.End:], '\n')
		if le < 0 {
			le = len(doc.Text)
		} else {
			le += sp.End
		}
		if b.text[ls:le] != doc.Text[ls:le] {
			return true
		}
		got, err := paved.Get(obj, p)
		switch {
		case paved.IsNotFound(err):
			// Not written this time (a block around it not taken).
		case err != nil || fmt.Sprint(got) != v.Value:
			held = false
		}
		return held
	})
	return held
}

// pathSpan finds where path p (or its nearest ancestor written literally)
// is in a template document: its key (onKey) or value, in the file. The
// document is read with its actions blanked out, so literal keys keep
// their place.
func (ts *templateStep) pathSpan(doc gotemplating.Document, p fieldpath.Path, onKey bool) (document.Span, fieldpath.Path, bool) {
	b := ts.blankedDoc(doc)
	if b.doc == nil {
		return document.Span{}, nil, false
	}
	sd := b.doc
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

// literal says whether the value at path p of a template document is
// written literally (its key and whole value without an action), so that
// what any composite renders there is that text.
func (ts *templateStep) literal(doc gotemplating.Document, p fieldpath.Path) bool {
	if len(p) == 0 {
		return false
	}
	b := ts.blankedDoc(doc)
	if b.doc == nil {
		return false
	}
	text := b.text
	_, val, found := b.doc.Spans(p)
	if !found || val.End <= val.Start || val.End > len(text) {
		return false
	}
	v := text[val.Start:val.End]
	return v == doc.Text[val.Start:val.End] && strings.TrimSpace(v) != ""
}

// goTemplates checks a Composition's function-go-templating inline
// templates without running them: syntax errors (as the function parses
// them) at their place in the block scalar, each plain YAML template
// document against its kind's schema, as the bases of patch-and-transform
// are (presence and CEL rules wait for rendering: a later step may patch
// the resource), and what the templates read against what the request
// holds (gotemplating_reads.go).
func goTemplates(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	var out []Diagnostic
	tsteps := templateSteps(d, m)
	for _, ts := range tsteps {
		for _, p := range ts.problems {
			sp, ok := ts.span(p.Start, p.End)
			if !ok || p.Limit && p.Start == p.End {
				sp, _ = ts.fallback(d)
			}
			if p.Limit {
				out = append(out, Diagnostic{Span: sp, Severity: severity.Warning, Code: "template-limit", Message: p.Message})
				continue
			}
			out = append(out, Diagnostic{Span: sp, Severity: severity.Error, Code: "template-syntax",
				Message: fmt.Sprintf("function-go-templating cannot parse the template: %s", p.Message)})
		}
		if env.Workspace.Schemas == nil {
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
	return append(out, templateReads(d, m, tsteps, env)...)
}

// templateDocument validates one plain template document.
func templateDocument(ctx context.Context, d *document.Doc, ts *templateStep, doc gotemplating.Document, env Env) []Diagnostic {
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
			out = append(out, Diagnostic{Span: place(e.Span), Severity: severity.Error, Code: "template-yaml",
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
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return nil
	}
	for _, e := range sch.Validate(ctx, m) {
		if !baseCodes[e.Code] || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
			continue
		}
		dg := diagnosticAt(sd, e.Path, e.OnKey, e.Severity, e.Code, e.Message)
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
		return ts.outputLineSpan(msg)
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

// outputYAMLLine matches the function's error on output it cannot read
// as YAML (gotemplate's yamlError): the output line's text, trimmed and
// cut at 80 bytes ("..." appended).
var outputYAMLLine = regexp.MustCompile(`cannot decode manifest: error converting YAML to JSON: yaml: line \d+ \(document \d+, line \d+\) near: '(.*)': `)

// outputLineSpan places the function's YAML error on the rendered output
// at the template line that wrote the offending line: the one line of
// the template whose literal text matches that line's, its actions
// standing for any text (a line of actions only, or text more than one
// line matches, is not placed: the finding stays on the step).
func (ts *templateStep) outputLineSpan(msg string) (document.Span, bool) {
	sm := outputYAMLLine.FindStringSubmatch(msg)
	if sm == nil || strings.TrimSpace(sm[1]) == "" {
		return document.Span{}, false
	}
	near, prefix := sm[1], false
	if strings.HasSuffix(near, "...") && len(near) == 83 {
		near, prefix = near[:80], true
	}
	text := ts.tpl.Text
	found, start, end := 0, 0, 0
	for off := 0; off <= len(text); {
		nl := strings.IndexByte(text[off:], '\n')
		lineEnd := len(text)
		if nl >= 0 {
			lineEnd = off + nl
		}
		line := text[off:lineEnd]
		trimmed := strings.TrimSpace(line)
		if re, ok := ts.linePattern(trimmed, prefix); ok && re.MatchString(near) {
			found++
			start = off + strings.Index(line, trimmed)
			end = start + len(trimmed)
		}
		if nl < 0 {
			break
		}
		off = lineEnd + 1
	}
	if found != 1 {
		return document.Span{}, false
	}
	return ts.span(start, end)
}

// linePattern is a template line as a pattern of the output line it
// writes: its literal text, each action (on the line, delimiters
// balanced) any text, the spaces around an action optional (trim
// markers). ok is false for a line with no literal text or an action
// the line does not close. prefix: the output line was cut, so the
// pattern need not reach its end.
func (ts *templateStep) linePattern(line string, prefix bool) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString("^")
	literal := false
	for line != "" {
		i := strings.Index(line, ts.tpl.Left)
		if i < 0 {
			if strings.Contains(line, ts.tpl.Right) {
				return nil, false
			}
			b.WriteString(regexp.QuoteMeta(line))
			literal = literal || strings.TrimSpace(line) != ""
			break
		}
		seg := line[:i]
		if strings.Contains(seg, ts.tpl.Right) {
			return nil, false
		}
		b.WriteString(regexp.QuoteMeta(strings.TrimRight(seg, " \t")))
		literal = literal || strings.TrimSpace(seg) != ""
		j := strings.Index(line[i+len(ts.tpl.Left):], ts.tpl.Right)
		if j < 0 {
			return nil, false
		}
		b.WriteString(`\s*.*?\s*`)
		line = strings.TrimLeft(line[i+len(ts.tpl.Left)+j+len(ts.tpl.Right):], " \t")
	}
	if !literal {
		return nil, false
	}
	if !prefix {
		b.WriteString("$")
	}
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// schemaFor is the schema of an object's kind nearest the document.
func schemaFor(d *document.Doc, obj map[string]any, env Env) (*schemas.Schema, bool) {
	if env.Workspace.Schemas == nil {
		return nil, false
	}
	gvk, ok := baseGVK(obj)
	if !ok {
		return nil, false
	}
	return nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
}

// isGoTemplating says whether a step runs function-go-templating.
func isGoTemplating(st functions.Step) bool { return gotemplating.IsGoTemplate(st.Input) }

// fileTemplateSteps are the function-go-templating steps of a
// Composition whose templates come from a FileSystem folder env can read,
// by pipeline index: their documents match rendered resources to the
// template text (for literal values), though the text is not in the
// Composition's file.
func fileTemplateSteps(m map[string]any, env Env) map[int]*templateStep {
	if env.Workspace.Rendering().TemplateFiles == nil {
		return nil
	}
	out := map[int]*templateStep{}
	for _, st := range functions.Steps(m) {
		if !isGoTemplating(st) || st.Input["source"] != "FileSystem" {
			continue
		}
		tpl, err := gotemplating.Source(st.Input, nil, env.Workspace.Rendering().TemplateFiles)
		if err != nil || gotemplating.Bounds(tpl.Text, tpl.Left, tpl.Right) != nil {
			continue
		}
		ts := &templateStep{index: st.Index, name: st.Name, tpl: tpl, docs: gotemplating.Documents(tpl)}
		ts.maps, ts.ok = make([]document.ValueMap, len(tpl.Parts)), make([]bool, len(tpl.Parts))
		out[st.Index] = ts
	}
	return out
}

// fileLine says where in a FileSystem template file the key of path p
// (or its nearest ancestor) of a document is: "templates/web.tmpl line
// 8", "" when the document is not from a file.
func (ts *templateStep) fileLine(doc gotemplating.Document, p fieldpath.Path) string {
	part, _, ok := ts.tpl.Locate(doc.Start)
	if !ok || part.File == "" {
		return ""
	}
	b := ts.blankedDoc(doc)
	if b.doc == nil {
		return ""
	}
	key, _, found := b.doc.Spans(p)
	if !found {
		_, key, _ = b.doc.Nearest(p)
	}
	off := doc.Start + key.Start
	return fmt.Sprintf("%s line %d", part.File, 1+strings.Count(ts.tpl.Text[part.Start:min(max(off, part.Start), part.End)], "\n"))
}

// codeTemplateNoValue is the code of a place a template crd-lsp rendered
// wrote "<no value>".
const codeTemplateNoValue = "template-no-value"

// noValues reports where the go templates crd-lsp rendered in-process
// wrote "<no value>" with an example composite (a synthesised one leaves
// out every optional field: what the template writes then is not the
// Composition's mistake), on the action: a warning when what it prints
// reads the composite's spec or metadata, which the example gives as the
// cluster would; information otherwise (what it reads — composed
// resources, status, the context — may hold a value in the cluster).
// A place whose value comes from a read the static check reports
// (templateReads) is that finding's: one mistake, one finding.
func (ff *functionFindings) noValues(m map[string]any, env Env) {
	if ff.example == "" || len(ff.noValue) == 0 {
		return
	}
	idxs := make([]int, 0, len(ff.noValue))
	for i := range ff.noValue {
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	var all []*templateStep
	for _, ts := range ff.tsteps {
		all = append(all, ts)
	}
	var rs *requestShape
	for _, idx := range idxs {
		ts := ff.tsteps[idx]
		if ts == nil {
			continue
		}
		reads := gotemplating.Reads(ts.tpl)
		if rs == nil {
			rs = newRequestShape(ff.d, m, all, env)
		}
		said := rs.findings(ts, reads)
		for _, nv := range ff.noValue[idx] {
			end := actionEnd(ts.tpl, nv.Offset)
			sp, ok := ts.span(nv.Offset, end)
			if !ok {
				continue
			}
			sev, reported := severity.Info, false
			for _, r := range feeding(reads, nv, end) {
				if readsCompositeSpec(r) {
					sev = severity.Warning
				}
				for _, f := range said {
					reported = reported || f.key.Start >= r.Start && f.key.Start < r.End
				}
			}
			if reported {
				continue
			}
			msg := fmt.Sprintf("<%s> has no value (%s): function-go-templating writes \"<no value>\" here", nv.Pipe, ff.with)
			if sev == severity.Info {
				msg += ", unless what it reads holds a value in the cluster (crd-lsp renders with no composed resource, status or extra resource observed)"
			}
			ff.out = append(ff.out, Diagnostic{Span: sp, Severity: sev, Code: codeTemplateNoValue, Message: msg})
		}
	}
}

// feeding are the reads an action that wrote "<no value>" prints: those
// in it, and when it prints a variable ($x, $x.a), what was assigned
// to the variable.
func feeding(reads []gotemplating.Read, nv gotemplating.NoValue, end int) []gotemplating.Read {
	v := ""
	if strings.HasPrefix(nv.Pipe, "$") {
		v = nv.Pipe
		if i := strings.IndexAny(v, ". |"); i >= 0 {
			v = v[:i]
		}
	}
	var out []gotemplating.Read
	for _, r := range reads {
		if r.Start >= nv.Offset && r.Start < end || v != "" && v != "$" && r.Use == gotemplating.UseAssigned && r.Var == v {
			out = append(out, r)
		}
	}
	return out
}

// readsCompositeSpec says whether a read is of the composite's own
// fields (not its status, which the example need not have).
func readsCompositeSpec(r gotemplating.Read) bool {
	k := gotemplating.Keys(r.Path)
	return len(k) > 3 && k[0] == "observed" && k[1] == "composite" && k[2] == "resource" && k[3] != "status"
}

// actionEnd is where the pipeline starting at off ends: before the
// action's right delimiter (and trim marker) on that line.
func actionEnd(t gotemplating.Template, off int) int {
	if off < 0 || off > len(t.Text) {
		return off
	}
	rest := t.Text[off:]
	end := len(rest)
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		end = nl
	}
	if r := strings.Index(rest[:end], t.Right); r >= 0 {
		end = r
	}
	return off + max(1, len(strings.TrimRight(strings.TrimRight(rest[:end], " \t"), "-")))
}

// holdsNoValue says whether the value at p of a rendered object is text
// that "<no value>" was written into.
func holdsNoValue(obj map[string]any, p fieldpath.Path) bool {
	v, err := paved.Get(obj, p)
	s, _ := v.(string)
	return err == nil && strings.Contains(s, "<no value>")
}
