package document

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	dir := os.Getenv("FUZZDIR")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		lines := strings.Split(string(b), "\n")
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")"))
		if err != nil {
			continue
		}
		t0 := time.Now()
		f := Parse("x", 1, []byte(s))
		t1 := time.Since(t0)
		checkFileInvariants(t, f)
		if d := time.Since(t0); d > 50*time.Millisecond {
			fmt.Printf("%s %d %v %v %q\n", e.Name(), len(s), t1, d, s[:min(len(s), 200)])
		}
	}
}
