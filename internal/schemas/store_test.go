package schemas

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// stCRD is a minimal CRD document for store tests.
func stCRD(group, kind, scope string, versions ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %ss.%s\nspec:\n  group: %s\n  scope: %s\n  names:\n    kind: %s\n    plural: %ss\n  versions:\n",
		strings.ToLower(kind), group, group, scope, kind, strings.ToLower(kind))
	for _, v := range versions {
		fmt.Fprintf(&b, "  - name: %s\n    served: true\n    storage: %v\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n", v, v == versions[0])
	}
	return b.String()
}

var (
	stWidget = GVK{Group: "example.org", Version: "v1", Kind: "Widget"}
	stGadget = GVK{Group: "example.org", Version: "v1", Kind: "Gadget"}
)

func stSrc(k SourceKind, name string) Source { return Source{Kind: k, Name: name} }

func TestStoreRanking(t *testing.T) {
	crd := []byte(stCRD("example.org", "Widget", "Namespaced", "v1"))
	st := NewStore().
		WithFile(stSrc(SourceBuiltin, "builtin"), "a-builtin.yaml", crd).
		WithFile(stSrc(SourceWorkspace, "ws"), "z-ws.yaml", crd).
		WithFile(stSrc(SourceWorkspace, "ws"), "m-ws.yaml", crd).
		WithFile(stSrc(SourcePackage, "pkg"), "zz-pkg.yaml", crd)
	want := func(st *Store, path string) {
		t.Helper()
		sc, ok := st.Lookup(stWidget)
		if !ok || sc.Path != path {
			t.Fatalf("Lookup = %v, %v; want the schema from %s", sc, ok, path)
		}
	}
	want(st, "zz-pkg.yaml") // package > workspace > builtin
	st2 := st.WithoutFile("zz-pkg.yaml")
	want(st2, "m-ws.yaml") // among equals, the lowest path
	want(st2.WithoutFile("m-ws.yaml"), "z-ws.yaml")
	want(st2.WithoutFile("m-ws.yaml").WithoutFile("z-ws.yaml"), "a-builtin.yaml")
	if _, ok := st2.WithoutFile("m-ws.yaml").WithoutFile("z-ws.yaml").WithoutFile("a-builtin.yaml").Lookup(stWidget); ok {
		t.Error("Lookup after removing every file succeeded")
	}
	want(st, "zz-pkg.yaml") // st itself is unchanged
	if got := st.Candidates(stWidget); len(got) != 4 || got[0].Path != "zz-pkg.yaml" || got[1].Path != "m-ws.yaml" || got[2].Path != "z-ws.yaml" || got[3].Path != "a-builtin.yaml" {
		t.Errorf("Candidates order wrong: %v", got)
	}
	// Insertion order does not matter.
	st3 := NewStore().
		WithFile(stSrc(SourcePackage, "pkg"), "zz-pkg.yaml", crd).
		WithFile(stSrc(SourceWorkspace, "ws"), "m-ws.yaml", crd).
		WithFile(stSrc(SourceWorkspace, "ws"), "z-ws.yaml", crd).
		WithFile(stSrc(SourceBuiltin, "builtin"), "a-builtin.yaml", crd)
	want(st3, "zz-pkg.yaml")
	want(st3.WithoutFile("zz-pkg.yaml"), "m-ws.yaml")
}

func TestStoreCopyOnWrite(t *testing.T) {
	s0 := NewStore()
	s1 := s0.WithFile(stSrc(SourceWorkspace, "ws"), "w.yaml", []byte(stCRD("example.org", "Widget", "Namespaced", "v1", "v2")))
	s2 := s1.WithFile(stSrc(SourceWorkspace, "ws"), "g.yaml", []byte(stCRD("example.org", "Gadget", "Cluster", "v1")))
	// Replacing w.yaml's content replaces what it defined.
	s3 := s2.WithFile(stSrc(SourceWorkspace, "ws"), "w.yaml", []byte(stCRD("example.org", "Widget", "Namespaced", "v1")))
	s4 := s3.WithoutFile("g.yaml")
	s5 := s4.WithFile(stSrc(SourceWorkspace, "ws"), "w.yaml", []byte("# no longer a CRD\n"))

	kinds := func(st *Store) string {
		var out []string
		for _, k := range st.Kinds() {
			out = append(out, k.GVK.Version+"/"+k.GVK.Kind+"/"+string(k.Scope)+"/"+k.Plural)
		}
		return strings.Join(out, " ")
	}
	for i, c := range []struct {
		st   *Store
		want string
		n    int
	}{
		{s0, "", 0},
		{s1, "v1/Widget/Namespaced/widgets v2/Widget/Namespaced/widgets", 2},
		{s2, "v1/Gadget/Cluster/gadgets v1/Widget/Namespaced/widgets v2/Widget/Namespaced/widgets", 3},
		{s3, "v1/Gadget/Cluster/gadgets v1/Widget/Namespaced/widgets", 2},
		{s4, "v1/Widget/Namespaced/widgets", 1},
		{s5, "", 0},
	} {
		if got := kinds(c.st); got != c.want || c.st.Len() != c.n {
			t.Errorf("s%d: Kinds = %q (Len %d), want %q (Len %d)", i, got, c.st.Len(), c.want, c.n)
		}
	}
	if got := s2.FileGVKs("w.yaml"); len(got) != 2 || got[0] != (GVK{Group: "example.org", Version: "v1", Kind: "Widget"}) || got[1] != (GVK{Group: "example.org", Version: "v2", Kind: "Widget"}) {
		t.Errorf("FileGVKs = %v", got)
	}
	if got := s5.FileGVKs("w.yaml"); got != nil {
		t.Errorf("FileGVKs after the file stopped defining anything = %v", got)
	}
	if s4.WithoutFile("nope.yaml") != s4 {
		t.Error("WithoutFile of an unknown path should return the same store")
	}
	if _, ok := s2.Lookup(stGadget); !ok {
		t.Error("s2 lost Gadget after later edits")
	}
}

// The content passed to WithFile may be reused by the caller.
func TestStoreCopiesContent(t *testing.T) {
	buf := []byte(stCRD("example.org", "Widget", "Namespaced", "v1"))
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "w.yaml", buf)
	for i := range buf {
		buf[i] = ' '
	}
	sc, _ := st.Lookup(stWidget)
	if _, err := sc.Structural(); err != nil {
		t.Fatalf("schema broken after the caller reused its buffer: %v", err)
	}
}

// Indexing, Lookup and Kinds build nothing; the first Structural or
// Validate builds once, and the build is shared by every schema with the
// same document content.
func TestStoreLazy(t *testing.T) {
	crd := []byte(stCRD("lazy.example.org", "Widget", "Namespaced", "v1"))
	before := builds.Load()
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "a.yaml", crd).WithFile(stSrc(SourceBuiltin, "b"), "b.yaml", crd)
	gvk := GVK{Group: "lazy.example.org", Version: "v1", Kind: "Widget"}
	sc, ok := st.Lookup(gvk)
	_ = st.Kinds()
	if !ok || builds.Load() != before {
		t.Fatalf("indexing built %d schemas (found %v)", builds.Load()-before, ok)
	}
	s1, err := sc.Structural()
	if err != nil || s1 == nil {
		t.Fatalf("Structural: %v", err)
	}
	if builds.Load() != before+1 {
		t.Fatalf("first Structural built %d times", builds.Load()-before)
	}
	// Same content from another file and another store: no new build.
	other := st.Candidates(gvk)[1]
	s2, _ := other.Structural()
	st2 := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "c.yaml", crd)
	sc3, _ := st2.Lookup(gvk)
	s3, _ := sc3.Structural()
	errs := sc3.Validate(context.Background(), map[string]any{"apiVersion": "lazy.example.org/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": int64(1)}})
	if s1 != s2 || s1 != s3 || builds.Load() != before+1 || len(errs) != 0 {
		t.Errorf("not shared by digest: builds %d, same %v %v, errs %v", builds.Load()-before, s1 == s2, s1 == s3, errs)
	}
}

func TestStoreMultiDoc(t *testing.T) {
	content := "---\n# comment\n" + stCRD("example.org", "Widget", "Namespaced", "v1") +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" + stCRD("example.org", "Gadget", "Cluster", "v1")
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "multi.yaml", []byte(content))
	got := st.FileGVKs("multi.yaml")
	if len(got) != 2 || got[0] != stWidget || got[1] != stGadget {
		t.Fatalf("FileGVKs = %v", got)
	}
	g, _ := st.Lookup(stGadget)
	errs := g.Validate(context.Background(), map[string]any{"apiVersion": "example.org/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": "n"}, "spec": map[string]any{"size": "big"}})
	if len(errs) < 2 {
		t.Errorf("the second document's schema was not used: %v", errs)
	}
}

// stAWSFull reads every CRD of the full AWS provider (2,043 files).
func stAWSFull(tb testing.TB) (paths []string, contents [][]byte) {
	root := corpus(tb)
	dir := filepath.Join(root, "crds", "provider-aws-full", "v2.6.0", "crds")
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Skipf("no full AWS provider corpus: %v", err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, e.Name())
		contents = append(contents, b)
	}
	sort.Strings(paths)
	return paths, contents
}

func TestStoreIndexAWSFull(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 98 MB")
	}
	paths, contents := stAWSFull(t)
	before := builds.Load()
	st := NewStore()
	for i := range paths {
		st = st.WithFile(stSrc(SourcePackage, "provider-aws"), paths[i], contents[i])
	}
	if len(paths) != 2043 {
		t.Errorf("%d files, want 2043", len(paths))
	}
	// Every file defines at least one served GVK (TestScanMatchesParse
	// checks the scan against a real parse).
	for _, p := range paths {
		if len(st.FileGVKs(p)) == 0 {
			t.Errorf("%s: nothing indexed", p)
		}
	}
	if builds.Load() != before {
		t.Errorf("indexing built %d schemas", builds.Load()-before)
	}
	t.Logf("%d files, %d GVKs, %d kinds", len(paths), st.Len(), len(st.Kinds()))
}

func BenchmarkIndexAWSFull(b *testing.B) {
	paths, contents := stAWSFull(b)
	var total int64
	for _, c := range contents {
		total += int64(len(c))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st := NewStore()
		for i := range paths {
			st = st.WithFile(stSrc(SourcePackage, "provider-aws"), paths[i], contents[i])
		}
		if st.Len() == 0 {
			b.Fatal("nothing indexed")
		}
	}
}

// BenchmarkIndexAWSFullLean indexes the full AWS provider as the loader
// does for files on disk (FileInput.Open: no text kept) and reports what
// the index holds once built (index-MiB: the heap the store adds).
func BenchmarkIndexAWSFullLean(b *testing.B) {
	paths, contents := stAWSFull(b)
	var total int64
	for _, c := range contents {
		total += int64(len(c))
	}
	in := make([]FileInput, len(paths))
	for i := range paths {
		c := contents[i]
		in[i] = FileInput{Source: stSrc(SourcePackage, "provider-aws"), Path: paths[i], Content: c, Open: func() ([]byte, error) { return c, nil }}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	b.SetBytes(total)
	b.ReportAllocs()
	var st *Store
	before := heap()
	b.ResetTimer()
	for range b.N {
		st = nil
		st = NewStore().WithFiles(in)
	}
	b.StopTimer()
	b.ReportMetric(float64(heap()-before)/(1<<20), "index-MiB")
	if st.Len() == 0 {
		b.Fatal("nothing indexed")
	}
}

// BenchmarkReindexOneFile is the editor's case: one file changes in a store
// that already holds the full AWS provider.
func BenchmarkReindexOneFile(b *testing.B) {
	paths, contents := stAWSFull(b)
	st := NewStore()
	for i := range paths {
		st = st.WithFile(stSrc(SourcePackage, "provider-aws"), paths[i], contents[i])
	}
	small := []byte(stCRD("example.org", "Widget", "Namespaced", "v1"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		st = st.WithFile(stSrc(SourceWorkspace, "ws"), fmt.Sprintf("ws/%d.yaml", i%50), small)
	}
}

const stRDSManifest = `
apiVersion: rds.aws.upbound.io/v1beta3
kind: Instance
metadata:
  name: db
spec:
  forProvider:
    region: us-east-1
    instanceClass: db.t3.micro
    engine: postgres
    allocatedStorage: 20
    tags: {team: a}
`

func stRDS(b *testing.B) ([]byte, map[string]any) {
	root := corpus(b)
	crd, err := os.ReadFile(filepath.Join(root, "crds/providers/provider-upjet-aws-subset/v2.6.0/crds/rds.aws.upbound.io_instances.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	return crd, obj(b, stRDSManifest)
}

// BenchmarkFirstValidate: index the RDS Instance CRD and validate one
// object against it, building the schema from scratch each time (the
// content changes by a comment, so the digest cache cannot help).
func BenchmarkFirstValidate(b *testing.B) {
	crd, o := stRDS(b)
	gvk := GVK{Group: "rds.aws.upbound.io", Version: "v1beta3", Kind: "Instance"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		content := append(append([]byte(nil), crd...), fmt.Sprintf("\n# %d\n", i)...)
		st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "rds.yaml", content)
		sc, _ := st.Lookup(gvk)
		if errs := sc.Validate(context.Background(), o); len(errs) != 0 {
			b.Fatalf("unexpected errors: %v", errs)
		}
	}
}

func BenchmarkValidateWarm(b *testing.B) {
	crd, o := stRDS(b)
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "rds.yaml", crd)
	sc, _ := st.Lookup(GVK{Group: "rds.aws.upbound.io", Version: "v1beta3", Kind: "Instance"})
	if errs := sc.Validate(context.Background(), o); len(errs) != 0 {
		b.Fatalf("unexpected errors: %v", errs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		sc.Validate(context.Background(), o)
	}
}

// Readers share a Store and its schemas; run with -race.
func TestStoreConcurrentReaders(t *testing.T) {
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "w.yaml", []byte(stCRD("race.example.org", "Widget", "Namespaced", "v1", "v2")))
	done := make(chan bool)
	for g := range 8 {
		go func() {
			defer func() { done <- true }()
			gvk := GVK{Group: "race.example.org", Version: []string{"v1", "v2"}[g%2], Kind: "Widget"}
			sc, ok := st.Lookup(gvk)
			if !ok {
				t.Error("lookup failed")
				return
			}
			_ = st.Kinds()
			if _, err := sc.Structural(); err != nil {
				t.Error(err)
			}
			errs := sc.Validate(context.Background(), map[string]any{"apiVersion": gvk.APIVersion(), "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": "x"}})
			if len(errs) == 0 {
				t.Error("no errors")
			}
			_ = st.WithFile(stSrc(SourceWorkspace, "ws"), fmt.Sprintf("g%d.yaml", g), []byte(stCRD("race.example.org", "Gadget", "Cluster", "v1")))
		}()
	}
	for range 8 {
		testfixtures.Await(t, done, "the concurrent store users to finish")
	}
}
