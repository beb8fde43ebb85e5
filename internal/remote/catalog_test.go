package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// catalogFixture serves testdata/catalog (verbatim datreeio/CRDs-catalog
// files) on loopback, counting requests; down makes it answer 503.
func catalogFixture(t *testing.T) (srv *httptest.Server, requests *atomic.Int64, down *atomic.Bool) {
	requests, down = &atomic.Int64{}, &atomic.Bool{}
	files := http.FileServer(http.Dir(filepath.Join("testdata", "catalog")))
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, requests, down
}

func TestCatalogFetchCacheRefresh(t *testing.T) {
	srv, requests, down := catalogFixture(t)
	loc := srv.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
	cacheDir := t.TempDir()
	newCat := func(refresh time.Duration) *Catalog {
		c, err := NewCatalog(CatalogOptions{Locations: []string{loc}, CacheDir: cacheDir, Refresh: refresh})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newCat(0)
	ctx := context.Background()

	if _, ok := c.Cached("cert-manager.io", "v1", "Certificate"); ok {
		t.Fatal("cached before any fetch")
	}
	s, err := c.Fetch(ctx, "cert-manager.io", "v1", "Certificate")
	if err != nil || s.URL != srv.URL+"/cert-manager.io/certificate_v1.json" {
		t.Fatalf("fetch: %v %+v", err, s.URL)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(s.CRD, &crd); err != nil || !strings.Contains(string(s.CRD), "kind: Certificate") || !IsCatalogCRD(s.CRD) {
		t.Fatalf("CRD: %v\n%.400s", err, s.CRD)
	}
	if strings.Contains(string(s.CRD), "additionalProperties: false") {
		t.Error("additionalProperties: false kept (not allowed beside properties in a CRD)")
	}
	// A kind the catalog lacks: a miss, remembered.
	if _, err := c.Fetch(ctx, "cert-manager.io", "v1", "Nothing"); !errors.Is(err, ErrNotInCatalog) {
		t.Fatalf("missing kind: %v", err)
	}
	n := requests.Load()
	if n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	// Fresh: neither is asked again; Cached serves the schema.
	if _, err := c.Fetch(ctx, "cert-manager.io", "v1", "Certificate"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fetch(ctx, "cert-manager.io", "v1", "Nothing"); !errors.Is(err, ErrNotInCatalog) {
		t.Fatal(err)
	}
	if _, ok := c.Cached("cert-manager.io", "v1", "Certificate"); !ok || requests.Load() != n {
		t.Fatalf("fresh answers asked again (%d requests) or not cached", requests.Load())
	}
	// Stale (refresh 1ns) and the catalog down: the cached copy is served.
	down.Store(true)
	stale := newCat(time.Nanosecond)
	if s, err := stale.Fetch(ctx, "cert-manager.io", "v1", "Certificate"); err != nil || s.CRD == nil {
		t.Fatalf("stale with the catalog down: %v", err)
	}
	if requests.Load() != n+1 {
		t.Errorf("the stale answer was not asked again (%d requests)", requests.Load())
	}
	// Nothing cached and the catalog down: an error naming the location.
	if _, err := stale.Fetch(ctx, "cert-manager.io", "v1", "Issuer"); err == nil || !strings.Contains(err.Error(), "issuer_v1.json") || !strings.Contains(err.Error(), "503") {
		t.Errorf("down, not cached: %v", err)
	}
}

func TestCatalogFileLocationAndTemplates(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("testdata", "catalog"))
	for _, loc := range []string{abs + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json", "file://" + abs + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"} {
		c, err := NewCatalog(CatalogOptions{Locations: []string{loc}, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := c.Cached("cert-manager.io", "v1", "Issuer"); !ok || !strings.Contains(string(s.CRD), "kind: Issuer") {
			t.Errorf("%s: not served", loc)
		}
		if _, err := c.Fetch(context.Background(), "cert-manager.io", "v1", "Gone"); !errors.Is(err, ErrNotInCatalog) {
			t.Errorf("%s: %v", loc, err)
		}
	}
	if _, err := NewCatalog(CatalogOptions{Locations: []string{"https://x/{{.Group"}, CacheDir: t.TempDir()}); err == nil {
		t.Error("a bad template was accepted")
	}
	c, _ := NewCatalog(CatalogOptions{Locations: []string{"https://h/{{.NormalizedKubernetesVersion}}/{{.ResourceKind}}{{.KindSuffix}}.json", "https://h/{{.Nope}}"}, CacheDir: t.TempDir()})
	if _, err := c.Expand("apps", "v1", "Deployment"); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("unknown variable: %v", err)
	}
	c, _ = NewCatalog(CatalogOptions{Locations: []string{"https://h/{{.NormalizedKubernetesVersion}}/{{.ResourceKind}}{{.KindSuffix}}.json"}, CacheDir: t.TempDir()})
	if got, _ := c.Expand("apps", "v1", "Deployment"); got[0] != "https://h/master/deployment-apps-v1.json" {
		t.Errorf("kubeconform variables: %v", got)
	}
}

// TestCatalogSanitize: JSON Schema forms a CRD schema lacks become their
// nearest structural equivalent, never a stricter one.
func TestCatalogSanitize(t *testing.T) {
	in := `{"type":"object","$schema":"x","properties":{"spec":{"type":"object","additionalProperties":false,"properties":{
		"a":{"type":["string","null"]},
		"b":{"type":["integer","string"]},
		"c":{"type":"object","additionalProperties":true},
		"d":{"anyOf":[{"type":"string","description":"x"},{"type":"object"}]}}}}}`
	crd, err := catalogCRD("example.org", "v1", "Thing", "loc", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nullable: true", "x-kubernetes-int-or-string: true", "x-kubernetes-preserve-unknown-fields: true", "name: things.example.org"} {
		if !strings.Contains(string(crd), want) {
			t.Errorf("CRD lacks %q:\n%s", want, crd)
		}
	}
	for _, bad := range []string{"$schema", "additionalProperties", "description: x"} {
		if strings.Contains(string(crd), bad) {
			t.Errorf("CRD keeps %q:\n%s", bad, crd)
		}
	}
	if _, err := catalogCRD("g", "v1", "K", "loc", []byte("<html>")); err == nil {
		t.Error("not JSON accepted")
	}
}
