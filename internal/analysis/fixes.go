// This file defines quick fixes (QuickFixes): a suggested replacement, and
// adding missing required fields.

package analysis

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// Edit replaces Span with NewText.
type Edit struct {
	Span    document.Span
	NewText string
}

// Fix is a quick fix for a diagnostic.
type Fix struct {
	Title     string
	Fixes     Diagnostic // the diagnostic it fixes
	Edits     []Edit
	Preferred bool
}

// QuickFixes returns the fixes of the findings in diags (those published
// for f, or sent back by the client as published) that overlap span, from
// the data they carry: "Change to X" for a Replace, and "Add missing
// required fields" for the Missing fields of the findings on one key.
func QuickFixes(f *document.File, span document.Span, diags []Diagnostic, env Env) []Fix {
	var out []Fix
	var keys []document.Span // in order of first appearance
	missing := map[document.Span][]string{}
	missingDiags := map[document.Span]Diagnostic{}
	for _, d := range diags {
		if d.Span.End < span.Start || d.Span.Start > span.End {
			continue
		}
		if d.Replace != "" {
			out = append(out, Fix{Title: fmt.Sprintf("Change to %q", d.Replace), Fixes: d, Preferred: true,
				Edits: []Edit{{Span: d.Span, NewText: d.Replace}}})
		}
		if d.Missing != "" && !slices.Contains(missing[d.Span], d.Missing) {
			if _, ok := missing[d.Span]; !ok {
				keys = append(keys, d.Span)
				missingDiags[d.Span] = d
			}
			missing[d.Span] = append(missing[d.Span], d.Missing)
		}
	}
	for _, sp := range keys {
		fields := missing[sp]
		if e, ok := insertFields(f, sp, fields, env); ok {
			title := "Add missing required field " + fields[0]
			if len(fields) > 1 {
				title = "Add missing required fields " + strings.Join(fields, ", ")
			}
			out = append(out, Fix{Title: title, Fixes: missingDiags[sp], Edits: []Edit{e}})
		}
	}
	return out
}

// insertFields adds "name: <placeholder>" lines for fields to the object
// whose key is at sp, indented like its existing children.
func insertFields(f *document.File, sp document.Span, fields []string, env Env) (Edit, bool) {
	hit, ok := f.At(sp.Start)
	if !ok || !hit.OnKey || hit.Key == nil {
		return Edit{}, false
	}
	indent := hit.Key.Column - 1 + 2
	val := hit.Value
	if val.Kind == yaml.MappingNode && len(val.Content) > 0 {
		indent = val.Content[0].Column - 1
	}
	if val.Kind != yaml.MappingNode && !(val.Kind == yaml.ScalarNode && val.Tag == "!!null") {
		return Edit{}, false
	}
	if val.Kind == yaml.MappingNode && val.Style&yaml.FlowStyle != 0 {
		return Edit{}, false // flow mappings ({a: 1}) are left to the user
	}
	var ss *structuralschema.Structural
	if _, s, rel := schemaOf(hit.Doc, hit.Path, f.URI, env); s != nil {
		ss, _ = walkStructural(s, rel)
	}
	var b strings.Builder
	for _, name := range fields {
		var prop *structuralschema.Structural
		if ss != nil {
			if p, ok := ss.Properties[name]; ok {
				prop = &p
			}
		}
		b.WriteString("\n" + strings.Repeat(" ", indent) + name + ":" + placeholderValue(prop, indent))
	}
	// Insert at the end of the key's line (the object's children follow).
	keyEnd := f.NodeSpan(hit.Key).End
	lineEnd := f.Mapper.LineEnd(f.Mapper.LineOf(keyEnd))
	return Edit{Span: document.Span{Start: lineEnd, End: lineEnd}, NewText: b.String()}, true
}

// placeholderValue is a typed value that makes the intent obvious.
func placeholderValue(s *structuralschema.Structural, indent int) string {
	if s == nil {
		return ` ""`
	}
	if v := s.ValueValidation; v != nil && len(v.Enum) > 0 {
		return " " + jsonText(v.Enum[0].Object)
	}
	if s.Default.Object != nil {
		return " " + jsonText(s.Default.Object)
	}
	switch s.Type {
	case "integer", "number":
		return " 0"
	case "boolean":
		return " false"
	case "array":
		return " []"
	case "object":
		return " {}"
	}
	return ` ""`
}
