package k8srules_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/k8srules/internal/extract"
)

// TestGeneratedIsCurrent regenerates rules.json exactly as go generate does
// (k8s.io/api and k8s.io/kubernetes from the module cache, or the module
// proxy) and compares it with the committed file.
func TestGeneratedIsCurrent(t *testing.T) {
	got, err := extract.Generate()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("cannot read the modules: %v", err)
	}
	committed, err := os.ReadFile("rules.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("rules.json is stale: run go generate ./internal/k8srules")
	}
}
