package loader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestKustomizeRoots: the kustomizations built are those no other names
// as a base or component (components never), one of a cycle, plus the
// named ones; the
// reads of a build follow its bases; an edit that changes what a
// kustomization names changes SchemaGen (open files are diagnosed again)
// and the roots.
func TestKustomizeRoots(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"base/kustomization.yaml":           "resources: [deployment.yaml]\n",
		"base/deployment.yaml":              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
		"overlays/prod/kustomization.yaml":  "resources: [../../base]\ncomponents: [../../components/tls]\npatches:\n  - path: selector.yaml\n",
		"overlays/prod/selector.yaml":       "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
		"overlays/dev/kustomization.yml":    "resources: [../../base]\nnamePrefix: dev-\n",
		"components/tls/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches: [{path: tls.yaml}]\n",
		"app/Kustomization":                 "resources: [svc.yaml]\n",
		"cycle/a/kustomization.yaml":        "resources: [../b]\n",
		"cycle/b/kustomization.yaml":        "resources: [../a]\n",
	}
	for p, text := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{j("app/Kustomization"), j("cycle/a/kustomization.yaml"), j("overlays/dev/kustomization.yml"), j("overlays/prod/kustomization.yaml")}
	if got := w.KustomizeRoots(nil); !slices.Equal(got, want) {
		t.Errorf("roots = %q\nwant %q", got, want)
	}
	if got := w.KustomizeRoots([]string{j("base"), j("nowhere")}); !slices.Equal(got, []string{want[0], j("base/kustomization.yaml"), want[1], want[2], want[3]}) {
		t.Errorf("with base named, roots = %q", got)
	}
	reads := []string{j("base/deployment.yaml"), j("base/kustomization.yaml"), j("components/tls/kustomization.yaml"), j("components/tls/tls.yaml"),
		j("overlays/prod/kustomization.yaml"), j("overlays/prod/selector.yaml")}
	if got := w.KustomizeReads(j("overlays/prod/kustomization.yaml")); !slices.Equal(got, reads) {
		t.Errorf("reads of prod = %q\nwant %q", got, reads)
	}
	w2 := w.WithFile(j("overlays/dev/kustomization.yml"), []byte("resources: [deployment.yaml]\n"))
	if w2.SchemaGen() == w.SchemaGen() {
		t.Error("dev no longer using the base left SchemaGen as it was")
	}
	if got := w2.KustomizeRoots(nil); !slices.Equal(got, want) {
		t.Errorf("base still used by prod: roots = %q\nwant %q", got, want)
	}
	w3 := w2.WithFile(j("overlays/prod/kustomization.yaml"), []byte("resources: [web.yaml]\n"))
	if got := w3.KustomizeRoots(nil); !slices.Contains(got, j("base/kustomization.yaml")) {
		t.Errorf("base used by nothing: roots = %q", got)
	}
}
