package remote

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages"
)

// Hostile schema catalogs and CRD sources (issue 35, round 4): a URL that
// redirects in a loop or off loopback, serves a gzip bomb, a 1 GB body,
// HTML, or a schema that references itself (this file; CRD sources and
// Helm charts in crdsource_hostile_test.go). Every fetch ends, holds
// little, and the error names the source.

// gzipBomb is 1 GiB of zeros gzipped (about 1 MiB), built once.
var gzipBomb = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zeros := make([]byte, 1<<20)
	for range 1024 {
		zw.Write(zeros)
	}
	zw.Close()
	return buf.Bytes()
})

// hostileURLs is a server answering each hostile path.
func hostileURLs(t *testing.T) *httptest.Server {
	bomb := gzipBomb()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/away/"):
			http.Redirect(w, r, "http://192.0.2.1:8080"+r.URL.Path, http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/bomb/"):
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		case strings.HasPrefix(r.URL.Path, "/huge/"):
			// 1 GB, streamed: what starts like a CRD and never ends.
			io.WriteString(w, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ")
			chunk := bytes.Repeat([]byte("x"), 1<<20)
			for range 1024 {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped reading
				}
			}
		case strings.HasPrefix(r.URL.Path, "/html/"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>crds.yaml · GitHub</title></head><body><pre>apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n</pre></body></html>\n")
		case strings.HasPrefix(r.URL.Path, "/selfref/"):
			io.WriteString(w, `{"$schema":"http://json-schema.org/schema#","$ref":"#","definitions":{"node":{"$ref":"#/definitions/node"}},"type":"object","properties":{"spec":{"$ref":"#","type":"object","properties":{"size":{"type":"integer"},"next":{"$ref":"#/properties/spec"}}}}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// bounded runs f, failing the test if it has not returned within limit,
// and returns the peak heap in use meanwhile (sampled every 5 ms).
func bounded(t *testing.T, limit time.Duration, f func()) uint64 {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	var peak uint64
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			runtime.ReadMemStats(&ms)
			return max(peak, ms.HeapInuse)
		case <-tick.C:
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		case <-timer.C:
			t.Fatalf("still running after %s: it hangs", limit)
			return 0
		}
	}
}

var hostileTimeouts = packages.Timeouts{Connect: time.Second, Answer: 5 * time.Second, Pull: 20 * time.Second}

// TestCatalogHostileURLs: a schema catalog location that redirects in a
// loop or off loopback, serves a gzip bomb, 1 GB or HTML fails that kind's
// fetch with the URL named, within seconds and a small heap; a schema
// whose $refs point at itself is served without them (a CRD schema has
// no $ref), its own checks kept.
func TestCatalogHostileURLs(t *testing.T) {
	srv := hostileURLs(t)
	for _, tc := range []struct{ path, want string }{
		{"loop", "stopped after 10 redirects"},
		{"away", "192.0.2.1:8080"},
		{"bomb", "larger than 16777216 bytes"},
		{"huge", "larger than 16777216 bytes"},
		{"html", "an HTML page, not a JSON Schema"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c, err := NewCatalog(CatalogOptions{Locations: []string{srv.URL + "/" + tc.path + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"}, CacheDir: t.TempDir(), Timeouts: hostileTimeouts})
			if err != nil {
				t.Fatal(err)
			}
			var ferr error
			peak := bounded(t, time.Minute, func() { _, ferr = c.Fetch(context.Background(), "example.org", "v1", "Widget") })
			t.Logf("peak heap %d MiB: %v", peak>>20, ferr)
			want := "schema catalog " + srv.URL + "/" + tc.path + "/example.org/widget_v1.json"
			if ferr == nil || !strings.Contains(ferr.Error(), want) || !strings.Contains(ferr.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and %q", ferr, want, tc.want)
			}
			if peak > 256<<20 {
				t.Errorf("peak heap %d MiB", peak>>20)
			}
		})
	}
	c, err := NewCatalog(CatalogOptions{Locations: []string{srv.URL + "/selfref/{{.ResourceKind}}.json"}, CacheDir: t.TempDir(), Timeouts: hostileTimeouts})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Fetch(context.Background(), "example.org", "v1", "Widget")
	if err != nil {
		t.Fatal(err)
	}
	if y := string(s.CRD); strings.Contains(y, "$ref") || !regexp.MustCompile(`next:\n +x-kubernetes-preserve-unknown-fields: true\n +size:\n +type: integer`).MatchString(y) {
		t.Errorf("self-referencing schema as a CRD:\n%s", y)
	}
}
