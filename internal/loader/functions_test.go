package loader_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// TestFunctionOf: a step's functionRef.name leads to the function's
// package through a Function object of the workspace (the nearest one
// when several share the name) or, without one, through a function
// dependency of the nearest crossplane.yaml, named as Crossplane's
// package manager names it.
func TestFunctionOf(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("crossplane.yaml", `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata: {name: c}
spec:
  dependsOn:
  - function: xpkg.upbound.io/crossplane-contrib/function-kcl
    version: v0.11.0
  - provider: xpkg.upbound.io/upbound/provider-aws-s3
    version: v1
`)
	write("a/functions.yaml", "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: fn}\nspec: {package: 'xpkg.crossplane.io/x/function-a:v1'}\n")
	write("b/functions.yaml", "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: fn}\nspec: {package: 'xpkg.crossplane.io/x/function-b@sha256:0123'}\n")
	w, _, _, err := loader.Load(context.Background(), loader.Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	env := w.Env(filepath.Join(dir, "b", "composition.yaml"))
	if sf, ok := env.Workspace.FunctionOf("fn"); !ok || sf.Package != "xpkg.crossplane.io/x/function-b" || sf.From != "functions.yaml" {
		t.Errorf("fn from b = %+v, %v", sf, ok)
	}
	if sf, ok := env.Workspace.FunctionOf("crossplane-contrib-function-kcl"); !ok || sf.Package != "xpkg.upbound.io/crossplane-contrib/function-kcl" || sf.From != "../crossplane.yaml" {
		t.Errorf("kcl dependency = %+v, %v", sf, ok)
	}
	if sf, ok := env.Workspace.FunctionOf("upbound-provider-aws-s3"); ok {
		t.Errorf("a provider dependency named a function: %+v", sf)
	}
	// Project files are package roots too: a function dependency of an
	// upbound.yaml or a crossplane-project.yaml names the step's function
	// (before, only crossplane.yaml was read).
	write("up/upbound.yaml", `apiVersion: meta.dev.upbound.io/v2alpha1
kind: Project
metadata: {name: p}
spec:
  dependsOn:
  - function: xpkg.upbound.io/crossplane-contrib/function-go-templating
    version: '>=v0.9.0'
`)
	write("cp/crossplane-project.yaml", `apiVersion: dev.crossplane.io/v1alpha1
kind: Project
metadata: {name: p}
spec:
  dependencies:
  - type: xpkg
    xpkg: {apiVersion: pkg.crossplane.io/v1, kind: Function, package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready, version: v0.5.1}
`)
	w, _, _, err = loader.Load(context.Background(), loader.Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	env = w.Env(filepath.Join(dir, "up", "apis", "composition.yaml"))
	if sf, ok := env.Workspace.FunctionOf("crossplane-contrib-function-go-templating"); !ok || sf.Package != "xpkg.upbound.io/crossplane-contrib/function-go-templating" || sf.From != "../upbound.yaml" {
		t.Errorf("upbound.yaml dependency = %+v, %v", sf, ok)
	}
	env = w.Env(filepath.Join(dir, "cp", "composition.yaml"))
	if sf, ok := env.Workspace.FunctionOf("crossplane-contrib-function-auto-ready"); !ok || sf.Package != "xpkg.crossplane.io/crossplane-contrib/function-auto-ready" || sf.From != "crossplane-project.yaml" {
		t.Errorf("crossplane-project.yaml dependency = %+v, %v", sf, ok)
	}
	if got := loader.ToDNSLabel("crossplane-contrib/function-patch-and-transform"); got != "crossplane-contrib-function-patch-and-transform" {
		t.Errorf("ToDNSLabel = %q", got)
	}
}

// TestPackageFunctions: the Functions crd-lsp may run from their packages
// are the workspace's Function objects naming a package (not Development
// ones), then the crossplane.yaml's function dependencies, named as
// Crossplane's package manager names them, at an exact version (a range
// needs the package cache, which this World has not).
func TestPackageFunctions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"crossplane.yaml": `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata: {name: c}
spec:
  dependsOn:
  - function: xpkg.crossplane.io/crossplane-contrib/function-auto-ready
    version: v0.5.1
  - function: xpkg.crossplane.io/crossplane-contrib/function-kcl
    version: '>=v0.11.0'
  - function: xpkg.crossplane.io/crossplane-contrib/function-go-templating
    version: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
  - function: xpkg.crossplane.io/x/fn
    version: v9.9.9
  - provider: xpkg.upbound.io/upbound/provider-aws-s3
    version: v1.0.0
`,
		"functions.yaml": devFunction + "---\napiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: x-fn}\nspec: {package: 'example.org/x/fn:v1.0.0'}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, _, _, err := loader.Load(context.Background(), loader.Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fn := range w.PackageFunctions() {
		got = append(got, fn.Name+"="+fn.Package)
	}
	want := []string{
		"x-fn=example.org/x/fn:v1.0.0", // the workspace's Function wins over the dependency of its name
		"crossplane-contrib-function-auto-ready=xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.1",
		"crossplane-contrib-function-go-templating=xpkg.crossplane.io/crossplane-contrib/function-go-templating@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PackageFunctions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
