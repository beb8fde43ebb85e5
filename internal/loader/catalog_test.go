package loader

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

func TestComposedKinds(t *testing.T) {
	comp := `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: cert
            base:
              apiVersion: cert-manager.io/v1
              kind: Certificate
          - name: cm
            base:
              kind: ConfigMap
              apiVersion: v1
          - name: es
            base:
              kind: ExternalSecret # the kind first
              apiVersion: "external-secrets.io/v1"
    - step: gt
      functionRef: {name: function-go-templating}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        inline:
          template: |
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            ---
            apiVersion: {{ .x }}
            kind: Templated
            spec:
              apiVersion: not.paired/v1
---
apiVersion: x.example.org/v1
data:
  kind: Config
`
	got := composedKinds(workspace.Headers([]byte(comp)), []byte(comp))
	want := []gvk.GVK{
		{Group: "apiextensions.crossplane.io", Version: "v1", Kind: "Composition"},
		{Group: "pt.fn.crossplane.io", Version: "v1beta1", Kind: "Resources"},
		{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"},
		{Group: "external-secrets.io", Version: "v1", Kind: "ExternalSecret"},
		{Group: "gotemplating.fn.crossplane.io", Version: "v1beta1", Kind: "GoTemplate"},
		{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"},
	}
	if len(got) != len(want) {
		t.Fatalf("composedKinds = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("composedKinds[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Only Compositions are scanned.
	cm := "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: |\n    apiVersion: a.b/v1\n    kind: X\n"
	if ks := composedKinds(workspace.Headers([]byte(cm)), []byte(cm)); len(ks) != 0 {
		t.Errorf("a ConfigMap: %v", ks)
	}
}
