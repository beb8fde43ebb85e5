// This file defines completion (Complete): keys, values, kinds and apiVersions
// at the cursor, on text as it is while typing.

package analysis

import (
	"context"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// CompletionKind says what a candidate completes.
type CompletionKind int

const (
	CompleteField CompletionKind = iota
	CompleteValue
	CompleteKind
	CompleteAPIVersion
)

// Completion is one candidate at the cursor.
type Completion struct {
	Label         string
	Kind          CompletionKind
	Detail        string // the type, or the group/version
	Documentation string
	// InsertText replaces Replace; it may span lines (nested blocks and
	// list items come indented to fit).
	InsertText string
	Replace    document.Span
	SortText   string
}

// placeholder stands in for what the user is typing, so that the document
// can be parsed while it is incomplete.
const placeholder = "crdlsp__cursor"

// Complete offers keys, values, kinds and apiVersions at offset. It works
// on text as it is while typing: an empty indented line, a partial key, a
// key without a value, a new list item "- ", with syntax errors elsewhere:
// the cursor's line is rewritten into something parsable first.
func Complete(ctx context.Context, f *document.File, offset int, env Env) []Completion {
	if env.Workspace.Schemas == nil || offset < 0 || offset > len(f.Text) {
		return nil
	}
	if _, skipped := f.NotParsed(); skipped {
		return nil // over the limits: not even one line is parsed again
	}
	if out, ok := completeTemplate(ctx, f, offset, env); ok {
		return out // inside a go template (gotemplating_complete.go)
	}
	line := f.Mapper.LineOf(offset)
	lineStart := f.Mapper.LineStart(line)
	lineEnd := f.Mapper.LineEnd(line)
	prefix := string(f.Text[lineStart:offset])
	if strings.Contains(prefix, "#") {
		return nil
	}
	if i := strings.Index(prefix, ": "); i >= 0 || strings.HasSuffix(prefix, ":") {
		return completeValue(ctx, f, offset, lineStart, lineEnd, prefix, env)
	}
	return completeKey(ctx, f, offset, lineStart, lineEnd, prefix, env)
}

// partialWord is the identifier being typed at the end of prefix.
func partialWord(prefix string) string {
	i := len(prefix)
	for i > 0 {
		c := prefix[i-1]
		if c == ' ' || c == '\t' || c == '-' || c == ':' || c == '"' || c == '\'' || c == '{' || c == '[' || c == ',' {
			break
		}
		i--
	}
	return prefix[i:]
}

// reparse replaces the cursor's line by newLine and parses the document
// that holds it; it returns the document and the path of the placeholder.
func reparse(f *document.File, lineStart, lineEnd int, newLine string) (*document.Doc, fieldpath.Path, bool) {
	text := make([]byte, 0, len(f.Text)+len(newLine))
	text = append(text, f.Text[:lineStart]...)
	text = append(text, newLine...)
	text = append(text, f.Text[lineEnd:]...)
	_, d := repair(f.URI, f.Version, blankBareWords(text, lineStart), lineStart)
	if d == nil || d.Root == nil || len(d.Errors) > 0 {
		return d, nil, false
	}
	var found fieldpath.Path
	d.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
		if (k != nil && k.Value == placeholder) || (v.Kind == yaml.ScalarNode && v.Value == placeholder) {
			found = p.Child() // a copy: Walk reuses p
			return false
		}
		return found == nil
	})
	return d, found, found != nil
}

func completeKey(ctx context.Context, f *document.File, offset, lineStart, lineEnd int, prefix string, env Env) []Completion {
	word := partialWord(prefix)
	if strings.TrimSpace(prefix[:len(prefix)-len(word)]) != "" && !strings.HasSuffix(strings.TrimRight(prefix[:len(prefix)-len(word)], " "), "-") {
		return nil // something other than indentation or "- " before the word
	}
	lead := prefix[:len(prefix)-len(word)]
	d, p, ok := reparse(f, lineStart, lineEnd, lead+placeholder+": x")
	if !ok {
		return nil
	}
	parent := p.Parent()
	indent := len(lead)
	replace := document.Span{Start: offset - len(word), End: offset}
	present := map[string]bool{}
	if _, node, ok := d.Lookup(parent); ok && node.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(node.Content); i += 2 {
			present[node.Content[i].Value] = true
		}
	}
	if len(parent) == 0 && (!present["apiVersion"] || !present["kind"]) {
		// Without a kind there is no schema yet: offer the header.
		var out []Completion
		for _, k := range []string{"apiVersion", "kind"} {
			if !present[k] && strings.HasPrefix(k, word) {
				out = append(out, Completion{Label: k, Kind: CompleteField, Detail: "string", InsertText: k + ": ", Replace: replace, SortText: "0_" + k})
			}
		}
		if present["apiVersion"] && present["kind"] {
			return out
		}
		if len(out) > 0 {
			return out
		}
	}
	_, ss, rel := schemaOf(d, parent, f.URI, env)
	if ss == nil {
		return nil
	}
	node, _ := walkStructural(ss, rel)
	if node == nil {
		return nil
	}
	required := map[string]bool{}
	if node.ValueValidation != nil {
		for _, r := range node.ValueValidation.Required {
			required[r] = true
		}
	}
	for _, name := range celRequired(ss, rel) {
		required[name] = true
	}
	var out []Completion
	for name, prop := range node.Properties {
		if present[name] || !strings.HasPrefix(strings.ToLower(name), strings.ToLower(word)) {
			continue
		}
		if len(rel) == 0 && (name == "status") {
			continue // written by controllers, not users
		}
		prop := prop
		sort := "1_" + name
		detail := typeName(&prop)
		if required[name] {
			sort = "0_" + name
			detail += " (required)"
		}
		out = append(out, Completion{
			Label: name, Kind: CompleteField, Detail: detail, Documentation: prop.Description,
			InsertText: keyInsert(name, &prop, indent), Replace: replace, SortText: sort,
		})
	}
	sortCompletions(out)
	return out
}

// celRequired are the fields of the object at rel (in the schema ss) that
// CEL rules require: upjet's "spec.forProvider.region is a required
// parameter" rules, which sit on an object above the field (spec), make
// fields required that the schema's required lists leave out.
func celRequired(ss *structuralschema.Structural, rel fieldpath.Path) []string {
	var out []string
	n := ss
	for k := 0; n != nil && k <= len(rel); k++ {
		for _, r := range n.XValidations {
			sm := requiredParameter.FindStringSubmatch(r.Message)
			if sm == nil {
				continue
			}
			p, err := fieldpath.Parse(sm[1])
			if err != nil || len(p) != len(rel)+1 || !p.HasPrefix(rel) {
				continue
			}
			if last, ok := p.Last(); ok && last.Kind == fieldpath.KindField {
				out = append(out, last.Field)
			}
		}
		if k < len(rel) {
			n, _ = structural.Step(n, rel[k])
		}
	}
	return out
}

// keyInsert is the text for a key: "name: " for scalars, a nested block
// for objects and "- " for lists, indented to fit.
func keyInsert(name string, s *structuralschema.Structural, indent int) string {
	pad := strings.Repeat(" ", indent)
	switch {
	case s.Type == "object" && (len(s.Properties) > 0 || s.AdditionalProperties != nil):
		return name + ":\n" + pad + "  "
	case s.Type == "array":
		return name + ":\n" + pad + "  - "
	}
	return name + ": "
}

func completeValue(ctx context.Context, f *document.File, offset, lineStart, lineEnd int, prefix string, env Env) []Completion {
	colon := strings.Index(prefix, ":")
	keyPart := prefix[:colon]
	typed := strings.TrimLeft(prefix[colon+1:], " ")
	if out, ok := completeInString(f, offset, lineStart, lineEnd, keyPart, typed, env); ok {
		return out
	}
	if strings.ContainsAny(typed, "{[\"'") {
		return nil
	}
	replace := document.Span{Start: offset - len(typed), End: offset}
	d, p, ok := reparse(f, lineStart, lineEnd, keyPart+": "+placeholder)
	if !ok {
		return nil
	}
	var out []Completion
	add := func(label, detail string, kind CompletionKind, sortKey string) {
		if strings.HasPrefix(strings.ToLower(label), strings.ToLower(typed)) {
			out = append(out, Completion{Label: label, Kind: kind, Detail: detail, InsertText: label, Replace: replace, SortText: sortKey + label})
		}
	}
	if last, _ := p.Last(); (last.Field == "apiVersion" || last.Field == "kind") && isResourceHeader(d, p.Parent(), f.URI, env) {
		// The document's own header, or that of an embedded resource
		// (a Composition's base, a step's input): the sibling narrows it.
		sibling := "kind"
		if last.Field == "kind" {
			sibling = "apiVersion"
		}
		other := ""
		if _, v, ok := d.Lookup(p.Parent().Child(fieldpath.Field(sibling))); ok && v.Kind == yaml.ScalarNode && v.Value != placeholder {
			other = v.Value
		}
		seen := map[string]bool{}
		for _, k := range env.Workspace.Schemas.Kinds() {
			if last.Field == "apiVersion" && (other == "" || k.GVK.Kind == other) {
				if av := k.GVK.APIVersion(); !seen[av] {
					seen[av] = true
					add(av, "", CompleteAPIVersion, "1_")
				}
			}
			if last.Field == "kind" && (other == "" || k.GVK.APIVersion() == other) {
				add(k.GVK.Kind, k.GVK.APIVersion(), CompleteKind, "1_")
			}
		}
		sortCompletions(out)
		return dedupeLabels(out)
	}
	sch, ss, rel := schemaOf(d, p, f.URI, env)
	if ss == nil {
		return nil
	}
	node, _ := walkStructural(ss, rel)
	if node == nil {
		return nil
	}
	if sch.GVK.Group == "pt.fn.crossplane.io" && len(rel) >= 2 && rel[len(rel)-2].Field == "string" {
		// Accepted by the function although its CRD's enums omit them.
		switch rel[len(rel)-1].Field {
		case "type":
			add("Join", "string", CompleteValue, "0_")
			add("Replace", "string", CompleteValue, "0_")
		case "convert":
			add("ToAdler32", "string", CompleteValue, "0_")
		}
	}
	if v := node.ValueValidation; v != nil {
		for _, e := range v.Enum {
			if s, ok := e.Object.(string); ok {
				add(s, typeName(node), CompleteValue, "0_")
			} else {
				add(jsonText(e.Object), typeName(node), CompleteValue, "0_")
			}
		}
	}
	if node.Type == "boolean" {
		add("true", "boolean", CompleteValue, "0_")
		add("false", "boolean", CompleteValue, "0_")
	}
	if def := node.Default.Object; def != nil {
		if s, ok := def.(string); ok {
			add(s, "default", CompleteValue, "0_")
		} else {
			add(jsonText(def), "default", CompleteValue, "0_")
		}
	}
	sortCompletions(out)
	return dedupeLabels(out)
}

// schemaOf returns the schema that governs path p of a (re-parsed)
// document, and p relative to it (see schemaAt).
func schemaOf(d *document.Doc, p fieldpath.Path, uri string, env Env) (*schemas.Schema, *structuralschema.Structural, fieldpath.Path) {
	obj, err := d.Object()
	if err != nil {
		return nil, nil, nil
	}
	m, _ := obj.(map[string]any)
	sch, ss, rel, ok := schemaAt(d, m, p, env)
	if !ok {
		return nil, nil, nil
	}
	return sch, ss, rel
}

func sortCompletions(c []Completion) {
	sort.SliceStable(c, func(i, j int) bool { return c[i].SortText < c[j].SortText })
}

func dedupeLabels(c []Completion) []Completion {
	seen := map[string]bool{}
	out := c[:0]
	for _, x := range c {
		if !seen[x.Label] {
			seen[x.Label] = true
			out = append(out, x)
		}
	}
	return out
}

// repair parses text and, while the document holding offset has a syntax
// error on another line than offset's (the user is mid-edit elsewhere),
// comments that line out and parses again, a few times at most. Lines keep
// their length, so offsets into the repaired file are offsets into text.
func repair(uri string, version int32, text []byte, offset int) (*document.File, *document.Doc) {
	for attempt := 0; ; attempt++ {
		pf := document.Parse(uri, version, text)
		d := pf.DocAt(offset)
		if d == nil || len(d.Errors) == 0 || attempt == 6 {
			return pf, d
		}
		errLine := pf.Mapper.LineOf(d.Errors[0].Span.Start)
		if errLine == pf.Mapper.LineOf(offset) {
			return pf, d
		}
		start, end := pf.Mapper.LineStart(errLine), pf.Mapper.LineEnd(errLine)
		blank := []byte(strings.Repeat(" ", end-start))
		if end > start {
			blank[0] = '#'
		}
		text = append(append(append([]byte{}, text[:start]...), blank...), text[end:]...)
	}
}

// blankBareWords comments out lines that hold only a bare word (a key being
// typed elsewhere, "reg"), which would otherwise fold into the next line
// and break the document's structure. The cursor's line is kept.
func blankBareWords(text []byte, keep int) []byte {
	out := make([]byte, 0, len(text))
	for start := 0; start < len(text); {
		end := start
		for end < len(text) && text[end] != '\n' {
			end++
		}
		line := text[start:end]
		t := strings.TrimSpace(string(line))
		if start != keep && t != "" && !strings.ContainsAny(t, ":#-[]{}\"'|>&*!") && !strings.Contains(t, " ") && len(line) > len(t) {
			out = append(out, '#')
			out = append(out, strings.Repeat(" ", len(line)-1)...)
		} else {
			out = append(out, line...)
		}
		if end < len(text) {
			out = append(out, '\n')
		}
		start = end + 1
	}
	return out
}

// isResourceHeader reports whether path holds a Kubernetes object whose
// apiVersion and kind are being typed: the document root, or a value its
// schema marks x-kubernetes-embedded-resource.
func isResourceHeader(d *document.Doc, path fieldpath.Path, uri string, env Env) bool {
	if len(path) == 0 {
		return true
	}
	_, ss, rel := schemaOf(d, path, uri, env)
	if ss == nil {
		return false
	}
	node, _ := walkStructural(ss, rel)
	return node != nil && node.XEmbeddedResource
}
