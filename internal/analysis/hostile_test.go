package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

const badXRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: xapps.example.org
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: strin}
            x-kubernetes-validations:
            - rule: self.size >
`

// TestXRDSchemaMistakesArePositioned: an XRD's schema is validated as the
// CRD Crossplane derives from it; the findings sit where the XRD says it.
func TestXRDSchemaMistakesArePositioned(t *testing.T) {
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	// (The API server compiles no CEL rule of a schema with a bad type:
	// the broken rule is found in a second XRD whose types are right.)
	second := strings.NewReplacer("xapps", "xbpps", "XApp", "XBpp", "type: strin", "type: integer").Replace(badXRD)
	f := document.Parse("file:///w/xrd.yaml", 1, []byte(badXRD+"---\n"+second))
	diags := Diagnose(context.Background(), f, Env{Schemas: store, CrossplaneMajor: 2})
	var got []string
	for _, d := range diags {
		got = append(got, d.Code+" "+string(f.Text[d.Span.Start:d.Span.End]))
	}
	want := []string{"xrd strin", "xrd self.size >"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %q, want %q: %v", got, want, diags)
	}
}
