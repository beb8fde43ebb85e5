package lsp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// threeDocs has a mis-indented key in its second document (line 12, 0-based 11).
const threeDocs = `apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  a: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
 data:
  b: "2"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: third
`

const badLine, badCol = 11, 1

func TestBinaryLifecycle(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{Dir: t.TempDir()})
	res := e.InitializeResult()
	if res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Errorf("positionEncoding = %q, want utf-16", res.Capabilities.PositionEncoding)
	}
	if res.ServerInfo.Name != "crd-lsp" {
		t.Errorf("serverInfo.name = %q", res.ServerInfo.Name)
	}
	e.AwaitSchemas(30 * time.Second)
	e.Open("three.yaml", threeDocs)
	diags := e.AwaitDiagnostics("three.yaml", 1, 10*time.Second)
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
	}
	d := diags[0]
	if d.Range.Start.Line != badLine || d.Range.Start.Character != badCol {
		t.Errorf("diagnostic at %d:%d, want %d:%d (%s)", d.Range.Start.Line, d.Range.Start.Character, badLine, badCol, lsptest.Message(d))
	}
	if src, _ := d.Source.Get(); src != "crd-lsp" || lsptest.Code(d) != "yaml-syntax" || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic = source %q code %q severity %d", src, lsptest.Code(d), d.Severity)
	}

	// Fixing the indentation with an incremental edit clears the set.
	e.Edit("three.yaml", lsptest.Edit{StartLine: badLine, StartChar: 0, EndLine: badLine, EndChar: 1, Text: ""})
	if diags := e.AwaitDiagnostics("three.yaml", 2, 10*time.Second); len(diags) != 0 {
		t.Fatalf("after the fix: %v", diags)
	}
	// Breaking it again with a full change brings it back.
	e.Change("three.yaml", strings.Replace(threeDocs, "name: third", "name: [third", 1))
	if diags := e.AwaitDiagnostics("three.yaml", 3, 10*time.Second); len(diags) != 2 {
		t.Fatalf("after the full change: %d diagnostics, want 2 (both broken documents): %v", len(diags), diags)
	}

	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	start := time.Now()
	e.Exit()
	if took := time.Since(start); took > time.Second {
		t.Errorf("exit took %v, want < 1s", took)
	}
	if e.ExitCode() != 0 {
		t.Errorf("exit code %d after shutdown, want 0", e.ExitCode())
	}
}

func TestBinaryExitWithoutShutdown(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{}, "serve")
	e.Exit()
	if e.ExitCode() != 1 {
		t.Errorf("exit code %d without shutdown, want 1", e.ExitCode())
	}
}

func TestBinarySurvivesGarbage(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{})
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	e.WriteRaw([]byte("GET / HTTP/1.1\r\n\r\n"))
	e.WriteRaw([]byte("Content-Length: lots\r\n\r\n"))
	e.WriteRaw([]byte(frame(`{"jsonrpc": "2.0", "method": `)))
	e.WriteRaw([]byte(frame(`{"just":"json"}`)))
	e.WriteRaw([]byte(frame(`[]`)))
	// A request for a method nobody implements still gets its answer.
	err := e.Call("crd-lsp/noSuchMethod", map[string]any{}, nil)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown method: err = %v, want MethodNotFound", err)
	}
	e.Open("ok.yaml", "a: [1\n")
	if diags := e.AwaitDiagnostics("ok.yaml", 1, 10*time.Second); len(diags) != 1 {
		t.Errorf("after garbage, diagnostics = %v", diags)
	}
	// Hover still answers with a result (an error response fails the test).
	e.AwaitSchemas(30 * time.Second)
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
	if h := lsptest.HoverText(e.Hover("cm.yaml", 1, 8)); !strings.Contains(h, "ConfigMap") {
		t.Errorf("hover on the kind after garbage: %q", h)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown after garbage: %v", err)
	}
	e.Exit()
	if e.ExitCode() != 0 {
		t.Errorf("exit code %d", e.ExitCode())
	}
	for _, want := range []string{"header line without ':'", "invalid Content-Length", "not a JSON-RPC message"} {
		if !strings.Contains(e.Stderr(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, e.Stderr())
		}
	}
}
