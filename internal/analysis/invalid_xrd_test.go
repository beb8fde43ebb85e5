package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestInvalidXRDOneFinding: an XRD whose derived CRD the API server
// refuses gets its own errors; an XR of its kind gets one line saying so
// (not one per field judged by a schema Crossplane never serves), and a
// Composition for it says the XRD is invalid, not that there is none.
func TestInvalidXRDOneFinding(t *testing.T) {
	const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: networks.example.org}
spec:
  group: example.org
  names: {kind: Network, plural: networks}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cidr: {type: strin}
              region: {type: string, enum: [eu, us]}
`
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "xrd.yaml", File: "/w/xrd.yaml"}, "/w/xrd.yaml", []byte(xrd))
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}
	diag := func(path, text string) []string {
		f := document.Parse(path, 1, []byte(text))
		var out []string
		for _, d := range Diagnose(context.Background(), f, env) {
			line, col := f.Mapper.LineCol(d.Span.Start)
			out = append(out, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
		}
		return out
	}
	got := diag("/w/examples/net.yaml", "apiVersion: example.org/v1alpha1\nkind: Network\nmetadata: {name: net1, namespace: default}\nspec: {cidr: 10.0.0.0/16, region: mars, zones: [a]}\n")
	if len(got) != 1 || !strings.Contains(got[0], "warning invalid-definition not checked: the XRD xrd.yaml that defines example.org/v1alpha1 Network is invalid") {
		t.Errorf("example XR: got %q, want one invalid-definition warning", got)
	}
	got = diag("/w/composition.yaml", `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: net}
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: Network}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: cm
        base: {apiVersion: v1, kind: ConfigMap}
        patches:
        - {fromFieldPath: spec.region, toFieldPath: data.region}
`)
	want := "5:62 warning composition-schema the XRD xrd.yaml that defines example.org/v1alpha1 Network is invalid (see its own findings)"
	found := false
	for _, g := range got {
		if strings.HasPrefix(g, want) {
			found = true
		}
		if strings.Contains(g, "no XRD for") {
			t.Errorf("the Composition contradicts itself: %s", g)
		}
	}
	if !found {
		t.Errorf("composition: got %q, want %q", got, want)
	}
}
