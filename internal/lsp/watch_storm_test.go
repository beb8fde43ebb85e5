package lsp_test

import (
	"context"
	"fmt"
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

// stormSession is a workspace with the Database CRD and its object open
// (one enum finding), and a watched-file worker held at its first batch
// until release is closed.
type stormSession struct {
	e       *lsptest.Editor
	dir     string
	batches atomic.Int64
	events  atomic.Int64
	release chan struct{}
}

func startStorm(t *testing.T, settings map[string]any) *stormSession {
	t.Helper()
	st := &stormSession{dir: t.TempDir(), release: make(chan struct{})}
	if err := os.WriteFile(filepath.Join(st.dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	st.e = lsptest.StartInProcess(t, lsptest.Config{Dir: st.dir, WatchedFiles: true, Settings: settings})
	st.e.AwaitSchemas(30 * time.Second)
	st.e.Open("db.yaml", dbObject)
	awaitCodes(t, st.e, "db.yaml", "enum")
	entered := make(chan struct{}, 1)
	lsp.SetWatchHook(func(n int) {
		st.events.Add(int64(n))
		if st.batches.Add(1) == 1 {
			entered <- struct{}{}
			<-st.release
		}
	})
	t.Cleanup(func() {
		select {
		case <-st.release:
		default:
			close(st.release)
		}
		lsp.SetWatchHook(nil)
	})
	// The first event starts the worker, which holds.
	st.notify(t, protocol.FileEvent{URI: uri.File(filepath.Join(st.dir, "crd.yaml")), Type: protocol.FileChangeTypeChanged})
	testfixtures.Await(t, entered, "the watch worker to take the first event")
	return st
}

func (st *stormSession) notify(t *testing.T, evs ...protocol.FileEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.e.Server().DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: evs}); err != nil {
		t.Fatal(err)
	}
}

func (st *stormSession) write(t *testing.T, name, text string) {
	t.Helper()
	p := filepath.Join(st.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchStormKeepsAnswering: while watched-file events pour in (10,000
// in one notification, 3,000 renames one by one, a CRD rewritten between
// under and over crdLsp.schemas.maxFileSize with an event each time) and
// the files they name are being read, hover answers; the events coalesce
// into one more batch once the one in hand is done, and the workspace ends
// as the disk is: the object validated against the CRD's last version.
func TestWatchStormKeepsAnswering(t *testing.T) {
	st := startStorm(t, map[string]any{"schemas": map[string]any{"maxFileSize": 4096}})
	e := st.e
	const many, renames = 10_000, 3_000
	var evs []protocol.FileEvent
	for i := range many {
		evs = append(evs, protocol.FileEvent{URI: uri.File(filepath.Join(st.dir, "gen", fmt.Sprintf("m%05d.yaml", i))), Type: protocol.FileChangeTypeCreated})
	}
	st.notify(t, evs...)
	for i := range renames {
		st.write(t, fmt.Sprintf("new/cm%04d.yaml", i), fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n", i))
		st.notify(t,
			protocol.FileEvent{URI: uri.File(filepath.Join(st.dir, "old", fmt.Sprintf("cm%04d.yaml", i))), Type: protocol.FileChangeTypeDeleted},
			protocol.FileEvent{URI: uri.File(filepath.Join(st.dir, fmt.Sprintf("new/cm%04d.yaml", i))), Type: protocol.FileChangeTypeCreated})
	}
	crd := filepath.Join(st.dir, "crd.yaml")
	oracle := strings.Replace(dbCRD, "[postgres, mysql]", "[postgres, mysql, oracle]", 1)
	for i := range 200 {
		text := oracle
		if i%2 == 0 {
			text = dbCRD + "# " + strings.Repeat("x", 8192) + "\n" // over the 4096-byte limit
		}
		st.write(t, "crd.yaml", text)
		st.notify(t, protocol.FileEvent{URI: uri.File(crd), Type: protocol.FileChangeTypeChanged})
	}
	// The storm is all handled (notifications run in order before a later
	// request), the worker still holds its first batch: hover answers.
	if h := e.Hover("db.yaml", 1, 7); h == nil || !strings.Contains(lsptest.HoverText(h), "Database") {
		t.Errorf("hover on the kind during the storm: %+v", h)
	}
	close(st.release)
	awaitCodes(t, e, "db.yaml", "") // the last CRD allows oracle
	e.AwaitIdle(60 * time.Second)
	if n := st.batches.Load(); n != 2 {
		t.Errorf("%d watched-file batches, want 2: the one in hand and one for everything that came meanwhile", n)
	}
	// crd.yaml in each batch, every other path once.
	if want := int64(2 + many + 2*renames); st.events.Load() != want {
		t.Errorf("%d file events read, want %d (one per path and batch)", st.events.Load(), want)
	}
	if d := e.Diagnostics("crd.yaml"); len(d) != 0 {
		t.Errorf("crd.yaml is under the limit at last, yet: %v", d)
	}
}

// TestShutdownDuringWatchStorm: shutdown is answered while the files of a
// storm are still being read, and exit ends the session.
func TestShutdownDuringWatchStorm(t *testing.T) {
	st := startStorm(t, nil)
	for i := range 1000 {
		st.notify(t, protocol.FileEvent{URI: uri.File(filepath.Join(st.dir, fmt.Sprintf("f%d.yaml", i))), Type: protocol.FileChangeTypeCreated})
	}
	if err := st.e.Shutdown(); err != nil {
		t.Fatalf("shutdown during a watch storm: %v", err)
	}
	close(st.release)
	st.e.Exit()
	if err := st.e.ServeResult(30 * time.Second); err != nil {
		t.Errorf("Serve after shutdown and exit during a storm: %v", err)
	}
}
