package remote

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
				snap, err := readSnapshot(dir)
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
	if _, err := readSnapshot(dir); err != nil {
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
	if _, err := readSnapshot(dir); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("a crds.yaml cut short was served (err %v)", err)
	}
}
