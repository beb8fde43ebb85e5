// Package testfixtures writes the Crossplane objects that tests of several
// packages compose with, so each test says only what is its own: an XRD's
// group, kinds, version and schema, not the dozen lines every XRD repeats.
// It is imported by tests only.
package testfixtures

import "strings"

// XRD is a CompositeResourceDefinition of one served, referenceable
// version, named <Plural>.<Group>.
type XRD struct {
	// APIVersion is apiextensions.crossplane.io's version: "v1" or "v2".
	APIVersion   string
	Group        string
	Kind, Plural string
	// ClaimKind and ClaimPlural, when set, are its claim's names (v1).
	ClaimKind, ClaimPlural string
	// Scope, when set, is spec.scope (v2).
	Scope   string
	Version string
	// Schema is the version's openAPIV3Schema, indented by eight spaces
	// as it stands in the file (a first empty line is dropped, so a raw
	// string can start on the next line); "" is a bare "type: object".
	Schema string
}

// YAML is the XRD's text. The lines before the schema are always the
// same, so a position a test checks in the schema is the same line in
// every XRD with the same optional fields.
func (x XRD) YAML() string {
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.crossplane.io/" + x.APIVersion + "\n")
	b.WriteString("kind: CompositeResourceDefinition\n")
	b.WriteString("metadata:\n  name: " + x.Plural + "." + x.Group + "\n")
	b.WriteString("spec:\n  group: " + x.Group + "\n")
	b.WriteString("  names: {kind: " + x.Kind + ", plural: " + x.Plural + "}\n")
	if x.ClaimKind != "" {
		b.WriteString("  claimNames: {kind: " + x.ClaimKind + ", plural: " + x.ClaimPlural + "}\n")
	}
	if x.Scope != "" {
		b.WriteString("  scope: " + x.Scope + "\n")
	}
	b.WriteString("  versions:\n  - name: " + x.Version + "\n    served: true\n    referenceable: true\n")
	b.WriteString("    schema:\n      openAPIV3Schema:\n")
	if x.Schema == "" {
		b.WriteString("        type: object\n")
	} else {
		b.WriteString(strings.TrimPrefix(x.Schema, "\n"))
	}
	return b.String()
}
