package lsp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestRemoteSourcesHangEditor: crdLsp.schemaCatalogs and crdLsp.crdSources
// name servers that accept the request, send headers and then nothing.
// While both fetches wait, the workspace CRD's diagnostics arrive and
// hover answers within 1 s; ending the session abandons both requests
// (their connections close) and Serve returns.
func TestRemoteSourcesHangEditor(t *testing.T) {
	var mu sync.Mutex
	started, ended := map[string]bool{}, map[string]chan struct{}{"catalog": make(chan struct{}), "crds": make(chan struct{})}
	startedAll := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		which := "catalog"
		if strings.HasSuffix(r.URL.Path, "crds.yaml") {
			which = "crds"
		}
		mu.Lock()
		first := !started[which]
		started[which] = true
		if first && len(started) == 2 {
			close(startedAll)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("apiVersion: apiextensions.k8s.io/v1\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		if first {
			close(ended[which])
		}
	}))
	defer func() { srv.CloseClientConnections(); srv.Close() }() // Close alone waits for the hanging answers
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{
		"cacheDir":       t.TempDir(),
		"schemaCatalogs": []string{srv.URL + "/{{.Group}}/{{.ResourceKind}}.json"},
		"crdSources":     []string{srv.URL + "/crds.yaml"},
	}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("widget.yaml", "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\n")
	select {
	case <-startedAll:
	case <-time.After(30 * time.Second):
		t.Fatalf("the catalog and CRD source were not both asked within 30 s: %v", started)
	}
	e.Open("db.yaml", dbObject)
	if got := codes(e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)); got != "enum" {
		t.Errorf("while the fetches hang: diagnostics %q, want the workspace CRD's enum finding", got)
	}
	start := time.Now()
	if h := e.Hover("db.yaml", 5, 4); h == nil {
		t.Error("no hover while the fetches hang")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("hover took %s while the fetches hang", d)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	e.Exit()
	if err := e.ServeResult(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	for which, ch := range ended {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("the %s request is still open 10 s after the session ended", which)
		}
	}
}
