package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/fileuri"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// crlf writes text with Windows line endings.
func crlf(text string) string { return strings.ReplaceAll(text, "\n", "\r\n") }

// TestWindowsShapedWorkspace: a workspace as a Windows user has it —
// folders with spaces and non-ASCII letters, files with CRLF line endings
// — through the built binary: the CRD on disk is found, the open file's
// findings sit on the same columns as with LF endings, hover and go to
// definition work, and the definition's URI is the one VS Code would
// write for that path.
func TestWindowsShapedWorkspace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my project", "zoë €")
	crdPath := filepath.Join(dir, "crd defs", "données.yaml")
	if err := os.MkdirAll(filepath.Dir(crdPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crdPath, []byte(crlf(dbCRD)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	obj := "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  engine: oracle\n  enginee: x\n"
	e.Open("db object ü.yaml", crlf(obj))
	diags := e.AwaitDiagnostics("db object ü.yaml", 1, 30*time.Second)
	got := map[string]protocol.Range{}
	for _, d := range diags {
		got[lsptest.Code(d)] = d.Range
	}
	// "oracle" is line 5, columns 10-16; "enginee" line 6, columns 2-9:
	// no \r counted in either.
	if r, ok := got["enum"]; !ok || r.Start != (protocol.Position{Line: 5, Character: 10}) || r.End != (protocol.Position{Line: 5, Character: 16}) {
		t.Errorf("enum finding at %v (ok %v), want 5:10-5:16; all: %v", r, ok, diags)
	}
	if r, ok := got["unknown-field"]; !ok || r.Start != (protocol.Position{Line: 6, Character: 2}) || r.End != (protocol.Position{Line: 6, Character: 9}) {
		t.Errorf("unknown-field finding at %v (ok %v), want 6:2-6:9; all: %v", r, ok, diags)
	}
	if h := e.Hover("db object ü.yaml", 5, 4); h == nil || !strings.Contains(lsptest.HoverText(h), "postgres") {
		t.Errorf("hover on engine: %+v", h)
	}
	locs := e.Definition("db object ü.yaml", 1, 8)
	if len(locs) != 1 {
		t.Fatalf("definition = %v, want the CRD", locs)
	}
	want := uri.File(crdPath) // what a VS Code-like client makes of the path
	if locs[0].URI != want || string(want) != fileuri.URI(crdPath) || locs[0].Range.Start != (protocol.Position{Line: 6, Character: 16}) {
		t.Errorf("definition at %s %v, want %s 6:16", locs[0].URI, locs[0].Range.Start, want)
	}
	if !strings.Contains(string(locs[0].URI), "zo%C3%AB%20%E2%82%AC/crd%20defs/donn%C3%A9es.yaml") {
		t.Errorf("definition URI %s is not escaped as VS Code escapes it", locs[0].URI)
	}
}
