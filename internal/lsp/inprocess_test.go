package lsp_test

import (
	"fmt"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

func TestPositionEncodingUTF8(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{PositionEncodings: []string{"utf-8", "utf-16"}})
	if got := e.InitializeResult().Capabilities.PositionEncoding; got != protocol.PositionEncodingKindUTF8 {
		t.Fatalf("positionEncoding = %q, want utf-8", got)
	}
	// "é" is 2 bytes (1 UTF-16 unit): columns count bytes. The unclosed
	// flow sequence's error spans its line, to byte 12 (11 in UTF-16);
	// the '@' no token starts with is at byte 7 (6 in UTF-16).
	for _, tc := range []struct {
		text       string
		start, end uint32
	}{
		{"café: [1, 2\n", 0, 12},
		{"café: @x\n", 7, 9},
	} {
		name := fmt.Sprintf("/tmp/utf8-%d.yaml", tc.start)
		e.Open(name, tc.text)
		diags := e.AwaitDiagnostics(name, 1, 5*time.Second)
		if len(diags) != 1 {
			t.Fatalf("%q: diagnostics = %v", tc.text, diags)
		}
		want := protocol.Range{Start: protocol.Position{Line: 0, Character: tc.start}, End: protocol.Position{Line: 0, Character: tc.end}}
		if got := diags[0].Range; got != want {
			t.Errorf("%q: diagnostic at %v, want %v", tc.text, got, want)
		}
	}
}

func TestIncrementalEditsUTF16(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{})
	e.Open("/tmp/emoji.yaml", "a: 😀x\nb: 1\n")
	if diags := e.AwaitDiagnostics("/tmp/emoji.yaml", 1, 5*time.Second); len(diags) != 0 {
		t.Fatalf("valid file has diagnostics: %v", diags)
	}
	// Replace "x" (UTF-16 column 5: 'a' ':' ' ' + 2 units of 😀) with ": [" -> a syntax error.
	e.Edit("/tmp/emoji.yaml", lsptest.Edit{StartLine: 0, StartChar: 5, EndLine: 0, EndChar: 6, Text: "\nc: [\n"})
	// The syntax error is on the edited lines: held while typing, published
	// once the typing pauses.
	e.AwaitDiagnostics("/tmp/emoji.yaml", 2, 5*time.Second)
	e.Await("the syntax error once typing pauses", 5*time.Second, func() bool { return len(e.Diagnostics("/tmp/emoji.yaml")) > 0 })
	if diags := e.Diagnostics("/tmp/emoji.yaml"); len(diags) == 0 {
		t.Fatal("no diagnostic after breaking the file")
	}
	// Undo across lines: delete from after the emoji to the start of "b".
	e.Edit("/tmp/emoji.yaml", lsptest.Edit{StartLine: 0, StartChar: 5, EndLine: 2, EndChar: 0, Text: "y\n"})
	if diags := e.AwaitDiagnostics("/tmp/emoji.yaml", 3, 5*time.Second); len(diags) != 0 {
		t.Fatalf("after repair: %v", diags)
	}
}

func TestNoStalePublish(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{})
	e.Open("/tmp/rapid.yaml", "a: 1\n")
	for i := 0; i < 20; i++ {
		text := fmt.Sprintf("a: %d\n", i)
		if i%2 == 0 {
			text = fmt.Sprintf("a: [%d\n", i)
		}
		e.Change("/tmp/rapid.yaml", text)
	}
	last := e.Version("/tmp/rapid.yaml")
	diags := e.AwaitDiagnostics("/tmp/rapid.yaml", last, 5*time.Second)
	if len(diags) != 0 {
		t.Errorf("last version is valid but has diagnostics: %v", diags)
	}
	e.AwaitIdle(5 * time.Second) // nothing older may follow
	vs := e.PublishedVersions("/tmp/rapid.yaml")
	for i := 1; i < len(vs); i++ {
		if vs[i] < vs[i-1] {
			t.Fatalf("version %d published after %d: %v", vs[i], vs[i-1], vs)
		}
	}
	if vs[len(vs)-1] != last {
		t.Errorf("last publish has version %d, want %d (%v)", vs[len(vs)-1], last, vs)
	}
}

func TestWatcherRegistrationAndUnknownRequest(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), WatchedFiles: true})
	r := e.AwaitRegistration(protocol.MethodWorkspaceDidChangeWatchedFiles, 5*time.Second)
	if len(r.RegisterOptions) == 0 {
		t.Errorf("watcher registration has no options")
	}
	if err := e.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": "file:///x.yaml"}}, nil); err == nil {
		t.Error("an unimplemented request succeeded")
	}
	// Unknown notifications are ignored; the server keeps answering.
	if err := e.Notify("crd-lsp/somethingNew", map[string]any{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	e.Exit()
	if err := e.ServeResult(5 * time.Second); err != nil {
		t.Errorf("Serve after shutdown+exit = %v, want nil", err)
	}
}
