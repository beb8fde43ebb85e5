package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestNonFileWorkspaceFolders: a workspace folder that is not a file: URI
// (vscode-vfs://, http://) names nothing on this machine, and the root of
// the filesystem is every YAML file on it: each is ignored with a message,
// and nothing under the path it would map to is read. (A vscode-vfs URI
// whose path is a real folder holding a CRD proves it: the CRD must not
// validate the workspace's object.)
func TestNonFileWorkspaceFolders(t *testing.T) {
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	before := codes(e.AwaitSettled("db.yaml", 30*time.Second))

	vfs := uri.URI("vscode-vfs://github" + filepath.ToSlash(elsewhere))
	added := []protocol.WorkspaceFolder{
		{URI: vfs, Name: "remote"},
		{URI: "http://example.com/", Name: "web"},
		{URI: "file:///", Name: "root"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Server().DidChangeWorkspaceFolders(ctx, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{Added: added}}); err != nil {
		t.Fatal(err)
	}
	e.AwaitLog("ignoring workspace folder "+string(vfs)+": crd-lsp reads only folders on this machine (file: URIs)", 10*time.Second)
	e.AwaitLog("ignoring workspace folder http://example.com/: crd-lsp reads only folders on this machine", 10*time.Second)
	e.AwaitLog("ignoring workspace folder file:///: it is the root of the filesystem", 10*time.Second)
	e.AwaitIdle(30 * time.Second)
	if after := codes(e.Diagnostics("db.yaml")); after != before || strings.Contains(after, "enum") {
		t.Errorf("diagnostics of db.yaml went from %q to %q after non-file folders were added: a CRD outside the workspace was read", before, after)
	}
}

// TestFolderChurnCoalescesLoads: a client adding and removing a folder in a
// loop while a load runs causes one more load, not one per change (each
// load holds a workspace in memory until it is done).
func TestFolderChurnCoalescesLoads(t *testing.T) {
	other := t.TempDir()
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	e.AwaitIdle(30 * time.Second)

	var loads atomic.Int64
	entered, release := make(chan struct{}, 1), make(chan struct{})
	lsp.SetLoadHook(func() {
		if loads.Add(1) == 1 {
			entered <- struct{}{}
			<-release
		}
	})
	t.Cleanup(func() { lsp.SetLoadHook(nil) })

	folder := []protocol.WorkspaceFolder{{URI: uri.File(other), Name: "other"}}
	change := func(ev protocol.WorkspaceFoldersChangeEvent) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := e.Server().DidChangeWorkspaceFolders(ctx, &protocol.DidChangeWorkspaceFoldersParams{Event: ev}); err != nil {
			t.Fatal(err)
		}
	}
	change(protocol.WorkspaceFoldersChangeEvent{Added: folder})
	testfixtures.Await(t, entered, "the load the added folder starts")
	const churn = 100
	for range churn {
		change(protocol.WorkspaceFoldersChangeEvent{Removed: folder})
		change(protocol.WorkspaceFoldersChangeEvent{Added: folder})
	}
	// Notifications are handled in order before any later request: once
	// this hover is answered, every change above has been seen.
	e.Hover("nothing.yaml", 0, 0)
	close(release)
	e.AwaitIdle(60 * time.Second)
	if n := loads.Load(); n != 2 {
		t.Errorf("%d workspace loads for %d folder changes made while one load ran, want 2 (that one and one after it)", n, 2*churn)
	}
}
