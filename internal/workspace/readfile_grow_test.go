package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadFileGrowing (issue 35): reads of a file another goroutine
// appends to, from empty to twice the limit, each return a prefix of what
// was written of at most the limit, or the error naming the file and the
// limit; never more, and never hang. ReadFile used to spin for ever when
// a read filled exactly limit+1 bytes of a buffer append had grown larger
// (about one round in twenty here).
func TestReadFileGrowing(t *testing.T) {
	const limit = 1 << 20
	chunk := []byte(strings.Repeat("k: v\n", 200))
	reads, over := 0, 0
	for round := range 40 {
		p := filepath.Join(t.TempDir(), "grow.yaml")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for n := 0; n < 2*limit; n += len(chunk) {
				if _, err := f.Write(chunk); err != nil {
					return
				}
			}
		}()
		for finished := false; !finished; reads++ {
			select {
			case <-done:
				finished = true // one more read, of the whole file
			default:
			}
			type result struct {
				b   []byte
				err error
			}
			res := make(chan result, 1)
			go func() { b, err := ReadFile(p, limit); res <- result{b, err} }()
			var r result
			select {
			case r = <-res:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: ReadFile of a growing file did not return within 10 s", round)
			}
			if r.err != nil {
				var fe *FileError
				if !errors.As(r.err, &fe) || fe.Path != p || !strings.Contains(r.err.Error(), "over the 1 MiB limit") {
					t.Fatalf("round %d: %v", round, r.err)
				}
				over++
				continue
			}
			if len(r.b) > limit {
				t.Fatalf("round %d: a read returned %d bytes, over the limit %d", round, len(r.b), limit)
			}
			if whole := bytes.Repeat(chunk, len(r.b)/len(chunk)+1); !bytes.Equal(r.b, whole[:len(r.b)]) {
				t.Fatalf("round %d: a read returned %d bytes that are not what was written", round, len(r.b))
			}
		}
		f.Close()
	}
	t.Logf("%d reads, %d over the limit", reads, over)
	if over < 40 {
		t.Errorf("%d reads over the limit, want at least the last of each of 40 rounds", over)
	}
}
