package remote

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestClusterCacheHostile: the cluster cache's two files (crds.yaml, then
// cluster.json) written by several writers at once, read all the while,
// and cut short. A read either refuses the cache, saying why, or returns a
// snapshot whose definitions are the ones its list of resourceVersions was
// written with — never one writer's list with another's definitions, which
// would keep stale definitions past every later refresh (issue 35 round 4).
func TestClusterCacheHostile(t *testing.T) {
	dir := t.TempDir()
	const writers, rounds = 4, 150
	snapshot := func(w, i int) *ClusterSnapshot {
		name := fmt.Sprintf("w%d-r%d.example.org", w, i)
		// Sizes differ between writers so a cut-short or mixed pair is
		// not the same length by chance.
		body := strings.Repeat(`{"metadata":{"name":"`+name+`"}}`+"\n---\n", 1+w*7)
		return &ClusterSnapshot{Context: "dev", CRDs: []ClusterCRD{{Name: name, ResourceVersion: fmt.Sprint(i)}}, YAML: []byte(body)}
	}
	if err := writeSnapshot(dir, snapshot(0, 0), nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if err := writeSnapshot(dir, snapshot(w, i), nil); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	var mixed, served, refused int
	var readers sync.WaitGroup
	var mu sync.Mutex
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				snap, err := readSnapshot(dir, nil)
				mu.Lock()
				switch {
				case err != nil:
					refused++
					if !strings.Contains(err.Error(), "cluster cache") && !os.IsNotExist(err) {
						t.Errorf("a refused cache does not say what it is: %v", err)
					}
				case !bytes.Contains(snap.YAML, []byte(`"name":"`+snap.CRDs[0].Name+`"`)):
					mixed++
				default:
					served++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()
	t.Logf("%d reads served, %d refused, %d mixed", served, refused, mixed)
	if mixed > 0 {
		t.Errorf("%d reads paired one writer's resourceVersions with another's definitions", mixed)
	}
	if served == 0 {
		t.Error("no read was served: the check refuses consistent caches too")
	}

	// Whatever the last writer left is consistent and served.
	if _, err := readSnapshot(dir, nil); err != nil {
		t.Fatalf("the cache after the writers: %v", err)
	}
	// Cut short: refused, saying so.
	path := filepath.Join(dir, "crds.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readSnapshot(dir, nil); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("a crds.yaml cut short was served (err %v)", err)
	}
}

// TestClusterReadHolding: a caller holding the cached crds.yaml (the
// loader serves it) refreshes an unchanged cluster without a second copy:
// the snapshot's YAML is the held slice itself. A held stream that is not
// the cache's, or a cache whose crds.yaml is gone, is read as before.
func TestClusterReadHolding(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.1"}`))
		case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
			w.Write([]byte(`{"metadata":{},"items":[{"metadata":{"name":"as.example.org","resourceVersion":"9"},"spec":{"group":"example.org"}}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer func() { srv.CloseClientConnections(); srv.Close() }()
	kc := hostileKubeconfig(t, srv.URL, "    token: t\n")
	src := ClusterSource{Kubeconfig: kc, CacheDir: filepath.Join(t.TempDir(), "cache"), Timeout: 30 * time.Second}
	first, err := src.ReadCluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	held := bytes.Clone(first.YAML)
	again, err := src.ReadClusterHolding(context.Background(), held)
	if err != nil || len(again.Downloaded) != 0 {
		t.Fatalf("refresh: %v, downloaded %v", err, again.Downloaded)
	}
	if unsafe.SliceData(again.YAML) != unsafe.SliceData(held) {
		t.Error("an unchanged refresh read crds.yaml again instead of the held copy")
	}
	// Another stream held (a changed cache, another cluster's): ignored.
	other := append(bytes.Clone(held[:len(held)-1]), ' ', '\n')
	got, err := src.ReadClusterHolding(context.Background(), other)
	if err != nil || unsafe.SliceData(got.YAML) == unsafe.SliceData(other) || !bytes.Equal(got.YAML, held) {
		t.Errorf("a held stream that is not the cache's was used: %v", err)
	}
	// The cache's crds.yaml removed: the held copy is not taken for it,
	// and the refresh writes the file again.
	if err := os.Remove(first.Path); err != nil {
		t.Fatal(err)
	}
	got, err = src.ReadClusterHolding(context.Background(), held)
	if err != nil || !bytes.Equal(got.YAML, held) || len(got.Downloaded) != 1 {
		t.Fatalf("refresh without crds.yaml: %v, downloaded %v", err, got.Downloaded)
	}
	if b, err := os.ReadFile(first.Path); err != nil || !bytes.Equal(b, held) {
		t.Errorf("crds.yaml not written again: %v", err)
	}
}
