package loader

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// TestClusterFetchSame: a refresh that reads the CRDs the cached copy
// already holds is Same — check keeps its World — and applied (as the
// editor does, for the new read time) it still serves the cluster's
// kinds, although the fetch left indexing them to WithFetched.
func TestClusterFetchSame(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
		case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","metadata":{},"items":[{"metadata":{"name":"gadgets.live.example.org","resourceVersion":"7"},` +
				`"spec":{"group":"live.example.org","scope":"Namespaced","names":{"kind":"Gadget","plural":"gadgets","singular":"gadget","listKind":"GadgetList"},` +
				`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \""+srv.URL+"\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: live\ncurrent-context: live\nusers:\n- name: u\n  user: {token: t}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Roots: []string{t.TempDir()}, ClusterSource: &remote.ClusterSource{Kubeconfig: kc, CacheDir: filepath.Join(dir, "cache"), Timeout: 30 * time.Second}}
	gadget := schemas.GVK{Group: "live.example.org", Version: "v1", Kind: "Gadget"}
	w, _, _, err := Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	w = FetchForCheck(context.Background(), w, func(p string) { t.Error(p) })
	if _, ok := w.DefaultStore().Lookup(gadget); !ok {
		t.Fatal("the first read does not serve Gadget")
	}
	// A second process: the cached copy is served at load, the read finds
	// it unchanged.
	w2, _, _, err := Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := w2.Source(SourceCluster).Fetch(context.Background(), w2)
	if !f.Same || !f.Changes() {
		t.Fatalf("fetch of an unchanged cluster: Same %v, Changes %v (%v)", f.Same, f.Changes(), f.Problems)
	}
	// The cached stream is held once: the read took the World's copy for
	// the cache file instead of reading crds.yaml a second time.
	if held, got := w2.served[SourceCluster].Inputs[0].Content, f.Served.Inputs[0].Content; unsafe.SliceData(held) != unsafe.SliceData(got) {
		t.Error("the fetch read the cached crds.yaml again: the cluster's CRDs are held twice")
	}
	if FetchForCheck(context.Background(), w2, func(p string) { t.Error(p) }) != w2 {
		t.Error("check took a new World for an unchanged cluster")
	}
	w3 := w2.WithFetched(f)
	if _, ok := w3.DefaultStore().Lookup(gadget); !ok {
		t.Fatal("the World applying an unchanged read does not serve Gadget")
	}
}
