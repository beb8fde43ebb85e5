package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

var claimXRD = testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", ClaimKind: "Database", ClaimPlural: "databases", Version: "v1alpha1"}.YAML()

// TestUnknownCompositeType: a compositeTypeRef naming a kind no XRD
// defines is a warning in every pipeline (before issue 22, silent
// without P&T patches), with what was probably meant: a near spelling,
// the composite kind of a claim kind, or the versions the XRD serves.
func TestUnknownCompositeType(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "xrd.yaml", File: "/w/xrd.yaml"}, "/w/xrd.yaml", []byte(claimXRD))
	for _, c := range []struct{ ref, want string }{
		{"{apiVersion: example.org/v1alpha1, kind: XDatabse}", `warning composition-schema no XRD for example.org/v1alpha1 XDatabse in the workspace; did you mean "XDatabase"?`},
		{"{apiVersion: example.org/v1alpha1, kind: Database}", `warning composition-schema no XRD for example.org/v1alpha1 Database in the workspace: Database is a claim kind; a Composition names its composite kind, XDatabase`},
		{"{apiVersion: example.org/v1, kind: XDatabase}", `warning composition-schema no XRD for example.org/v1 XDatabase in the workspace: the workspace's XRD defines XDatabase only as v1alpha1`},
		{"{apiVersion: example.org/v1alpha1, kind: XDatabase}", ``},
	} {
		text := "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: " + c.ref +
			"\n  mode: Pipeline\n  pipeline:\n  - step: t\n    functionRef: {name: function-kcl}\n"
		f := document.Parse("file:///w/c.yaml", 1, []byte(text))
		var got []string
		for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}) {
			if d.Code == "composition-schema" {
				got = append(got, d.Severity.String()+" "+d.Code+" "+d.Message)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.ref, strings.Join(got, "\n"), c.want)
		}
	}
}

// TestBaseVersionNotServed: a base at a version no schema serves says
// which versions are (before, only "no schema").
func TestBaseVersionNotServed(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	text := `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: deploy
        base: {apiVersion: apps/v1beta1, kind: Deployment}
`
	f := document.Parse("file:///w/c.yaml", 1, []byte(text))
	var got []string
	for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}) {
		if strings.Contains(d.Message, "Deployment") {
			got = append(got, d.Severity.String()+" "+d.Message)
		}
	}
	if len(got) != 1 || got[0] != "warning no schema for apps/v1beta1 Deployment (Deployment is served as v1 only): this resource's patches are not checked against it" {
		t.Errorf("got %q", got)
	}
}

// TestNamedPath: a finding whose path is not in the text names the
// resource template by its name, not its index (issue 22).
func TestNamedPath(t *testing.T) {
	text := `spec:
  pipeline:
  - step: pt
    input:
      resources:
      - name: vpc
      - name: xNetwork
        patches: []
`
	f := document.Parse("file:///w/c.yaml", 1, []byte(text))
	p, err := fieldpath.Parse("spec.pipeline[0].input.resources[1].base.spec.forProvider.region")
	if err != nil {
		t.Fatal(err)
	}
	dg := diagnosticAt(f.Docs[0], p, false, severity.Error, "x", "missing")
	if dg.Message != `resource "xNetwork", base.spec.forProvider.region: missing` {
		t.Errorf("message %q", dg.Message)
	}
	if line, _ := f.Mapper.LineCol(dg.Span.Start); line != 7 {
		t.Errorf("placed on line %d, want the template's (7)", line)
	}
}
