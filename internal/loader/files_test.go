package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A World keeps one record per file: every fact a file gave (its
// Function objects, EnvironmentConfigs, kinds, example text, the patches
// a kustomization applies, a Helm chart) goes with it in one step, the
// World it was derived from keeps them, and the records of other files
// are shared, not copied.
func TestOneRecordPerFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := write("all.yaml", devFunctionText+"---\napiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata:\n  name: env\ndata: {a: b}\n---\napiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: x\n")
	kust := write("k/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches:\n- path: patch.yaml\n")
	chart := write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
	cm := write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	comp := filepath.Join(dir, "composition.yaml")
	if len(w.Functions()) != 1 || len(w.EnvironmentConfigs(comp)) != 1 || w.file(all).text == nil ||
		w.PatchedBy(filepath.Join(dir, "k", "patch.yaml")) != kust || w.chartPart(filepath.Join(dir, "chart", "templates", "a.yaml")) == "" {
		t.Fatalf("the load missed a fact: functions %d, environment configs %d, example text %v, patch of %q, chart part %q",
			len(w.Functions()), len(w.EnvironmentConfigs(comp)), w.file(all).text != nil, w.PatchedBy(filepath.Join(dir, "k", "patch.yaml")), w.chartPart(filepath.Join(dir, "chart", "templates", "a.yaml")))
	}

	gone := w.WithFile(all, nil).WithFile(kust, nil).WithFile(chart, nil)
	if len(gone.Functions()) != 0 || len(gone.EnvironmentConfigs(comp)) != 0 || gone.files[all] != nil ||
		gone.PatchedBy(filepath.Join(dir, "k", "patch.yaml")) != "" || gone.chartPart(filepath.Join(dir, "chart", "templates", "a.yaml")) != "" {
		t.Errorf("a removed file left a fact behind (record kept: %v)", gone.files[all] != nil)
	}
	if gone.SchemaGen() == w.SchemaGen() || gone.FunctionsGen() == w.FunctionsGen() {
		t.Error("removing roles, EnvironmentConfigs and Functions did not change SchemaGen and FunctionsGen")
	}
	if len(w.Functions()) != 1 || w.PatchedBy(filepath.Join(dir, "k", "patch.yaml")) != kust {
		t.Error("an update changed the World it was derived from")
	}
	if gone.files[cm] == nil || gone.files[cm] != w.files[cm] {
		t.Error("the record of an unchanged file was not shared")
	}
	if same := w.WithFile(cm, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n")); same != w {
		t.Error("an edit that changes nothing recorded made a new World")
	}
}

const devFunctionText = `apiVersion: pkg.crossplane.io/v1beta1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: Development
spec:
  package: xpkg.crossplane.io/crd-lsp/function-test:v0.1.0
`
