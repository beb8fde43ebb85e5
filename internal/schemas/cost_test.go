package schemas

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBuildCostFactor measures what a build weighs against its document's
// size, for buildCostFactor: the upjet subset's CRDs are built (every
// served version, as validation does) and the heap they hold is compared
// with their YAML. It logs the figure; it fails only if the factor is far
// off (the budget would then mean little).
func TestBuildCostFactor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 CRDs")
	}
	dir := filepath.Join(corpus(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no upjet subset: %v", err)
	}
	old := SetBuildBudget(1 << 40)
	defer SetBuildBudget(old)
	var texts int64
	st := NewStore()
	for i, e := range ents {
		if i == 50 {
			break
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		texts += int64(len(b))
		st = st.WithFile(Source{Kind: SourceWorkspace}, e.Name(), append(b, "\n# cost\n"...))
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	var held []*Schema
	for _, k := range st.Kinds() {
		for _, sc := range st.Candidates(k.GVK) {
			sc.Validate(context.Background(), map[string]any{"apiVersion": k.GVK.APIVersion(), "kind": k.GVK.Kind, "metadata": map[string]any{"name": "x"}})
			held = append(held, sc)
		}
	}
	after := heap()
	runtime.KeepAlive(held)
	runtime.KeepAlive(st)
	factor := float64(after-before) / float64(texts)
	t.Logf("%d schemas built from %d bytes of YAML hold %d bytes: %.1f× (buildCostFactor %d)", len(held), texts, after-before, factor, buildCostFactor)
	if factor > 4*buildCostFactor || factor < buildCostFactor/4 {
		t.Errorf("builds weigh %.1f× their YAML, far from buildCostFactor %d", factor, buildCostFactor)
	}
}
