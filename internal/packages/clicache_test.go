package packages

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestCLICacheName: the file names crossplane-runtime's FsPackageCache
// gives packages (FriendlyID's cases in crossplane-runtime's own tests,
// with the cache's .gz extension).
func TestCLICacheName(t *testing.T) {
	for _, c := range []struct{ pkg, hash, want string }{
		{"provider-aws", "1234567", "provider-aws-1234567"},
		{"provider-aws-plusabunchofothernonsensethatisgoingtogetslicedoff", "1234567", "provider-aws-plusabunchofothernonsensethatisgoingt-1234567"},
		{"provider-aws", "1234567891234567", "provider-aws-123456789123"},
		{"provider.aws-plusabunchofothernonsensethatisgoingtogetslicedoff", "1234.567891234567", "provider-aws-plusabunchofothernonsensethatisgoingt-1234-5678912"},
		{"provider-in-cluster", "provider-in-cluster", "provider-in-cluster-provider-in"},
		{"xpkg.crossplane.io/crossplane-contrib/provider-nop", "sha256:abcdef0123", "xpkg-crossplane-io-crossplane-contrib-provider-nop-sha256-abcde"},
	} {
		if got := cliCacheName(c.pkg, c.hash); got != c.want+".gz" {
			t.Errorf("cliCacheName(%q, %q) = %q, want %q", c.pkg, c.hash, got, c.want+".gz")
		}
	}
}

// TestCLICacheReuse: a package the Crossplane CLI already pulled (its
// package.yaml gzipped in the CLI's cache under the digest its tag
// resolves to) is not pulled again: the registry answers the tag, no blob
// is fetched, and the package lands in crd-lsp's cache. Without the CLI's
// copy the layer is pulled.
func TestCLICacheReuse(t *testing.T) {
	var blobs atomic.Int64
	e := newEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
				blobs.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	yml := provider("provider-widgets", "Widget")
	dgst := e.push("acme/provider-widgets", "v1.0.0", xpkgtest.XPkg(yml))
	cli := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(yml)
	zw.Close()
	if err := os.WriteFile(filepath.Join(cli, cliCacheName(e.host+"/acme/provider-widgets", dgst)), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c := e.client(func(o *Options) { o.CLICacheDir = cli })
	rs := c.Resolve(context.Background(), []Dependency{e.dep("acme/provider-widgets", ">=v1.0.0")})
	if len(rs) != 1 || rs[0].Err != nil || rs[0].Package == nil || crdNames(rs[0].Package) != "widgets.example.org" {
		t.Fatalf("results = %+v", rs)
	}
	if n := blobs.Load(); n != 0 {
		t.Errorf("%d blobs fetched, want none (the CLI's cache has the package)", n)
	}
	// crd-lsp's cache holds it now: served offline.
	if rs := e.client(func(o *Options) { o.CLICacheDir = "-" }).Cached([]Dependency{e.dep("acme/provider-widgets", ">=v1.0.0")}); rs[0].Package == nil {
		t.Errorf("not in crd-lsp's cache afterwards: %+v", rs[0])
	}

	e2 := newEnv(t, nil)
	e2.push("acme/provider-widgets", "v1.0.0", xpkgtest.XPkg(yml))
	rs = e2.client(func(o *Options) { o.CLICacheDir = t.TempDir() }).Resolve(context.Background(), []Dependency{e2.dep("acme/provider-widgets", ">=v1.0.0")})
	if rs[0].Package == nil {
		t.Fatalf("without the CLI's copy: %+v", rs[0])
	}
}
