package loader

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// awsFull is the folder of every upjet AWS CRD (2,043 files, 98 MB) in the
// shared corpus.
func awsFull(tb testing.TB) string {
	root := os.Getenv("CRD_LSP_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	dir := filepath.Join(root, "crds", "provider-aws-full", "v2.6.0", "crds")
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("no full AWS provider corpus: %v", err)
	}
	return dir
}

// BenchmarkLoadSchemasAWSFull is what 2,043 CRDs given to check with
// --schemas cost before any is used: reading, indexing and the stores.
func BenchmarkLoadSchemasAWSFull(b *testing.B) {
	dir := awsFull(b)
	if _, err := workspace.Builtins(workspace.DefaultCrossplaneMajor); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var w *World
	for b.Loop() {
		var err error
		w, _, _, err = Load(context.Background(), Config{SchemaDirs: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MiB-live")
	if w.SchemaFiles() != 2043 {
		b.Fatalf("%d schema files", w.SchemaFiles())
	}
}

const loadCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.load.example.org
spec:
  group: load.example.org
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.load.example.org
spec:
  group: load.example.org
  scope: Cluster
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`

// Schema files, in the workspace and under --schemas, are indexed as they
// are read and their text is not kept: a schema is built from the file
// read again on first use. So a file changed on disk behind the World's
// back is said to have changed, never read as the index described it.
func TestLoadKeepsNoSchemaText(t *testing.T) {
	for _, where := range []string{"roots", "schemas"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "crds.yaml")
			// The folder in the content keeps each subtest's builds apart.
			content := strings.ReplaceAll(loadCRDs, "type: object\n", "type: object\n# "+where+"\n")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{Roots: []string{dir}}
			if where == "schemas" {
				cfg = Config{SchemaDirs: []string{dir}}
			}
			w, _, _, err := Load(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			st := w.DefaultStore()
			widget, ok := st.Lookup(schemas.GVK{Group: "load.example.org", Version: "v1", Kind: "Widget"})
			gadget, ok2 := st.Lookup(schemas.GVK{Group: "load.example.org", Version: "v1", Kind: "Gadget"})
			if !ok || !ok2 || gadget.Scope != schemas.Cluster || w.SchemaFiles() != 1 {
				t.Fatalf("not indexed: %v %v, %d schema files", ok, ok2, w.SchemaFiles())
			}
			errs := widget.Validate(context.Background(), map[string]any{"apiVersion": "load.example.org/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "n"}, "spec": map[string]any{"size": "big"}})
			if len(errs) != 1 || errs[0].Path.String() != "spec.size" {
				t.Errorf("Widget validation: %+v", errs)
			}
			if err := os.WriteFile(p, []byte("# a new first line\n"+content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := gadget.Structural(); err == nil || !strings.Contains(err.Error(), "changed on disk since it was indexed") {
				t.Errorf("Gadget after the file changed: %v", err)
			}
		})
	}
}

// A schema file changed on disk while the server runs is indexed as a
// load indexes it (its text dropped, read again on first use), not held.
func TestWithDiskFileKeepsNoSchemaText(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "crds.yaml")
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	content := strings.ReplaceAll(loadCRDs, "type: object\n", "type: object\n# disk\n")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	w = w.WithDiskFiles([]workspace.File{{Path: p, Content: []byte(content)}}, 0)
	if in := w.file(p).schema; in == nil || in.Indexed == nil || in.Content != nil {
		if in == nil {
			t.Fatal("the changed file is not held as a schema file")
		}
		t.Fatalf("the changed file is held as %d bytes of text (indexed: %v)", len(in.Content), in.Indexed != nil)
	}
	widget, ok := w.DefaultStore().Lookup(schemas.GVK{Group: "load.example.org", Version: "v1", Kind: "Widget"})
	if !ok {
		t.Fatal("Widget not indexed")
	}
	if _, err := widget.Structural(); err != nil {
		t.Errorf("Widget built from the file read again: %v", err)
	}
	if w = w.WithDiskFiles([]workspace.File{{Path: p}}, 0); w.SchemaFiles() != 0 {
		t.Errorf("a deleted file is still indexed")
	}
}

// FindMetas finds the crossplane.yaml files of a tree as a load scans it
// (hidden folders skipped), and reads nothing else.
func TestFindMetas(t *testing.T) {
	dir := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	for p, text := range map[string]string{
		"crossplane.yaml": meta, "a/b/crossplane.yaml": meta, ".git/crossplane.yaml": meta,
		"a/other.yaml": "kind: X\n", "c/crossplane.yml": meta,
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	metas, _, err := FindMetas(context.Background(), []string{dir}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range metas {
		rel, _ := filepath.Rel(dir, m.Path)
		got = append(got, rel+" "+m.Name)
	}
	if want := []string{"a/b/crossplane.yaml c", "crossplane.yaml c"}; !slices.Equal(got, want) {
		t.Errorf("Metas = %v, want %v", got, want)
	}
}

// Edits cost what they change: one that leaves everything the World
// records of a file as it was returns the same World; a batch of schema
// files is one step; Function objects bump FunctionsGen.
func TestWorldEdits(t *testing.T) {
	w, _, _, err := Load(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	cm := "/ws/cm.yaml"
	w1 := w.WithFile(cm, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"))
	if w2 := w1.WithFile(cm, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")); w2 != w1 {
		t.Error("an edit inside a built-in kind made a new World")
	}
	a := strings.ReplaceAll(loadCRDs, "load.example.org", "a.example.org")
	b := strings.ReplaceAll(loadCRDs, "load.example.org", "b.example.org")
	w3 := w1.WithDiskFiles([]workspace.File{{Path: "/ws/a.yaml", Content: []byte(a)}, {Path: "/ws/b.yaml", Content: []byte(b)}}, 0)
	if w3.SchemaGen() != w1.SchemaGen()+1 || w3.SchemaFiles() != 2 {
		t.Errorf("a batch of two schema files: SchemaGen %d → %d, %d schema files", w1.SchemaGen(), w3.SchemaGen(), w3.SchemaFiles())
	}
	for _, g := range []string{"a.example.org", "b.example.org"} {
		if _, ok := w3.DefaultStore().Lookup(schemas.GVK{Group: g, Version: "v1", Kind: "Widget"}); !ok {
			t.Errorf("%s Widget not served", g)
		}
	}
	fn := "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: f\n  annotations:\n    render.crossplane.io/runtime: Development\nspec:\n  package: xpkg.crossplane.io/f:v1\n"
	w4 := w3.WithFile("/ws/functions.yaml", []byte(fn))
	if w4.FunctionsGen() == w3.FunctionsGen() || len(w4.Functions()) != 1 || w4.SchemaGen() != w3.SchemaGen() {
		t.Errorf("a Function file: FunctionsGen %d → %d, %d functions, SchemaGen %d → %d", w3.FunctionsGen(), w4.FunctionsGen(), len(w4.Functions()), w3.SchemaGen(), w4.SchemaGen())
	}
}

// TestWorldKustomizePatches: the files a kustomization applies as patches
// are analysed as fragments (Env.PatchOf), from the load and through
// edits of the kustomization, each of which changes SchemaGen so open
// files are diagnosed again; editing the patch itself keeps the World.
func TestWorldKustomizePatches(t *testing.T) {
	dir := t.TempDir()
	k := filepath.Join(dir, "overlay", "kustomization.yaml")
	patch := filepath.Join(dir, "overlay", "replicas.yaml")
	if err := os.MkdirAll(filepath.Dir(k), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{
		k:     "resources: [../base]\npatches:\n  - path: replicas.yaml\n",
		patch: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Env(patch).Role.PatchOf; got != k {
		t.Fatalf("after the load, PatchOf(%s) = %q, want %q", patch, got, k)
	}
	if got := w.Env(k).Role.PatchOf; got != "" {
		t.Errorf("the kustomization itself is a patch of %q", got)
	}
	if w2 := w.WithFile(patch, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4\n")); w2 != w {
		t.Error("an edit of the patch made a new World")
	}
	w3 := w.WithFile(k, []byte("resources: [../base]\n"))
	if got := w3.Env(patch).Role.PatchOf; got != "" || w3.SchemaGen() == w.SchemaGen() {
		t.Errorf("without the patch entry: PatchOf %q, SchemaGen %d → %d", got, w.SchemaGen(), w3.SchemaGen())
	}
	w4 := w3.WithFile(k, []byte("patchesStrategicMerge:\n  - replicas.yaml\n"))
	if got := w4.Env(patch).Role.PatchOf; got != k || w4.SchemaGen() == w3.SchemaGen() {
		t.Errorf("patchesStrategicMerge: PatchOf %q, SchemaGen %d → %d", got, w3.SchemaGen(), w4.SchemaGen())
	}
	if got := w4.WithFile(k, nil).Env(patch).Role.PatchOf; got != "" {
		t.Errorf("with the kustomization removed, PatchOf = %q", got)
	}
}

// TestKindOfTheOtherMajor: a Crossplane kind that only the other major
// serves is reported as such (ControllerConfig left with v2, Usage moved
// to protection.crossplane.io in v2), with where the targeted version
// comes from.
func TestKindOfTheOtherMajor(t *testing.T) {
	cases := []struct {
		major string
		doc   string
		want  string
	}{
		{"v2", "apiVersion: pkg.crossplane.io/v1alpha1\nkind: ControllerConfig\nmetadata:\n  name: debug\n",
			"no schema for pkg.crossplane.io/v1alpha1 ControllerConfig: Crossplane v2, which this file targets, does not serve it (Crossplane v1 did)"},
		{"v1", "apiVersion: protection.crossplane.io/v1beta1\nkind: Usage\nmetadata:\n  name: u\n",
			"no schema for protection.crossplane.io/v1beta1 Usage: Crossplane v1, which this file targets, does not serve it (it is new in Crossplane v2)"},
		{"v2", "apiVersion: nope.crossplane.io/v1\nkind: Nope\nmetadata:\n  name: n\n",
			"no schema for nope.crossplane.io/v1 Nope: add the CRD or XRD"},
	}
	for _, tc := range cases {
		w, _, _, err := Load(context.Background(), Config{CrossplaneVersion: tc.major, Analysis: AnalysisSettings{UnknownKind: severity.Warning}})
		if err != nil {
			t.Fatal(err)
		}
		f := document.Parse("/ws/x.yaml", 1, []byte(tc.doc))
		ds := analysis.Diagnose(context.Background(), f, w.Env("/ws/x.yaml"))
		if len(ds) != 1 || !strings.HasPrefix(ds[0].Message, tc.want) {
			t.Errorf("%s: %+v, want one finding starting %q", tc.major, ds, tc.want)
		}
	}
}

// TestWorldHelmCharts: a Helm chart's Chart.yaml and the files under its
// templates folder are not manifests (Env.Skip), from the load and as
// charts appear and go.
func TestWorldHelmCharts(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "charts", "web")
	files := map[string]string{
		filepath.Join(chart, "Chart.yaml"):                   "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		filepath.Join(chart, "values.yaml"):                  "replicas: 2\n",
		filepath.Join(chart, "templates", "deployment.yaml"): "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n",
		filepath.Join(chart, "templates", "sub", "svc.yaml"): "{{- if .Values.svc }}\nkind: Service\n{{- end }}\n",
		filepath.Join(dir, "templates", "deployment.yaml"):   "apiVersion: apps/v1\nkind: Deployment\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for p, skip := range map[string]bool{
		filepath.Join(chart, "Chart.yaml"): true, filepath.Join(chart, "templates", "deployment.yaml"): true,
		filepath.Join(chart, "templates", "sub", "svc.yaml"): true, filepath.Join(chart, "values.yaml"): false,
		filepath.Join(dir, "templates", "deployment.yaml"): false,
	} {
		if got := w.Env(p).Role.Skip; (got != "") != skip {
			t.Errorf("Skip(%s) = %q, want skipped %v", p, got, skip)
		}
	}
	w2 := w.WithFile(filepath.Join(chart, "Chart.yaml"), nil)
	if got := w2.Env(filepath.Join(chart, "templates", "deployment.yaml")).Role.Skip; got != "" || w2.SchemaGen() == w.SchemaGen() {
		t.Errorf("without Chart.yaml: Skip %q, SchemaGen %d → %d", got, w.SchemaGen(), w2.SchemaGen())
	}
}

// TestUnknownKindWithUnpulledDependencies: an unknown kind under a
// crossplane.yaml whose dependencies the cache lacks says they may define
// it; outside any crossplane.yaml the usual advice stays.
func TestUnknownKindWithUnpulledDependencies(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		filepath.Join(dir, "pkg", "crossplane.yaml"):         "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\nspec:\n  dependsOn:\n    - provider: xpkg.crossplane.io/crossplane-contrib/provider-aws-s3\n      version: v1.0.0\n    - function: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform\n      version: v0.8.2\n",
		filepath.Join(dir, "pkg", "examples", "bucket.yaml"): "apiVersion: s3.aws.m.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\n",
		filepath.Join(dir, "other", "bucket.yaml"):           "apiVersion: s3.aws.m.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := packages.New(packages.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}, Packages: c, Analysis: AnalysisSettings{UnknownKind: severity.Warning}})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"pkg/examples/bucket.yaml": "no schema for s3.aws.m.upbound.io/v1beta1 Bucket: it may come from the 2 dependencies of crossplane.yaml not in the package cache yet (run crd-lsp pull)",
		"other/bucket.yaml":        "no schema for s3.aws.m.upbound.io/v1beta1 Bucket: add the CRD or XRD that defines it to the workspace",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		f := document.Parse(p, 1, []byte(files[p]))
		ds := analysis.Diagnose(context.Background(), f, w.Env(p))
		if len(ds) != 1 || !strings.HasPrefix(ds[0].Message, want) {
			t.Errorf("%s: %+v, want one finding starting %q", rel, ds, want)
		}
	}
}

func TestKuttlAssertion(t *testing.T) {
	for p, want := range map[string]bool{
		"/t/e2e/00-assert.yaml": true, "/t/e2e/01-errors.yml": true, "/t/e2e/12-assert.yaml": true,
		"/t/e2e/00-install.yaml": false, "/t/assert.yaml": false, "/t/x-assert.yaml": false, "/t/00-assert-more.yaml": false,
	} {
		if kuttlAssertion(p) != want {
			t.Errorf("kuttlAssertion(%s) = %v", p, !want)
		}
	}
}
