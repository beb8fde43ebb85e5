package loader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

var lazyXRD = testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: "XBucket", Plural: "xbuckets", Scope: "Namespaced", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`}.YAML()

const lazyComposition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: buckets
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XBucket
  mode: Pipeline
  pipeline:
  - step: patch-and-transform
    functionRef:
      name: function-patch-and-transform
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: cm
        base:
          apiVersion: v1
          kind: ConfigMap
          data: {size: "0"}
        patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.size
          toFieldPath: data.size
          transforms:
          - type: convert
            convert: {toType: string}
`

const lazyExample = `apiVersion: example.org/v1
kind: XBucket
metadata: {name: b, namespace: default}
spec: {size: 3}
`

// TestEnvBuildsRenderInputsLazily: the Env of a Composition answers a
// hover and a completion without building what only rendering reads
// (example composites, the cluster's EnvironmentConfigs, template files);
// its diagnosis, which renders the Composition with the example, builds
// them once, however often the rendering reads them.
func TestEnvBuildsRenderInputsLazily(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"xrd.yaml": lazyXRD, "composition.yaml": lazyComposition, "examples/xr.yaml": lazyExample} {
		p := filepath.Join(dir, name)
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
	path := filepath.Join(dir, "composition.yaml")
	f := document.Parse(path, 1, []byte(lazyComposition))
	before := renderBuilds.Load()
	env := w.Env(path)

	h := analysis.Hover(context.Background(), f, strings.Index(lazyComposition, "data.size")+6, env)
	if h == nil || !strings.Contains(h.Markdown, "size") {
		t.Fatalf("hover on toFieldPath's data.size = %+v, want the ConfigMap's data", h)
	}
	if cs := analysis.Complete(context.Background(), f, strings.Index(lazyComposition, "spec.size")+len("spec."), env); len(cs) == 0 {
		t.Fatal("no completion in fromFieldPath")
	}
	if n := renderBuilds.Load() - before; n != 0 {
		t.Fatalf("hover and completion built the render inputs %d times, want none", n)
	}

	analysis.Diagnose(context.Background(), f, env)
	if n := renderBuilds.Load() - before; n != 1 {
		t.Fatalf("diagnosis built the render inputs %d times, want once", n)
	}
	// What was built is the workspace's: the example composite.
	r := env.Workspace.Rendering()
	if exs := r.Examples(schemas.GVK{Group: "example.org", Version: "v1", Kind: "XBucket"}); len(exs) != 1 || exs[0].Path != filepath.Join(dir, "examples", "xr.yaml") {
		t.Errorf("examples = %+v, want examples/xr.yaml", exs)
	}
	if n := renderBuilds.Load() - before; n != 1 {
		t.Errorf("reading the render inputs again built them %d times in all, want once", n)
	}
}
