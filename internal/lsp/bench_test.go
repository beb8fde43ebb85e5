package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// BenchmarkKeystrokeToDiagnostics measures the delay an editor sees from
// a didChange to the publishDiagnostics for that version (including the
// server's 15 ms debounce), on a Deployment validated against the
// built-in schemas.
//
//	go test ./internal/lsp -run '^$' -bench KeystrokeToDiagnostics
func BenchmarkKeystrokeToDiagnostics(b *testing.B) {
	e := lsptest.StartInProcess(b, lsptest.Config{Dir: b.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	base := strings.Repeat("", 0) + `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: %d
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`
	e.Open("d.yaml", fmt.Sprintf(base, 1))
	e.AwaitDiagnostics("d.yaml", 1, 10*time.Second)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Change("d.yaml", fmt.Sprintf(base, i))
		e.AwaitDiagnostics("d.yaml", e.Version("d.yaml"), 10*time.Second)
	}
}

// BenchmarkKeystrokeFunctions measures keystroke → diagnostics on a
// Composition whose pipeline runs P&T, a real function (crd-lsp's test
// function, a warm local process the server started) and P&T again: the
// whole pipeline runs twice per version (with the smallest XR and the
// workspace's example), and what it composed is validated.
//
//	go test ./internal/lsp -run '^$' -bench KeystrokeFunctions
func BenchmarkKeystrokeFunctions(b *testing.B) {
	bin := fntest.TestFunction(b)
	dir := copyPipelineTB(b)
	e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": bin}}})
	e.AwaitSchemas(30 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	e.Open("composition.yaml", string(text))
	e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second) // starts the function
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Change("composition.yaml", strings.Replace(string(text), "size: 5", fmt.Sprintf("size: %d", i+6), 1))
		if diags := e.AwaitDiagnostics("composition.yaml", e.Version("composition.yaml"), 60*time.Second); len(diags) == 0 {
			b.Fatal("no findings: the function did not run")
		}
	}
}

// BenchmarkFirstRenderFunctions measures a Composition's first
// diagnostics through a real function with a fresh server: starting the
// function process (an executable crd-lsp starts), its first answer, and
// the rendering (the server's start and schema load are not counted).
//
//	go test ./internal/lsp -run '^$' -bench FirstRenderFunctions -benchtime 10x
func BenchmarkFirstRenderFunctions(b *testing.B) {
	bin := fntest.TestFunction(b)
	dir := copyPipelineTB(b)
	text, err := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": bin}}})
		e.AwaitSchemas(30 * time.Second)
		b.StartTimer()
		e.Open("composition.yaml", string(text))
		e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second)
		b.StopTimer()
		if err := e.Shutdown(); err != nil {
			b.Fatal(err)
		}
		e.Exit()
		b.StartTimer()
	}
}
