package schemas

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// longestKeyScan is longestKey as a scan of every key: the definition the
// lookup by prefixes must agree with.
func longestKeyScan(m map[string]any, s, term string) (string, bool) {
	best, found := "", false
	for k := range m {
		if len(k) < len(best) || !strings.HasPrefix(s, k) {
			continue
		}
		rest := s[len(k):]
		if term != "" {
			if !strings.HasPrefix(rest, term) {
				continue
			}
		} else if k == "" || rest != "" && rest[0] != '.' && rest[0] != '[' {
			continue
		}
		if !found || len(k) > len(best) {
			best, found = k, true
		}
	}
	return best, found
}

// TestLongestKeyAgreesWithScan: keys with dots and brackets (as in
// annotations, "a.b/c" and "x[0]") resolve as a scan of all keys would.
func TestLongestKeyAgreesWithScan(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	alphabet := []byte("ab.[]0")
	word := func(n int) string {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20_000 {
		m := map[string]any{}
		for range rng.IntN(6) {
			m[word(4)] = nil
		}
		s := word(8)
		for _, term := range []string{"", "]", "]."} {
			gotK, gotOK := longestKey(m, s, term)
			wantK, wantOK := longestKeyScan(m, s, term)
			if gotK != wantK || gotOK != wantOK {
				t.Fatalf("longestKey(%q, %q, %q) = %q, %v; a scan finds %q, %v", keys(m), s, term, gotK, gotOK, wantK, wantOK)
			}
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func BenchmarkLongestKeyManyFields(b *testing.B) {
	m := map[string]any{}
	for i := range 30_000 {
		m["field"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26))] = nil
	}
	for b.Loop() {
		longestKey(m, "fieldxxabc.spec[0]", "")
	}
}
