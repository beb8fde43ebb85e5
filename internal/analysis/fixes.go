package analysis

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Edit replaces Span with NewText.
type Edit struct {
	Span    document.Span
	NewText string
}

// Fix is a quick fix for a diagnostic.
type Fix struct {
	Title     string
	Diagnosis Diagnostic // the diagnostic it fixes
	Edits     []Edit
	Preferred bool
}

var didYouMean = regexp.MustCompile(`unknown field "([^"]*)"; did you mean "([^"]*)"`)
var didYouMeanField = regexp.MustCompile(`does not exist.*; did you mean "([^"]*)"[?]$`)
var missingField = regexp.MustCompile(`missing required field "([^"]*)"`)

// QuickFixes returns fixes for the diagnostics that overlap span: "Change
// to X" for an unknown field with a close match, and "Add missing required
// fields" for an object that lacks some.
func QuickFixes(ctx context.Context, f *document.File, span document.Span, env Env) []Fix {
	var out []Fix
	missing := map[document.Span][]string{}
	var missingDiags = map[document.Span]Diagnostic{}
	for _, d := range Diagnose(ctx, f, env) {
		if d.Span.End < span.Start || d.Span.Start > span.End {
			continue
		}
		switch d.Code {
		case "fieldpath-unknown":
			if m := didYouMeanField.FindStringSubmatch(d.Message); m != nil {
				out = append(out, Fix{Title: fmt.Sprintf("Change to %q", m[1]), Diagnosis: d, Preferred: true,
					Edits: []Edit{{Span: d.Span, NewText: m[1]}}})
			}
		case "unknown-field":
			if m := didYouMean.FindStringSubmatch(d.Message); m != nil {
				out = append(out, Fix{Title: fmt.Sprintf("Change to %q", m[2]), Diagnosis: d, Preferred: true,
					Edits: []Edit{{Span: d.Span, NewText: m[2]}}})
			}
		case "required":
			if m := missingField.FindStringSubmatch(d.Message); m != nil {
				missing[d.Span] = append(missing[d.Span], m[1])
				missingDiags[d.Span] = d
			}
		case "render-required":
			// A field nothing sets, reported on the base's key that should
			// hold it: add it to the base.
			if name, ok := renderedMissingChild(f, d, env); ok {
				missing[d.Span] = append(missing[d.Span], name)
				missingDiags[d.Span] = d
			}
		}
	}
	for sp, fields := range missing {
		if e, ok := insertFields(f, sp, fields, env); ok {
			title := "Add missing required field " + fields[0]
			if len(fields) > 1 {
				title = "Add missing required fields " + strings.Join(fields, ", ")
			}
			out = append(out, Fix{Title: title, Diagnosis: missingDiags[sp], Edits: []Edit{e}})
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

var renderedMissing = regexp.MustCompile(`^(\S+) is required by \S+, but neither the base nor any patch sets it`)

// renderedMissingChild returns the field a render-required diagnostic
// asks for when it belongs directly in the object whose key the
// diagnostic is on (relative to the base's own schema).
func renderedMissingChild(f *document.File, d Diagnostic, env Env) (string, bool) {
	m := renderedMissing.FindStringSubmatch(d.Message)
	if m == nil {
		return "", false
	}
	missing, err := fieldpath.Parse(m[1])
	if err != nil || len(missing) == 0 {
		return "", false
	}
	hit, ok := f.At(d.Span.Start)
	if !ok || !hit.OnKey {
		return "", false
	}
	_, _, rel := schemaOf(hit.Doc, hit.Path, f.URI, env)
	last, _ := missing.Last()
	if rel == nil || !missing.Parent().Equal(rel) || last.Kind != fieldpath.KindField {
		return "", false
	}
	return last.Field, true
}
