//go:build linux

package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestServerRunsFunctionsFromPackages: with crdLsp.functionsFromPackages,
// the server pulls the package a functionsFiles Function names (crd-lsp's
// test function, packaged as crossplane xpkg build --embed-runtime-image
// lays a Function package out, on Debian's docker-registry) into the
// cacheDir, runs its program, and its results land on the step; the log
// names the digest that runs. A package whose entrypoint is a shell
// script is said once, and its step passes through with a warning.
func TestServerRunsFunctionsFromPackages(t *testing.T) {
	bin, err := os.ReadFile(fntest.TestFunction(t))
	if err != nil {
		t.Fatal(err)
	}
	reg := xpkgtest.StartDockerRegistry(t)
	cfg := ocispec.ImageConfig{Entrypoint: []string{"/function"}}
	dgst := xpkgtest.Push(t, reg.Host, "crd-lsp/function-test", "v0.1.0", xpkgtest.FunctionPackage(xpkgtest.Meta("Function", "function-test"), cfg,
		[]xpkgtest.Entry{{Name: "function", Body: bin, Mode: 0o755}}))
	xpkgtest.Push(t, reg.Host, "crd-lsp/function-script", "v0.1.0", xpkgtest.FunctionPackage(xpkgtest.Meta("Function", "function-test"), cfg,
		[]xpkgtest.Entry{{Name: "function", Body: []byte("#!/bin/sh\nexec /venv/bin/python -m function \"$@\"\n"), Mode: 0o755}}))

	run := func(t *testing.T, pkg string) (*lsptest.Editor, map[string]any) {
		dir := copyPipeline(t)
		fnFile := filepath.Join(t.TempDir(), "functions.yaml")
		if err := os.WriteFile(fnFile, []byte("apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-test}\nspec: {package: '"+pkg+"'}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		settings := map[string]any{"functionsFromPackages": true, "functionsFiles": fnFile, "cacheDir": t.TempDir(),
			"registries": map[string]any{"insecure": []string{reg.Host}}, "functionTimeout": 60}
		e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: settings})
		e.AwaitSchemas(30 * time.Second)
		text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
		e.Open("composition.yaml", string(text))
		return e, settings
	}

	t.Run("runs", func(t *testing.T) {
		e, _ := run(t, reg.Host+"/crd-lsp/function-test:v0.1.0")
		want := `32:11: warning: function-test: buckets are composed without a region [function-result]`
		e.Await("the function's results", 90*time.Second, func() bool { return hasLine(diagLines(e.Diagnostics("composition.yaml")), want) })
		e.AwaitLog("function function-test: running "+reg.Host+"/crd-lsp/function-test:v0.1.0@"+dgst+" from its package (linux/", 5*time.Second)
	})

	t.Run("cannot run here", func(t *testing.T) {
		e, settings := run(t, reg.Host+"/crd-lsp/function-script:v0.1.0")
		prefix := `32:11: warning: function-test: crd-lsp did not run it: ` + reg.Host + `/crd-lsp/function-script:v0.1.0@sha256:`
		e.Await("the step's pass-through warning", 90*time.Second, func() bool {
			for _, l := range diagLines(e.Diagnostics("composition.yaml")) {
				if strings.HasPrefix(l, prefix) && strings.Contains(l, "its entrypoint /function is a shell script") {
					return true
				}
			}
			return false
		})
		said := "crd-lsp cannot run " + reg.Host + "/crd-lsp/function-script:v0.1.0@sha256:"
		e.AwaitLog(said, 5*time.Second)

		// A settings change builds the registry again, and the package is
		// checked again: the same warning goes to the log, not to a
		// second popup.
		settings["functionTimeout"] = 61
		e.SetSettings(settings)
		e.Await("the warning said again", 90*time.Second, func() bool { return count(e.Log(), said) == 2 })
		if n := count(e.Log(), "showMessage: crd-lsp: function function-test: "+said); n != 1 {
			t.Errorf("the warning was shown %d times in a popup, want once:\n%s", n, strings.Join(e.Log(), "\n"))
		}
	})
}

// count is how many lines of the log hold substr.
func count(log []string, substr string) int {
	n := 0
	for _, l := range log {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}
