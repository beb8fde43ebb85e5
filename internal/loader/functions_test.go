package loader_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/loader"
)

const devFunction = `apiVersion: pkg.crossplane.io/v1beta1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: localhost:9999
spec:
  package: xpkg.crossplane.io/crd-lsp/function-test:v0.1.0
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-function
`

// TestWorldFunctions: the workspace's Function objects are found by the
// load and follow edits of their file; ReadFunctions reads a file as
// crossplane render --functions does.
func TestWorldFunctions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "functions.yaml")
	if err := os.WriteFile(p, []byte(devFunction), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, _, err := loader.Load(context.Background(), loader.Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	fns := w.Functions()
	if len(fns) != 1 || fns[0].Name != "function-test" || fns[0].Annotations["render.crossplane.io/runtime-development-target"] != "localhost:9999" {
		t.Fatalf("Functions() = %+v", fns)
	}
	if got := w.WithFile(p, []byte("apiVersion: v1\nkind: ConfigMap\n")).Functions(); len(got) != 0 {
		t.Errorf("after the Function was removed: %+v", got)
	}
	if got := w.WithFile(p, nil).Functions(); len(got) != 0 {
		t.Errorf("after the file was deleted: %+v", got)
	}
	if len(w.Functions()) != 1 {
		t.Error("WithFile changed the World it was called on")
	}
	read, err := loader.ReadFunctions(p)
	if err != nil || len(read) != 1 || read[0].Package != "xpkg.crossplane.io/crd-lsp/function-test:v0.1.0" {
		t.Errorf("ReadFunctions = %+v, %v", read, err)
	}
	if _, err := loader.ReadFunctions(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("ReadFunctions of a missing file succeeded")
	}
}
