package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// symbolReads counts the files workspace/symbol reads from disk under dir.
type symbolReads struct {
	mu    sync.Mutex
	paths []string
}

func countSymbolReads(tb testing.TB, dir string) *symbolReads {
	r := &symbolReads{}
	lsp.SetSymbolReadHook(func(p string) {
		if strings.HasPrefix(p, dir) {
			r.mu.Lock()
			r.paths = append(r.paths, filepath.Base(p))
			r.mu.Unlock()
		}
	})
	tb.Cleanup(func() { lsp.SetSymbolReadHook(nil) })
	return r
}

// take returns the files read since the last take.
func (r *symbolReads) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.paths
	r.paths = nil
	return out
}

func workspaceSymbols(tb testing.TB, e *lsptest.Editor, query string) protocol.SymbolInformationSlice {
	var res protocol.SymbolInformationSlice
	if err := e.Call(protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: query}, &res); err != nil {
		tb.Fatal(err)
	}
	return res
}

func symbolNames(res protocol.SymbolInformationSlice) map[string]string {
	got := map[string]string{}
	for _, s := range res {
		got[s.Name] = fmt.Sprintf("%s:%d:%d", filepath.Base(s.Location.URI.FsPath()), s.Location.Range.Start.Line, s.Location.Range.Start.Character)
	}
	return got
}

// TestWorkspaceSymbolsCached: a repeated workspace/symbol request gives
// the same answer without reading files unchanged on disk (their symbols
// are kept by size and modification time), a file edited on disk shows in
// the next request, and an open buffer wins over its file.
func TestWorkspaceSymbolsCached(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(name, text string, mod time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	write("crd.yaml", dbCRD, old)
	write("db.yaml", dbObject, old)
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n", old)
	reads := countSymbolReads(t, dir)
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)

	first := workspaceSymbols(t, e, "")
	if got := symbolNames(first); got["Database"] != "crd.yaml:6:16" || got["Database/orders"] != "db.yaml:1:6" || got["ConfigMap/settings"] != "cm.yaml:1:6" {
		t.Fatalf("first workspace symbols = %v", got)
	}
	if r := reads.take(); len(r) != 3 {
		t.Errorf("first request read %v, want crd.yaml, db.yaml and cm.yaml once each", r)
	}
	second := workspaceSymbols(t, e, "")
	if !reflect.DeepEqual(first, second) {
		t.Errorf("second request = %v, want the first's %v", second, first)
	}
	if r := reads.take(); len(r) != 0 {
		t.Errorf("second request read %v, want no file (none changed)", r)
	}

	// The stamp is the key: a same-size edit that keeps the modification
	// time is not seen (the file is not read again)...
	write("db.yaml", strings.Replace(dbObject, "orders", "sales1", 1), old)
	if got := symbolNames(workspaceSymbols(t, e, "datab")); got["Database/orders"] == "" || got["Database/sales1"] != "" {
		t.Errorf("symbols with db.yaml's stamp unchanged = %v, want the cached Database/orders", got)
	}
	if r := reads.take(); len(r) != 0 {
		t.Errorf("request read %v, want no file", r)
	}
	// ...and one with a new modification time shows in the next request,
	// though it changes no kind the workspace holds.
	newer := old.Add(time.Minute)
	write("db.yaml", strings.Replace(dbObject, "orders", "sales1", 1), newer)
	if got := symbolNames(workspaceSymbols(t, e, "datab")); got["Database/sales1"] != "db.yaml:1:6" || got["Database/orders"] != "" {
		t.Errorf("symbols after editing db.yaml on disk = %v, want Database/sales1 only", got)
	}
	if r := reads.take(); !reflect.DeepEqual(r, []string{"db.yaml"}) {
		t.Errorf("request read %v, want db.yaml only", r)
	}
	// A CRD's kind name edited on disk moves its location too.
	write("crd.yaml", strings.Replace(dbCRD, "names: {kind: Database,", "names: {kind:  Database,", 1), newer)
	if got := symbolNames(workspaceSymbols(t, e, "datab")); got["Database"] != "crd.yaml:6:17" {
		t.Errorf("symbols after editing crd.yaml on disk = %v, want Database at crd.yaml:6:17", got)
	}

	// An open buffer wins over the file on disk, and is never cached.
	e.Open("db.yaml", strings.Replace(dbObject, "orders", "buffer", 1))
	if got := symbolNames(workspaceSymbols(t, e, "datab")); got["Database/buffer"] == "" || got["Database/sales1"] != "" {
		t.Errorf("symbols with db.yaml open = %v, want the buffer's Database/buffer", got)
	}
	e.Close("db.yaml")
	if got := symbolNames(workspaceSymbols(t, e, "datab")); got["Database/sales1"] == "" || got["Database/buffer"] != "" {
		t.Errorf("symbols with db.yaml closed = %v, want the disk's Database/sales1", got)
	}
}

// BenchmarkWorkspaceSymbols measures one workspace/symbol request on a
// workspace of 2,000 object files: "first" with every file changed on
// disk (a new modification time) before each request, so all are read
// and parsed, as on the first request; "repeated" with none changed.
//
//	go test ./internal/lsp -run '^$' -bench WorkspaceSymbols -benchtime 20x
func BenchmarkWorkspaceSymbols(b *testing.B) {
	dir := b.TempDir()
	const n = 2000
	var paths []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("ns%02d", i%20), fmt.Sprintf("obj%04d.yaml", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-%d\n  namespace: ns%02d\ndata:\n  key: value\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata:\n      labels: {app: a}\n    spec:\n      containers:\n        - name: a\n          image: nginx:1.27\n", i, i%20, i)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	mod := time.Now().Add(-time.Hour)
	touch := func() {
		mod = mod.Add(time.Second)
		for _, p := range paths {
			if err := os.Chtimes(p, mod, mod); err != nil {
				b.Fatal(err)
			}
		}
	}
	touch()
	e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	if got := len(workspaceSymbols(b, e, "")); got < 2*n {
		b.Fatalf("%d symbols, want at least %d", got, 2*n)
	}
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			touch()
			b.StartTimer()
			workspaceSymbols(b, e, "app-1")
		}
	})
	b.Run("repeated", func(b *testing.B) {
		workspaceSymbols(b, e, "app-1")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			workspaceSymbols(b, e, "app-1")
		}
	})
}
