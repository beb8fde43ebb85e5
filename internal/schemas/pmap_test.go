package schemas

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPmapMatchesMap drives pmap and a Go map with the same random
// operations and checks they agree, and that every earlier snapshot still
// holds exactly what it held when it was taken.
func TestPmapMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var m pmap[string, int]
	ref := map[string]int{}
	type snap struct {
		m   pmap[string, int]
		ref map[string]int
	}
	var snaps []snap
	for i := 0; i < 20000; i++ {
		k := strconv.Itoa(r.IntN(3000))
		if r.IntN(3) == 0 {
			m = m.del(k)
			delete(ref, k)
		} else {
			m = m.set(k, i)
			ref[k] = i
		}
		if i%1000 == 0 {
			c := make(map[string]int, len(ref))
			for k, v := range ref {
				c[k] = v
			}
			snaps = append(snaps, snap{m, c})
		}
	}
	snaps = append(snaps, snap{m, ref})
	for si, s := range snaps {
		if s.m.Len() != len(s.ref) {
			t.Fatalf("snapshot %d: Len = %d, want %d", si, s.m.Len(), len(s.ref))
		}
		for k, v := range s.ref {
			if got, ok := s.m.get(k); !ok || got != v {
				t.Fatalf("snapshot %d: get(%q) = %d, %v; want %d", si, k, got, ok, v)
			}
		}
		n := 0
		s.m.each(func(k string, v int) {
			n++
			if s.ref[k] != v {
				t.Fatalf("snapshot %d: each gave %q=%d, want %d", si, k, v, s.ref[k])
			}
		})
		if n != len(s.ref) {
			t.Fatalf("snapshot %d: each visited %d, want %d", si, n, len(s.ref))
		}
	}
	for i := 0; i < 3000; i++ {
		m = m.del(strconv.Itoa(i))
	}
	if m.Len() != 0 || m.root != nil {
		t.Fatalf("after deleting everything: Len %d, root %v", m.Len(), m.root)
	}
}
