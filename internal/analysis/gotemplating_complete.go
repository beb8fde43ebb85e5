// This file completes inside a function-go-templating step's inline template
// (the block scalar of a Composition): in an action, the fields of what the
// chain being typed reads (the composite's schema after
// .observed.composite.resource., the resources the Composition composes
// after .observed.resources., a composed resource's kind); outside one, the
// keys and values of the kind the template document writes, as in plain YAML.

package analysis

import (
	"context"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// completeTemplate completes at offset when it is inside a go-templating
// step's inline template; ok is false elsewhere (the caller completes
// the YAML).
func completeTemplate(ctx context.Context, f *document.File, offset int, env Env) ([]Completion, bool) {
	d := f.DocAt(offset)
	if d == nil || d.Root == nil {
		return nil, false
	}
	if _, k, ok := d.Lookup(fieldpath.Path{fieldpath.Field("kind")}); !ok || k == nil || k.Value != "Composition" {
		return nil, false
	}
	obj, err := d.Object()
	m, _ := obj.(map[string]any)
	if err != nil || m == nil {
		return nil, false
	}
	for _, ts := range templateSteps(d, m) {
		for i, part := range ts.tpl.Parts {
			if !ts.ok[i] {
				continue
			}
			vm := ts.maps[i]
			if offset < vm.Offset(0) || offset > vm.Offset(vm.Len()) {
				continue
			}
			// The first value byte at or after the cursor.
			v := sort.Search(vm.Len()+1, func(j int) bool { return vm.Offset(j) >= offset })
			tplOff := part.Start + v
			return templateCompletions(ctx, f, d, m, ts, tplOff, env), true
		}
	}
	return nil, false
}

// templateCompletions completes at tplOff of a step's template.
func templateCompletions(ctx context.Context, f *document.File, d *document.Doc, m map[string]any, ts *templateStep, tplOff int, env Env) []Completion {
	if base, partial, from, ok := gotemplating.ChainAt(ts.tpl, tplOff); ok {
		sp, ok := ts.span(from, tplOff)
		if !ok {
			return nil
		}
		return chainCompletions(d, m, ts, base, partial, sp, env)
	}
	if inAction(ts.tpl, tplOff) {
		return functionCompletions(ts, tplOff)
	}
	for _, doc := range ts.docs {
		if tplOff < doc.Start || tplOff > doc.End {
			continue
		}
		return documentCompletions(ctx, f, ts, doc, tplOff, env)
	}
	return nil
}

// inAction says whether a template offset is inside an action.
func inAction(t gotemplating.Template, off int) bool {
	start := strings.LastIndex(t.Text[:off], t.Left)
	if start < 0 {
		return false
	}
	return !strings.Contains(t.Text[start+len(t.Left):off], t.Right)
}

// documentCompletions completes the YAML of a template document as
// Complete does a file's: the document with its actions blanked out is
// completed on its own, and what it offers is placed back in the block
// scalar (continuation lines indented as the block is).
func documentCompletions(ctx context.Context, f *document.File, ts *templateStep, doc gotemplating.Document, tplOff int, env Env) []Completion {
	text := ts.tpl.Blanked(doc.Start, doc.End)
	vf := document.Parse(f.URI, f.Version, []byte(text))
	got := Complete(ctx, vf, tplOff-doc.Start, env)
	if len(got) == 0 {
		return nil
	}
	// The block's indentation: where the cursor's template line starts
	// in the file, from the file line's start.
	ls := strings.LastIndexByte(ts.tpl.Text[:tplOff], '\n') + 1
	pad := ""
	if sp, ok := ts.span(ls, ls); ok {
		fl := f.Mapper.LineStart(f.Mapper.LineOf(sp.Start))
		pad = strings.Repeat(" ", max(0, sp.Start-fl))
	}
	out := got[:0]
	for _, c := range got {
		sp, ok := ts.span(doc.Start+c.Replace.Start, doc.Start+c.Replace.End)
		if !ok {
			continue
		}
		if c.Replace.End <= c.Replace.Start {
			sp.End = sp.Start
		}
		c.Replace = sp
		c.InsertText = strings.ReplaceAll(c.InsertText, "\n", "\n"+pad)
		out = append(out, c)
	}
	return out
}

// chainCompletions are the names a field chain may read next from the
// value at base (a path from the request's root).
func chainCompletions(d *document.Doc, m map[string]any, ts *templateStep, base []gotemplating.Key, partial string, replace document.Span, env Env) []Completion {
	var out []Completion
	add := func(name, detail, doc string) {
		if !isIdentifier(name) || !strings.HasPrefix(strings.ToLower(name), strings.ToLower(partial)) {
			return
		}
		out = append(out, Completion{Label: name, Kind: CompleteField, Detail: detail, Documentation: doc, InsertText: name, Replace: replace, SortText: "1_" + name})
	}
	keys := gotemplating.Keys(base)
	elem := false
	for _, k := range base {
		elem = elem || k.Elem
	}
	at := func(prefix ...string) bool {
		if len(keys) < len(prefix) {
			return false
		}
		for i, p := range prefix {
			if p != "*" && (base[i].Elem || keys[i] != p) {
				return false
			}
		}
		return true
	}
	switch {
	case len(keys) == 0:
		for _, n := range []string{"observed", "desired", "context", "input"} {
			add(n, "", "")
		}
	case len(keys) == 1 && (at("observed") || at("desired")):
		add("composite", "", "")
		add("resources", "", "")
	case len(keys) == 2 && (at("observed", "composite") || at("desired", "composite")):
		add("resource", "", "")
		add("connectionDetails", "", "")
	case len(keys) == 2 && (at("observed", "resources") || at("desired", "resources")):
		names := composedNames(functions.Steps(m), ts, d, m)
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			add(n, names[n], "composed resource")
		}
	case len(keys) == 3 && (at("observed", "resources", "*") || at("desired", "resources", "*")) && !base[2].Elem:
		add("resource", "", "")
		add("connectionDetails", "", "")
	case len(keys) >= 3 && (at("observed", "composite", "resource") || at("desired", "composite", "resource")):
		rs := newRequestShape(d, m, []*templateStep{ts}, env)
		if rs.xr != nil {
			schemaFields(rs.xr, base[3:], add)
		}
	case len(keys) >= 4 && (at("observed", "resources", "*", "resource") || at("desired", "resources", "*", "resource")) && !base[2].Elem:
		g := composedNames(functions.Steps(m), ts, d, m)[keys[2]]
		if g == "" || env.Workspace.Schemas == nil {
			break
		}
		av, kind, _ := strings.Cut(g, " ")
		sch, ok := nearest(env.Workspace.Schemas.Candidates(gvk.Parse(av, kind)), d.File.URI)
		if !ok {
			break
		}
		if ss, err := sch.Structural(); err == nil && ss != nil {
			schemaFields(ss, base[4:], add)
		}
	}
	sortCompletions(out)
	return dedupeLabels(out)
}

// schemaFields offers (through add) the fields of an object's schema at
// the keys below it: properties, object metadata's fields, apiVersion
// and kind at the top.
func schemaFields(root *structuralschema.Structural, keys []gotemplating.Key, add func(name, detail, doc string)) {
	if len(keys) == 0 {
		add("apiVersion", "string", "")
		add("kind", "string", "")
		add("metadata", "object", "Standard object metadata")
	} else if !keys[0].Elem && keys[0].Name == "metadata" {
		if len(keys) == 1 {
			for _, mf := range structural.ObjectMeta {
				add(mf.Name, mf.Type, "")
			}
		}
		return
	}
	node := root
	for _, k := range keys {
		if node == nil {
			return
		}
		switch {
		case k.Elem && node.Items != nil:
			node = node.Items
		case k.Elem:
			if ap := node.AdditionalProperties; ap != nil && ap.Structural != nil {
				node = ap.Structural
			} else {
				return
			}
		default:
			next, ok := structural.Step(node, fieldpath.Field(k.Name))
			if !ok || next == nil {
				return
			}
			node = next
		}
	}
	if node == nil || node.Type != "object" {
		return
	}
	for name, prop := range node.Properties {
		prop := prop
		add(name, typeName(&prop), prop.Description)
	}
}

// composedNames are the resources a Composition composes under a
// literal name, each with its "apiVersion kind" when one is known.
func composedNames(steps []functions.Step, ts *templateStep, d *document.Doc, m map[string]any) map[string]string {
	tsteps := map[int]*templateStep{}
	for _, t := range templateSteps(d, m) {
		tsteps[t.index] = t
	}
	tsteps[ts.index] = ts
	out := map[string]string{}
	for _, st := range steps {
		single := []functions.Step{st}
		kinds := composedKinds(single, tsteps)
		for n, g := range kinds {
			desc := ""
			if g.Kind != "" {
				desc = g.APIVersion() + " " + g.Kind
			}
			if old, ok := out[n]; ok && old != desc {
				desc = ""
			}
			out[n] = desc
		}
	}
	return out
}

// isIdentifier says whether a name can be read as a field in a chain.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// functionCompletions are the template functions whose names start with
// the word typed at tplOff inside an action (a word that is not a field
// chain: no "." or "$" in it).
func functionCompletions(ts *templateStep, tplOff int) []Completion {
	text := ts.tpl.Text
	start := tplOff
	for start > 0 && (text[start-1] == '_' || text[start-1] >= 'a' && text[start-1] <= 'z' || text[start-1] >= 'A' && text[start-1] <= 'Z' || text[start-1] >= '0' && text[start-1] <= '9') {
		start--
	}
	if start > 0 && (text[start-1] == '.' || text[start-1] == '$') {
		return nil
	}
	word := text[start:tplOff]
	sp, ok := ts.span(start, tplOff)
	if !ok {
		return nil
	}
	if word == "" {
		sp.End = sp.Start
	}
	var out []Completion
	for _, n := range gotemplating.FunctionNames() {
		if strings.HasPrefix(n, word) {
			out = append(out, Completion{Label: n, Kind: CompleteValue, Detail: "template function", InsertText: n, Replace: sp, SortText: "2_" + n})
		}
	}
	return out
}
