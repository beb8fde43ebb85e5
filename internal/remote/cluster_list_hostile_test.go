//go:build unix

package remote

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestClusterResourceVersionChurn: a server whose every CRD has a new
// resourceVersion on every request. Each refresh is one request set (the
// version, a metadata list, one whole list): it downloads everything
// again but never loops.
func TestClusterResourceVersionChurn(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path == "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
		case r.URL.Path == crdsPath:
			var items []string
			for i := range 100 {
				items = append(items, fmt.Sprintf(`{"metadata":{"name":"c%03d.example.org","resourceVersion":"%d"},"spec":{"group":"example.org"}}`, i, n))
			}
			fmt.Fprintf(w, `{"kind":"CustomResourceDefinitionList","metadata":{},"items":[%s]}`, strings.Join(items, ","))
		case strings.HasPrefix(r.URL.Path, crdsPath+"/"):
			fmt.Fprintf(w, `{"metadata":{"name":%q,"resourceVersion":"%d"},"spec":{}}`, strings.TrimPrefix(r.URL.Path, crdsPath+"/"), n)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src := ClusterSource{Kubeconfig: hostileKubeconfig(t, srv.URL, "    token: t\n"), CacheDir: t.TempDir(), Timeout: 5 * time.Second}
	for i := range 3 {
		calls.Store(0)
		snap, err, _ := readBounded(t, src, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.CRDs) != 100 {
			t.Errorf("refresh %d: %d CRDs", i, len(snap.CRDs))
		}
		if n := calls.Load(); n > 3 {
			t.Errorf("refresh %d: %d requests, want at most 3", i, n)
		}
	}
}

// TestClusterMalformedAnswers: truncated JSON, a list of another kind,
// items of another kind, a CRD without a name, and an endless chain of
// pages each fail the read with a message naming the context and the
// answer; duplicate names keep one CRD; a CRD whose schema nests 4,000
// levels deep is cached as sent.
func TestClusterMalformedAnswers(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 4000) + `{"type":"string"}` + strings.Repeat(`}}`, 4000)
	for _, tc := range []struct {
		name string
		list func(w http.ResponseWriter, r *http.Request)
		want string // in the error; "" for a read that succeeds
		crds int
	}{
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","items":[{"metadata":{"name":"a.example.org"},"spec":{"gro`))
		}, "the CustomResourceDefinition list: the answer ends early", 0},
		{"list of pods", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"web-0"},"spec":{"containers":[]}}]}`))
		}, `the CustomResourceDefinition list: the server answered a PodList`, 0},
		{"items of another kind", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{}}]}`))
		}, `the CustomResourceDefinition list: "cm" is a v1 ConfigMap`, 0},
		{"no name", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","items":[{"metadata":{},"spec":{}}]}`))
		}, "a CustomResourceDefinition without a name", 0},
		{"endless pages", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"kind":"CustomResourceDefinitionList","metadata":{"continue":"x%s"},"items":[]}`, r.URL.Query().Get("continue"))
		}, "pages", 0},
		{"duplicate names", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","items":[{"metadata":{"name":"a.example.org","resourceVersion":"1"},"spec":{"n":1}},{"metadata":{"name":"a.example.org","resourceVersion":"2"},"spec":{"n":2}}]}`))
		}, "", 1},
		{"null items", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","metadata":{},"items":null}`))
		}, "", 0},
		{"deep schema", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"kind":"CustomResourceDefinitionList","items":[{"metadata":{"name":"deep.example.org"},"spec":{"group":"example.org","versions":[{"name":"v1","schema":{"openAPIV3Schema":%s}}]}}]}`, deep)
		}, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/version":
					w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
				case crdsPath:
					tc.list(w, r)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			src := ClusterSource{Kubeconfig: hostileKubeconfig(t, srv.URL, "    token: t\n"), CacheDir: t.TempDir(), Timeout: 5 * time.Second}
			snap, err, _ := readBounded(t, src, 30*time.Second)
			if tc.want == "" {
				if err != nil || len(snap.CRDs) != tc.crds {
					t.Fatalf("%v, snapshot %+v", err, snap)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), `cluster context "hostile" (`+srv.URL+`): `) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming the context and %q", err, tc.want)
			}
		})
	}
}

// TestClusterHugeList: 100,000 CRDs over 200 pages, streamed by the
// handler, are read (a few bytes each); a 300 MB list — one page, or
// endless pages of 8 MiB each — is refused once the read passes the
// refresh's cap, without holding the rest, naming the context.
func TestClusterHugeList(t *testing.T) {
	const perPage, pages = 500, 200
	var served atomic.Int64
	var mode atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
			return
		}
		if r.URL.Path != crdsPath {
			http.NotFound(w, r)
			return
		}
		cw := &countingWriter{w: w, n: &served}
		page := 0
		fmt.Sscan(r.URL.Query().Get("continue"), &page)
		switch mode.Load() {
		case 0: // 100,000 small CRDs
			next := ""
			if page+1 < pages {
				next = fmt.Sprint(page + 1)
			}
			fmt.Fprintf(cw, `{"kind":"CustomResourceDefinitionList","metadata":{"continue":%q},"items":[`, next)
			for i := range perPage {
				if i > 0 {
					io.WriteString(cw, ",")
				}
				fmt.Fprintf(cw, `{"metadata":{"name":"c%06d.example.org","resourceVersion":"1"},"spec":{"group":"example.org"}}`, page*perPage+i)
			}
			io.WriteString(cw, "]}")
		case 1: // one 300 MB page
			writeBigPage(cw, 0, 300<<20, "")
		case 2: // endless pages of 8 MiB
			writeBigPage(cw, page, 8<<20, fmt.Sprint(page+1))
		}
	}))
	defer srv.Close()
	src := ClusterSource{Kubeconfig: hostileKubeconfig(t, srv.URL, "    token: t\n"), CacheDir: t.TempDir(), Timeout: 60 * time.Second}
	snap, err, alloc := readBounded(t, src, 2*time.Minute)
	if err != nil || len(snap.CRDs) != perPage*pages {
		t.Fatalf("100,000 CRDs: %v", err)
	}
	t.Logf("100,000 CRDs: %d MiB served, peak heap %d MiB", served.Load()>>20, alloc>>20)

	for m, name := range map[int32]string{1: "one 300 MB page", 2: "endless 8 MiB pages"} {
		mode.Store(m)
		served.Store(0)
		src.CacheDir = t.TempDir()
		_, err, alloc := readBounded(t, src, 2*time.Minute)
		t.Logf("%s: %d MiB served, peak heap %d MiB: %v", name, served.Load()>>20, alloc>>20, err)
		if err == nil || !strings.Contains(err.Error(), `cluster context "hostile" (`+srv.URL+`): `) || !strings.Contains(err.Error(), "MiB") {
			t.Errorf("%s: %v", name, err)
		}
		if alloc > 1<<30 {
			t.Errorf("%s: the read needed a heap of %d MiB", name, alloc>>20)
		}
	}
}

// writeBigPage writes a CRD list page of about size bytes: CRDs of 64 KiB
// each (a long description), continuing to next.
func writeBigPage(w io.Writer, page, size int, next string) {
	fmt.Fprintf(w, `{"kind":"CustomResourceDefinitionList","metadata":{"continue":%q},"items":[`, next)
	desc := `"},"spec":{"description":"` + strings.Repeat("x", 64<<10) + `"}}`
	for i := 0; i*(64<<10) < size; i++ {
		if i > 0 {
			io.WriteString(w, ",")
		}
		fmt.Fprintf(w, `{"metadata":{"name":"p%d-c%d.example.org`, page, i)
		if _, err := io.WriteString(w, desc); err != nil {
			return // the client stopped reading
		}
	}
	io.WriteString(w, "]}")
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
