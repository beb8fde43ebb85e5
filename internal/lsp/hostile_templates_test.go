package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestCostlyTemplateInEditor (issue 35): a go-templating template that
// calls genPrivateKey (a 4,096-bit RSA key, about a second each) in a
// loop: hover answers within 1 s while it renders, and the render stops
// at crd-lsp's 2 s limit with a warning on the template (it ran for a
// minute: the budget was checked every 64 calls).
func TestCostlyTemplateInEditor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "xrd.yaml"), []byte(xappXRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	e.Open("costly.yaml", lsptest.GoTemplatingComposition(`{{ range until 1000 }}{{ genPrivateKey "rsa" }}{{ end }}`))
	start := time.Now()
	if h := e.Hover("costly.yaml", 1, 2); h == nil || !strings.Contains(lsptest.HoverText(h), "Composition") {
		t.Errorf("hover on kind: %+v", h)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("hover answered in %s while the template rendered", d.Round(time.Millisecond))
	}
	diags := e.AwaitDiagnostics("costly.yaml", 1, 20*time.Second)
	var found bool
	for _, d := range diags {
		m := lsptest.Message(d)
		if strings.Contains(m, "crd-lsp stopped rendering the template") && strings.Contains(m, "genPrivateKey") {
			found = true
			if d.Range.Start.Line != 16 || d.Range.Start.Character != 35 {
				t.Errorf("the warning is at %d:%d, want 16:35 (genPrivateKey in the template): %s", d.Range.Start.Line, d.Range.Start.Character, m)
			}
		}
	}
	if !found {
		t.Errorf("no warning that the render stopped: %v", diagLines(diags))
	}
	t.Logf("diagnostics %s after opening", time.Since(start).Round(time.Millisecond))
}

const xappXRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
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
              size: {type: integer}
`
