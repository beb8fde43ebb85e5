//go:build unix

package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestWatchedHostileFiles: watch events for a named pipe, a link to
// /dev/zero and a 400 MB file named *.yaml are handled as the workspace
// scan handles such files: not read. The server keeps answering.
func TestWatchedHostileFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Should anything still wait on the pipe, a writer releases it.
	t.Cleanup(func() {
		if w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	huge, err := os.Create(filepath.Join(dir, "huge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(400 << 20); err != nil {
		t.Fatal(err)
	}
	huge.Close()

	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(30 * time.Second)
	var events []protocol.FileEvent
	for _, name := range []string{"pipe.yaml", "zero.yaml", "huge.yaml"} {
		events = append(events, protocol.FileEvent{URI: uri.File(filepath.Join(dir, name)), Type: protocol.FileChangeTypeCreated})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Server().DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: events}); err != nil {
		t.Fatal(err)
	}
	e.Open("db.yaml", dbObject)
	if got := codes(e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)); got != "enum" {
		t.Errorf("after the watch events: diagnostics %q, want the CRD's enum finding", got)
	}
	if h := e.Hover("db.yaml", 5, 4); h == nil {
		t.Error("no hover after the watch events")
	}
}

// TestRenderCommandRefusesDevices: crdLsp.render given /dev/zero as the
// document or as the XR answers with an error at once.
func TestRenderCommandRefusesDevices(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	arg := func(v any) protocol.LSPAny { b, _ := json.Marshal(v); return b }
	var out string
	err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "crdLsp.render",
		Arguments: []protocol.LSPAny{arg("file:///dev/zero"), arg(0)}}, &out)
	if err == nil || !strings.Contains(err.Error(), "a character device, not a regular file") {
		t.Errorf("render of file:///dev/zero: %v", err)
	}
	e.Open("comp.yaml", "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}\n  mode: Pipeline\n  pipeline: []\n")
	err = e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "crdLsp.render",
		Arguments: []protocol.LSPAny{arg(e.URI("comp.yaml")), arg(1), arg("/dev/zero")}}, &out)
	if err == nil || !strings.Contains(err.Error(), "XR file: /dev/zero: a character device") {
		t.Errorf("render with XR /dev/zero: %v", err)
	}
}

// TestDeletedFolderDropsItsSchemas: an editor reports a deleted folder as
// the folder alone; the CRDs it held stop applying at once.
func TestDeletedFolderDropsItsSchemas(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	if err := os.MkdirAll(crds, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crds, "db.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	awaitCodes(t, e, "db.yaml", "enum")
	if err := os.RemoveAll(crds); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Server().DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri.File(crds), Type: protocol.FileChangeTypeDeleted},
	}}); err != nil {
		t.Fatal(err)
	}
	awaitCodes(t, e, "db.yaml", "unknown-kind")
}

// TestUnreadWorkspaceFilesAreReported: a workspace YAML file the scan
// cannot read (a link to a missing file, a named pipe; without root, a
// file without read permission) gets a diagnostic at its start saying so,
// instead of only "no schema for …" on the objects it would have defined.
func TestUnreadWorkspaceFilesAreReported(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "crd.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"crd.yaml": "no such file or directory", "pipe.yaml": "a named pipe, not a regular file"}
	if os.Geteuid() != 0 {
		if err := os.WriteFile(filepath.Join(dir, "secret.yaml"), []byte(dbCRD), 0o000); err != nil {
			t.Fatal(err)
		}
		want["secret.yaml"] = "permission denied"
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(30 * time.Second)
	for name, reason := range want {
		d := e.AwaitDiagnostics(name, 0, 10*time.Second)
		if len(d) != 1 || lsptest.Code(d[0]) != "file-not-read" || d[0].Range.Start.Line != 0 || d[0].Range.Start.Character != 0 ||
			!strings.Contains(lsptest.Message(d[0]), "did not read this file: "+reason) {
			t.Errorf("%s: %v, want file-not-read at 0:0 saying %q", name, d, reason)
		}
	}
	// Opening the file shows the buffer's own diagnostics; closing it
	// brings the problem back. Fixing the link clears it.
	e.Open("crd.yaml", dbCRD)
	if d := e.AwaitDiagnostics("crd.yaml", 1, 10*time.Second); len(d) != 0 {
		t.Errorf("open buffer: %v", d)
	}
	e.Close("crd.yaml")
	awaitCodes(t, e, "crd.yaml", "file-not-read")
	e.WriteFile("missing.yaml", dbCRD)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Server().DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: e.URI("crd.yaml"), Type: protocol.FileChangeTypeChanged},
	}}); err != nil {
		t.Fatal(err)
	}
	awaitCodes(t, e, "crd.yaml", "")
}

// TestMessagesEscapeOutsideText: file names and settings holding ESC and
// newlines reach window/logMessage and window/showMessage escaped (\x1b,
// \n): they neither recolour the editor's output panel nor forge a line.
func TestMessagesEscapeOutsideText(t *testing.T) {
	forged := "\x1b[31m\nmain.yaml:1:1: error: forged"
	dir := filepath.Join(t.TempDir(), "ws"+forged)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: x\nspec:\n  crossplane:\n    version: \">=v1.14.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "crds"+forged)
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"schemas": map[string]any{"paths": []any{missing}}}})
	loaded := e.AwaitLog("schemas loaded", 60*time.Second)
	shown := e.AwaitLog("does not exist", 30*time.Second)
	for _, l := range []string{loaded, shown} {
		if !strings.Contains(l, `\x1b[31m\nmain.yaml:1:1: error: forged`) {
			t.Errorf("message does not name the path escaped: %q", l)
		}
	}
	for _, l := range e.Log() {
		if strings.ContainsAny(l, "\x1b\n") {
			t.Errorf("message holds a raw control character: %q", l)
		}
	}
}

// TestLensTitleEscapesFileName: an example XR whose file name holds ESC
// and a newline is offered in a "Preview rendered" lens whose title names
// it escaped.
func TestLensTitleEscapesFileName(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join("..", "..", "testdata", "golden", "compositions")
	for from, to := range map[string]string{"definition.yaml": "definition.yaml", "pipeline.yaml": "pipeline.yaml", filepath.Join("examples", "xr.yaml"): filepath.Join("examples", "xr\x1b[31m\nforged.yaml")} {
		b, err := os.ReadFile(filepath.Join(golden, from))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, to), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open("pipeline.yaml", string(text))
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("pipeline.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) == 0 {
		t.Fatal("no lenses")
	}
	for _, l := range lenses {
		if strings.ContainsAny(l.Command.Title, "\x1b\n") {
			t.Errorf("lens title holds a raw control character: %q", l.Command.Title)
		}
	}
	if !strings.Contains(lenses[0].Command.Title, `xr\x1b[31m\nforged.yaml`) {
		t.Errorf("lens title %q does not name the example escaped", lenses[0].Command.Title)
	}
}

// TestDiagnosticsEscapeControlCharacters: a diagnostic quoting what a
// file holds (here an unknown kind with ESC in it) reaches the editor
// with the control characters escaped.
func TestDiagnosticsEscapeControlCharacters(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"validation": map[string]any{"unknownKind": "error"}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("x.yaml", "apiVersion: example.org/v1\nkind: \"Thing\\e[2J\\rforged\"\nmetadata:\n  name: x\n")
	diags := e.AwaitDiagnostics("x.yaml", 1, 30*time.Second)
	if len(diags) == 0 {
		t.Fatal("no diagnostics for an unknown kind")
	}
	escaped := false
	for _, d := range diags {
		msg := string(d.Message.(protocol.String))
		if strings.ContainsAny(msg, "\x1b\r") {
			t.Errorf("diagnostic holds a raw control character: %q", msg)
		}
		escaped = escaped || strings.Contains(msg, `Thing\x1b[2J\rforged`)
	}
	if !escaped {
		t.Errorf("no diagnostic names the kind escaped: %+v", diags)
	}
}
