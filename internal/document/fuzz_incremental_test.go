package document

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fuzztest"
)

// FuzzParseWithin: a version parsed reusing the previous version's
// documents answers exactly as one parsed from scratch.
func FuzzParseWithin(f *testing.F) {
	f.Add("a: 1\n---\nb: [x, y]\n", "a: 2\n---\nb: [x, y]\n")
	f.Add(incDocs, "\n"+incDocs)
	f.Add("k: &a {x: 1}\n---\n- *x\n", "---\nk: &a {x: 1}\n---\n- *x\n")
	f.Fuzz(fuzzParseWithin)
}

func fuzzParseWithin(t *testing.T, a, b string) {
	if len(a) > 1<<16 || len(b) > 1<<16 {
		return
	}
	prev := Parse("t.yaml", 1, []byte(a))
	sameFile(t, ParseWithin("t.yaml", 2, []byte(b), Limits{}, prev), Parse("t.yaml", 2, []byte(b)))
}

// TestFuzzMutations runs the fuzz targets on mutations of their corpus
// for a bounded time (see internal/fuzztest).
func TestFuzzMutations(t *testing.T) {
	t.Run("FuzzParse", func(t *testing.T) { fuzztest.Mutate(t, "FuzzParse", fuzzParse) })
	t.Run("FuzzParseWithin", func(t *testing.T) { fuzztest.Mutate(t, "FuzzParseWithin", fuzzParseWithin) })
}
