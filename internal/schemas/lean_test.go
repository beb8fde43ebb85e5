package schemas

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// leanFile is a file of two definitions (and an object) as on disk, and
// the FileInput that indexes it without keeping its text: Open reads
// *disk again and counts the reads.
func leanFile(t *testing.T, tag string) (in FileInput, disk *[]byte, reads *atomic.Int64) {
	t.Helper()
	content := []byte("# " + tag + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" +
		stCRD("lean.example.org", "Widget", "Namespaced", "v1", "v2") + "# " + tag + "\n---\n" + stCRD("lean.example.org", "Gadget", "Cluster", "v1") + "# " + tag + "\n")
	d := bytes.Clone(content)
	disk, reads = &d, &atomic.Int64{}
	open := func() ([]byte, error) {
		reads.Add(1)
		if *disk == nil {
			return nil, errors.New("no such file")
		}
		return bytes.Clone(*disk), nil
	}
	return FileInput{Source: Source{Kind: SourceWorkspace, Name: tag}, Path: tag + ".yaml", Content: content, Open: open}, disk, reads
}

var (
	leanWidget = GVK{Group: "lean.example.org", Version: "v2", Kind: "Widget"}
	leanGadget = GVK{Group: "lean.example.org", Version: "v1", Kind: "Gadget"}
)

func leanGadgetObj() map[string]any {
	return map[string]any{"apiVersion": "lean.example.org/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "spec": map[string]any{"size": "big"}}
}

// A file indexed with Open keeps no text: kinds, lookups and candidates
// answer from the index without reading; the first use of a schema reads
// the file again, once, and validates exactly as a store holding the text.
func TestLeanIndexReadsAgainOnFirstUse(t *testing.T) {
	in, disk, reads := leanFile(t, "lean-first")
	st := NewStore().WithFiles([]FileInput{in})
	clear(in.Content) // the store kept none of it
	kinds := st.Kinds()
	w, ok := st.Lookup(leanWidget)
	g, _ := st.Lookup(leanGadget)
	if !ok || g == nil || len(kinds) != 3 || w.Scope != Namespaced || g.Scope != Cluster || w.Plural != "widgets" {
		t.Fatalf("index: %d kinds, Widget %+v, Gadget %+v", len(kinds), w, g)
	}
	if got := st.FileGVKs(in.Path); len(got) != 3 {
		t.Errorf("FileGVKs = %v", got)
	}
	if reads.Load() != 0 {
		t.Fatalf("indexing and lookups read the file %d times", reads.Load())
	}
	got := dump(g.Validate(context.Background(), leanGadgetObj()))
	if reads.Load() != 1 {
		t.Errorf("first validation read the file %d times, want 1", reads.Load())
	}
	g.Validate(context.Background(), leanGadgetObj())
	if _, err := g.Structural(); err != nil || reads.Load() != 1 {
		t.Errorf("warm use read the file again (%d reads; %v)", reads.Load(), err)
	}
	// The same text held in memory (another comment, so another build).
	held := NewStore().WithFile(Source{Kind: SourceWorkspace}, "held.yaml", append(bytes.Clone(*disk), "# held\n"...))
	hg, _ := held.Lookup(leanGadget)
	if want := dump(hg.Validate(context.Background(), leanGadgetObj())); got != want || !strings.Contains(got, "spec.size") {
		t.Errorf("lean validation:\n%s\nheld text:\n%s", got, want)
	}
	if _, err := w.Structural(); err != nil || reads.Load() != 2 {
		t.Errorf("Widget: %v after %d reads, want its own read", err, reads.Load())
	}
}

// A file changed on disk since it was indexed is not read as the index
// describes it: the schema says so (a warning on validation), and the
// next use tries again.
func TestLeanIndexFileChangedOnDisk(t *testing.T) {
	in, disk, _ := leanFile(t, "lean-changed")
	orig := *disk
	st := NewStore().WithFiles([]FileInput{in})
	g, _ := st.Lookup(leanGadget)
	*disk = append([]byte("# inserted line\n"), orig...)
	errs := g.Validate(context.Background(), leanGadgetObj())
	if len(errs) != 1 || errs[0].Severity != severity.Warning || !strings.Contains(errs[0].Message, "lean-changed.yaml changed on disk since it was indexed") {
		t.Errorf("changed file: %s", dump(errs))
	}
	*disk = nil
	if _, err := g.Structural(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("removed file: %v", err)
	}
	*disk = orig
	if errs := g.Validate(context.Background(), leanGadgetObj()); len(errs) == 0 || errs[0].Code == "schema" {
		t.Errorf("restored file: %s", dump(errs))
	}
}

// Builds are held under the budget, least recently used out; an evicted
// build is rebuilt (read again) on its next use, with the same result.
func TestBuildBudgetEvictsLeastRecentlyUsed(t *testing.T) {
	in, _, reads := leanFile(t, "lean-budget")
	st := NewStore().WithFiles([]FileInput{in})
	w, _ := st.Lookup(leanWidget)
	g, _ := st.Lookup(leanGadget)
	// Room for one of the two documents (the Widget's, with two versions,
	// is the larger).
	old := SetBuildBudget(int64(w.def.key.n) * buildCostFactor)
	defer SetBuildBudget(old)
	first := dump(g.Validate(context.Background(), leanGadgetObj()))
	if _, err := w.Structural(); err != nil {
		t.Fatal(err)
	}
	if n, used := cache.stats(); n != 1 || used > int64(w.def.key.n)*buildCostFactor {
		t.Errorf("cache holds %d builds (%d bytes), want 1 within the budget", n, used)
	}
	if reads.Load() != 2 {
		t.Fatalf("%d reads, want 2", reads.Load())
	}
	if again := dump(g.Validate(context.Background(), leanGadgetObj())); again != first || reads.Load() != 3 {
		t.Errorf("after eviction: %d reads (want 3), result\n%s\nwas\n%s", reads.Load(), again, first)
	}
	if _, err := g.Structural(); err != nil || reads.Load() != 3 {
		t.Errorf("the most recent build was evicted: %d reads, %v", reads.Load(), err)
	}
}

// An XRD indexed without its text serves its composite and claim kinds
// from one read of the file: both are derived from the one build.
func TestLeanIndexXRD(t *testing.T) {
	xrd := []byte(testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XLean", Plural: "xleans", ClaimKind: "Lean", ClaimPlural: "leans", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`}.YAML())
	var reads atomic.Int64
	disk := bytes.Clone(xrd)
	st := NewStore().WithFiles([]FileInput{{Source: Source{Kind: SourceWorkspace}, Path: "xrd.yaml", Content: xrd, Open: func() ([]byte, error) {
		reads.Add(1)
		return disk, nil
	}}})
	clear(xrd)
	xr, ok1 := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: "XLean"})
	claim, ok2 := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: "Lean"})
	if !ok1 || !ok2 || xr.ClaimKind != "Lean" || !xr.LegacyXR || claim.Scope != Namespaced {
		t.Fatalf("XR %+v, claim %+v", xr, claim)
	}
	bad := func(kind string) map[string]any {
		return map[string]any{"apiVersion": "example.org/v1", "kind": kind, "metadata": map[string]any{"name": "x", "namespace": "n"}, "spec": map[string]any{"size": "big"}}
	}
	for _, sc := range []*Schema{claim, xr} {
		errs := sc.Validate(context.Background(), bad(sc.GVK.Kind))
		if !strings.Contains(dump(errs), "spec.size") {
			t.Errorf("%s: %s", sc.GVK.Kind, dump(errs))
		}
	}
	if reads.Load() != 1 {
		t.Errorf("%d reads, want 1", reads.Load())
	}
}
