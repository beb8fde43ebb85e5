package testfixtures

import "strings"

// Composition is a Composition in Pipeline mode: its name, the composite
// it composes and its pipeline's steps.
type Composition struct {
	Name string
	// XRAPIVersion and XRKind are its compositeTypeRef.
	XRAPIVersion, XRKind string
	// FlowRef writes the compositeTypeRef on one line,
	// {apiVersion: …, kind: …}, rather than as two lines below it.
	FlowRef bool
	// Steps are the items of spec.pipeline, indented as they stand in the
	// file (a first empty line is dropped, so a raw string can start on
	// the next line).
	Steps string
}

// YAML is the Composition's text; the lines before the steps depend only
// on the name, the compositeTypeRef and FlowRef.
func (c Composition) YAML() string {
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\n")
	b.WriteString("metadata:\n  name: " + c.Name + "\nspec:\n")
	if c.FlowRef {
		b.WriteString("  compositeTypeRef: {apiVersion: " + c.XRAPIVersion + ", kind: " + c.XRKind + "}\n")
	} else {
		b.WriteString("  compositeTypeRef:\n    apiVersion: " + c.XRAPIVersion + "\n    kind: " + c.XRKind + "\n")
	}
	b.WriteString("  mode: Pipeline\n  pipeline:\n")
	b.WriteString(strings.TrimPrefix(c.Steps, "\n"))
	return b.String()
}
