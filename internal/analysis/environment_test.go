package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// environmentEnv is an Env with the XRD, the Bucket CRD and the
// EnvironmentConfigs of testdata/render/environment.
func environmentEnv(t *testing.T) Env {
	t.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "testdata", "render", "environment")
	p := filepath.Join(dir, "xrd.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := os.ReadFile(filepath.Join(dir, "environmentconfigs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []map[string]any
	for _, o := range ObjectsIn("environmentconfigs.yaml", cb) {
		cfgs = append(cfgs, o.Object)
	}
	return Env{Schemas: st.WithFiles([]schemas.FileInput{{Source: workspace.Source(p), Path: p, Content: b}}), CrossplaneMajor: 2,
		Cluster: Cluster{EnvironmentConfigs: cfgs, From: "in the workspace"}}
}

const envComposition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xstores
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XStore}
  mode: Pipeline
  pipeline:
  - step: environment
    functionRef: {name: function-environment-configs}
    input:
      apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
      kind: Input
      spec:
        environmentConfigs:
        - ref: {name: REF}
  - step: resources
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      environment:
        patches:
        - fromFieldPath: spec.stage
          toFieldPath: zone
      resources:
      - name: bucket
        base:
          apiVersion: storage.example.org/v1
          kind: Bucket
          spec:
            forProvider: {}
        patches:
        - type: FromEnvironmentFieldPath
          fromFieldPath: PATH
          toFieldPath: spec.forProvider.region
`

func environmentFindings(t *testing.T, env Env, ref, path string) []Diagnostic {
	t.Helper()
	text := strings.NewReplacer("REF", ref, "PATH", path).Replace(envComposition)
	f := document.Parse("file:///ws/composition.yaml", 1, []byte(text))
	var out []Diagnostic
	for _, d := range Diagnose(context.Background(), f, env) {
		if d.Severity != SeverityHint {
			out = append(out, d)
		}
	}
	return out
}

// The environment the workspace's EnvironmentConfigs give sets the
// field: nothing is missing (before: "only set when region is set in the
// environment (crd-lsp renders with an empty one)").
func TestEnvironmentFromWorkspaceSetsField(t *testing.T) {
	env := environmentEnv(t)
	for _, d := range environmentFindings(t, env, "base", "region") {
		t.Errorf("unexpected finding: %s %s %s", d.Severity, d.Code, d.Message)
	}
}

// A field the selected EnvironmentConfigs lack, which an environment
// patch may also copy from an optional composite field: the finding names
// both writers and the EnvironmentConfigs the environment comes from.
func TestEnvironmentMissingFieldNamesBothWriters(t *testing.T) {
	env := environmentEnv(t)
	ds := environmentFindings(t, env, "dev", "zone")
	if len(ds) != 1 {
		t.Fatalf("%d findings, want 1: %v", len(ds), ds)
	}
	want := `spec.forProvider.region is required by Bucket, and only set when zone is set in the environment (which EnvironmentConfig(s) "dev" in the workspace give without it), or when spec.stage is set on the composite resource (an environment patch copies it there)`
	if ds[0].Message != want || ds[0].Severity != SeverityWarning {
		t.Errorf("got %s %q\nwant warning %q", ds[0].Severity, ds[0].Message, want)
	}
}

// A Reference to an EnvironmentConfig nobody defines: one warning on the
// reference (the cluster may hold it), nothing on the patch.
func TestEnvironmentMissingReference(t *testing.T) {
	env := environmentEnv(t)
	ds := environmentFindings(t, env, "nope", "region")
	if len(ds) != 1 || ds[0].Code != codeEnvironment || ds[0].Severity != SeverityWarning ||
		!strings.Contains(ds[0].Message, `Required environment config "nope" not found (none of the 4 EnvironmentConfigs in the workspace is named so), unless the cluster holds an EnvironmentConfig crd-lsp does not know`) {
		t.Fatalf("findings: %v", ds)
	}
}

// Without any EnvironmentConfig known, what the environment holds is
// not known: an info on the step, no warning on what reads it.
func TestEnvironmentUnknownWithoutConfigs(t *testing.T) {
	env := environmentEnv(t)
	env.Cluster = Cluster{}
	ds := environmentFindings(t, env, "base", "region")
	if len(ds) != 1 || ds[0].Severity != SeverityInfo || !strings.Contains(ds[0].Message, "no EnvironmentConfig is known") {
		t.Fatalf("findings: %v", ds)
	}
}
