package document

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestKeyIndexAgreesWithScan: in mappings large enough to be indexed, with
// duplicate keys and merge keys, a lookup finds what a scan of the keys
// finds (the last duplicate, then the merged mappings in order).
func TestKeyIndexAgreesWithScan(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for round := range 50 {
		var b strings.Builder
		b.WriteString("base: &base {m1: 1, m2: 2, k3: from-base}\nother: &other {m2: o, m9: 9}\nroot:\n")
		n := indexFrom + rng.IntN(4*indexFrom)
		for i := range n {
			switch rng.IntN(20) {
			case 0:
				b.WriteString("  <<: *base\n")
			case 1:
				b.WriteString("  <<: [*other, *base]\n")
			default:
				fmt.Fprintf(&b, "  k%d: v%d\n", rng.IntN(n), i)
			}
		}
		f := Parse("x.yaml", 1, []byte(b.String()))
		d := f.Docs[0]
		_, root, ok := d.Lookup(nil)
		if !ok {
			t.Fatalf("round %d: no root", round)
		}
		var m *yaml.Node
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "root" {
				m = root.Content[i+1]
			}
		}
		for _, name := range append([]string{"m1", "m2", "m9", "nope", "<<"}, func() []string {
			var out []string
			for i := range n {
				out = append(out, fmt.Sprintf("k%d", i))
			}
			return out
		}()...) {
			var seen map[*yaml.Node]bool
			wantK, wantV := mapGetSeen(m, name, 0, &seen, nil)
			gotK, gotV := d.mapGet(m, name)
			if gotK != wantK || gotV != wantV {
				t.Fatalf("round %d: %q: indexed lookup found %v, a scan %v", round, name, gotV, wantV)
			}
		}
		if d.keys.Load() == nil || d.keys.Load().of(m) == nil {
			t.Fatalf("round %d: a mapping of %d keys was not indexed", round, len(m.Content)/2)
		}
	}
}
