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
