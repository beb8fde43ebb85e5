package remote

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// TestClusterRefreshLive: a real API server (etcd and the
// apiextensions-apiserver on loopback) serving External Secrets' and
// provider-helm's real CRDs, read through a recording proxy. The first
// read lists the CRDs whole; a refresh lists only their metadata (a
// PartialObjectMetadataList, a fraction of the bytes) and downloads
// nothing unchanged; a CRD changed on the server is the only one
// downloaded again, by name; every request is a GET. With the server
// stopped, the cached copy comes back with an error naming the context,
// and a new source (the next start) reads the same copy.
func TestClusterRefreshLive(t *testing.T) {
	s := apiserver.Start(t)
	eso, err := os.ReadFile(filepath.Join("testdata", "cluster", "external-secrets.io_externalsecrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.CreateCRD(t, string(eso))
	helm := filepath.Join(corpus.Dir(t), "crds", "providers", "provider-helm", "v1.4.0", "crds")
	for _, f := range []string{"helm.crossplane.io_releases.yaml", "helm.crossplane.io_providerconfigs.yaml"} {
		b, err := os.ReadFile(filepath.Join(helm, f))
		if err != nil {
			t.Fatal(err)
		}
		s.CreateCRD(t, string(b))
	}
	rec := s.Record(t)
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	rec.Kubeconfig(t, kc, "dev-eu")
	src := ClusterSource{Kubeconfig: kc, CacheDir: filepath.Join(dir, "cache"), Timeout: time.Minute}
	names := []string{"externalsecrets.external-secrets.io", "providerconfigs.helm.crossplane.io", "releases.helm.crossplane.io"}

	onlyGets := func(what string, reqs []apiserver.Request) {
		t.Helper()
		for _, r := range reqs {
			if r.Method != http.MethodGet {
				t.Errorf("%s: %s %s reached the cluster: it must only be read", what, r.Method, r.Path)
			}
		}
	}
	first, err := src.ReadCluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.Requests()
	onlyGets("first read", reqs)
	if strings.Join(first.Downloaded, " ") != strings.Join(names, " ") || len(first.CRDs) != 3 {
		t.Errorf("first read downloaded %v, CRDs %v", first.Downloaded, first.CRDs)
	}
	if len(reqs) != 2 || reqs[0].Path != "/version" || reqs[1].Path != crdsPath || strings.Contains(reqs[1].Accept, "PartialObjectMetadata") {
		t.Errorf("first read requests: %+v", reqs)
	}
	whole := reqs[len(reqs)-1].Bytes
	for _, want := range []string{`"maxProperties":1`, `"pattern":"^[-._a-zA-Z0-9]+$"`, `"kind":"ExternalSecret"`, `"apiVersion":"apiextensions.k8s.io/v1"`} {
		if !bytes.Contains(first.YAML, []byte(want)) {
			t.Errorf("the cached CRDs lack %s", want)
		}
	}

	second, err := src.ReadCluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reqs = rec.Requests()
	onlyGets("refresh", reqs)
	if len(second.Downloaded) != 0 || !bytes.Equal(second.YAML, first.YAML) || !second.ReadAt.After(first.ReadAt) {
		t.Errorf("an unchanged refresh downloaded %v (same YAML: %v)", second.Downloaded, bytes.Equal(second.YAML, first.YAML))
	}
	if len(reqs) != 2 || reqs[1].Path != crdsPath || !strings.HasPrefix(reqs[1].Accept, "application/json;as=PartialObjectMetadataList") || reqs[1].Status != http.StatusOK {
		t.Errorf("refresh requests: %+v", reqs)
	} else if meta := reqs[1].Bytes; meta*5 > whole {
		t.Errorf("the metadata list is %d bytes, the whole list %d: not metadata only", meta, whole)
	}

	rv := s.PatchCRD(t, "releases.helm.crossplane.io", `[{"op": "add", "path": "/metadata/labels", "value": {"crd-lsp.dev/changed": "yes"}}]`)
	third, err := src.ReadCluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reqs = rec.Requests()
	onlyGets("refresh after a change", reqs)
	if strings.Join(third.Downloaded, " ") != "releases.helm.crossplane.io" {
		t.Errorf("after one CRD changed, downloaded %v", third.Downloaded)
	}
	if len(reqs) != 3 || reqs[2].Path != crdsPath+"/releases.helm.crossplane.io" {
		t.Errorf("refresh after a change requests: %+v", reqs)
	}
	if third.CRDs[2] != (ClusterCRD{"releases.helm.crossplane.io", rv}) || third.CRDs[0] != first.CRDs[0] || !bytes.Contains(third.YAML, []byte(`"crd-lsp.dev/changed":"yes"`)) {
		t.Errorf("after the change: %v", third.CRDs)
	}
	// The unchanged CRDs are the cached copy's bytes.
	before, after := first.docs(), third.docs()
	for _, n := range names[:2] {
		if !bytes.Equal(before[n].doc, after[n].doc) {
			t.Errorf("%s changed in the cache", n)
		}
	}

	s.Stop()
	cached, err := src.ReadCluster(context.Background())
	if err == nil || !strings.Contains(err.Error(), `cluster context "dev-eu" (`+rec.URL+`): `) || cached == nil || !bytes.Equal(cached.YAML, third.YAML) {
		t.Errorf("server stopped: %v, cached copy %v", err, cached != nil)
	}
	next := ClusterSource{Kubeconfig: kc, CacheDir: src.CacheDir}
	if again, err := next.CachedCluster(); err != nil || !bytes.Equal(again.YAML, third.YAML) || again.Version != third.Version || again.Version == "" {
		t.Errorf("next start: %v", err)
	}
}
