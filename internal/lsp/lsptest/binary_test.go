package lsptest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
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

func TestBinaryLifecycle(t *testing.T) {
	text, line, col := threeDocs(t)
	e := lsptest.StartBinary(t, lsptest.Config{Dir: t.TempDir()})
	if got := e.InitializeResult().Capabilities.PositionEncoding; got != protocol.PositionEncodingKindUTF16 {
		t.Errorf("positionEncoding = %q, want utf-16", got)
	}
	if got := e.InitializeResult().ServerInfo.Name; got != "crd-lsp" {
		t.Errorf("serverInfo.name = %q", got)
	}

	e.Open("three.yaml", text)
	diags := e.AwaitDiagnostics("three.yaml", 1, 10*time.Second)
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1:\n%s", len(diags), lsptest.FormatDiagnostics(text, e.Encoding(), diags))
	}
	d := diags[0]
	lineText := strings.Split(text, "\n")[line]
	if int(d.Range.Start.Line) != line || int(d.Range.Start.Character) != lsptest.CharColumn(lineText, col, e.Encoding()) {
		t.Errorf("diagnostic starts at %d:%d, want %d:%d", d.Range.Start.Line, d.Range.Start.Character, line, col)
	}
	if src, _ := d.Source.Get(); src != "crd-lsp" || lsptest.Code(d) != "yaml-syntax" || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic: source %q, code %q, severity %s", src, lsptest.Code(d), lsptest.SeverityName(d.Severity))
	}

	fixed := strings.Replace(text, "\n data:", "\ndata:", 1)
	if fixed == text {
		t.Fatal("three-docs.yaml no longer has the ' data:' line")
	}
	e.Change("three.yaml", fixed)
	diags = e.AwaitDiagnostics("three.yaml", 2, 10*time.Second)
	if diags == nil || len(diags) != 0 {
		t.Fatalf("after the fix: %#v, want an empty set", diags)
	}

	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	start := time.Now()
	e.Exit()
	if took := time.Since(start); took > time.Second {
		t.Errorf("the process took %v to exit, want < 1s", took)
	}
	if code := e.ExitCode(); code != 0 {
		t.Errorf("exit code %d after shutdown+exit, want 0", code)
	}
}

func TestBinaryExitWithoutShutdown(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{}, "serve")
	e.Exit()
	if code := e.ExitCode(); code != 1 {
		t.Errorf("exit code %d after exit without shutdown, want 1", code)
	}
}

func TestBinarySurvivesGarbage(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{Dir: t.TempDir()})
	frame := func(body string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)) }
	e.WriteRaw([]byte("this is not a header\r\n\r\n"))
	e.WriteRaw([]byte("Content-Length: twelve\r\n\r\n"))
	e.WriteRaw(frame(`{"jsonrpc":"2.0","method":`))
	e.WriteRaw(frame(`{"hello":"world"}`))
	e.WriteRaw(frame(`[1,2,3]`))

	e.Open("ok.yaml", "a: 1\n")
	e.AwaitDiagnostics("ok.yaml", 1, 10*time.Second)
	var hover *protocol.Hover
	params := &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("ok.yaml")},
		Position:     protocol.Position{Line: 0, Character: 0},
	}}
	// An answer is what counts: a result, or an error response (hover may
	// not be implemented yet), not a broken connection or a timeout.
	if err := e.Call(protocol.MethodTextDocumentHover, params, &hover); err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("hover after garbage: %v", err)
		}
		t.Logf("hover answered with an error response: %v", err)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown after garbage: %v", err)
	}
	e.Exit()
	if code := e.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}
