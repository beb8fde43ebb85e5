package lsptest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// threeDocs reads the golden input whose second document is mis-indented
// and returns it with the position (0-based line, byte column) its diag
// marker names.
func threeDocs(t *testing.T) (text string, line, col int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(syntaxDir, "three-docs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := lsptest.ParseMarkers(string(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Verb == "diag" {
			return string(b), m.Line, m.Col
		}
	}
	t.Fatal("three-docs.yaml has no diag marker")
	return
}

// TestInProcessSession drives the editor features other tests rely on:
// configuration pulls answered from Settings, dynamic registration,
// recorded events, incremental edits, close, and a clean Serve return.
func TestInProcessSession(t *testing.T) {
	text, line, _ := threeDocs(t)
	e := lsptest.StartInProcess(t, lsptest.Config{
		Dir:          t.TempDir(),
		Folders:      []string{t.TempDir()},
		Settings:     map[string]any{"validation": map[string]any{"unknownKind": "error"}},
		WatchedFiles: true,
	})
	if e.Encoding() != lsptest.UTF16 {
		t.Errorf("encoding = %q", e.Encoding())
	}
	e.AwaitRegistration(protocol.MethodWorkspaceDidChangeWatchedFiles, 5*time.Second)
	cfg := e.AwaitEvent(protocol.MethodWorkspaceConfiguration, 5*time.Second)
	if !strings.Contains(string(cfg.Params), `"crdLsp"`) || !cfg.IsCall {
		t.Errorf("configuration request = %+v", cfg)
	}
	e.AwaitSchemas(30 * time.Second)
	if len(e.Log()) == 0 {
		t.Error("no log messages recorded")
	}

	e.Open("three.yaml", text)
	if d := e.AwaitDiagnostics("three.yaml", 1, 5*time.Second); len(d) != 1 {
		t.Fatalf("diagnostics = %v", d)
	}
	// Remove the stray space with an incremental edit.
	e.Edit("three.yaml", lsptest.Edit{StartLine: line, StartChar: 0, EndLine: line, EndChar: 1})
	if d := e.AwaitDiagnostics("three.yaml", 2, 5*time.Second); len(d) != 0 {
		t.Fatalf("after the edit: %v", d)
	}
	// The settings apply: an unknown kind is an error, then ignored.
	e.Change("three.yaml", "apiVersion: example.org/v1\nkind: Nope\n")
	d := e.AwaitDiagnostics("three.yaml", 3, 5*time.Second)
	if len(d) != 1 || lsptest.Code(d[0]) != "unknown-kind" || d[0].Severity != protocol.DiagnosticSeverityError {
		t.Fatalf("unknown kind: %v", d)
	}
	n := len(e.Events(protocol.MethodWorkspaceConfiguration))
	e.SetSettings(map[string]any{"validation": map[string]any{"unknownKind": "ignore"}})
	if d := e.AwaitSettled("three.yaml", 5*time.Second); len(d) != 0 {
		t.Fatalf("unknownKind=ignore not applied: %v", d)
	}
	if m := len(e.Events(protocol.MethodWorkspaceConfiguration)); m <= n {
		t.Errorf("SetSettings caused no configuration pull (%d → %d)", n, m)
	}
	for _, ev := range e.Events("") {
		if !json.Valid(ev.Params) && len(ev.Params) > 0 {
			t.Errorf("%s params are not JSON: %q", ev.Method, ev.Params)
		}
	}

	e.Close("three.yaml")
	e.Await("a clearing publish after close", 5*time.Second, func() bool {
		vs := e.PublishedVersions("three.yaml")
		return vs[len(vs)-1] == -1
	})
	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	e.Exit()
	if err := e.ServeResult(5 * time.Second); err != nil {
		t.Errorf("Serve = %v, want nil after shutdown+exit", err)
	}
}
