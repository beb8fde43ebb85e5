package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// environmentEnv is an Env with the XRD, the Bucket CRD and the
// EnvironmentConfigs of testdata/render/environment.
func environmentEnv(t *testing.T) Env { t.Helper(); return environmentEnvOf(t, 2) }

// environmentEnvOf is environmentEnv for a Crossplane major.
func environmentEnvOf(t *testing.T, major int) Env {
	t.Helper()
	st, err := workspace.Builtins(major)
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
	return Env{Workspace: Workspace{Schemas: st.WithFiles([]schemas.FileInput{{Source: workspace.Source(p), Path: p, Content: b}}), CrossplaneMajor: major, Render: Given(RenderInputs{Cluster: Cluster{EnvironmentConfigs: cfgs, From: "in the workspace"}})}}
}

var envComposition = testfixtures.Composition{Name: "xstores", XRAPIVersion: "example.org/v1alpha1", XRKind: "XStore", FlowRef: true, Steps: `
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
`}.YAML()

func environmentFindings(t *testing.T, env Env, ref, path string) []Diagnostic {
	t.Helper()
	text := strings.NewReplacer("REF", ref, "PATH", path).Replace(envComposition)
	f := document.Parse("file:///ws/composition.yaml", 1, []byte(text))
	var out []Diagnostic
	for _, d := range Diagnose(context.Background(), f, env) {
		if d.Severity != severity.Hint {
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
	if ds[0].Message != want || ds[0].Severity != severity.Warning {
		t.Errorf("got %s %q\nwant warning %q", ds[0].Severity, ds[0].Message, want)
	}
}

// A Reference to an EnvironmentConfig nobody defines: one warning on the
// reference (the cluster may hold it), nothing on the patch.
func TestEnvironmentMissingReference(t *testing.T) {
	env := environmentEnv(t)
	ds := environmentFindings(t, env, "nope", "region")
	if len(ds) != 1 || ds[0].Code != codeEnvironment || ds[0].Severity != severity.Warning ||
		!strings.Contains(ds[0].Message, `Required environment config "nope" not found (none of the 4 EnvironmentConfigs in the workspace is named so), unless the cluster holds an EnvironmentConfig crd-lsp does not know`) {
		t.Fatalf("findings: %v", ds)
	}
}

// Without any EnvironmentConfig known, what the environment holds is
// not known: an info on the step, no warning on what reads it.
func TestEnvironmentUnknownWithoutConfigs(t *testing.T) {
	env := environmentEnv(t)
	setRender(&env, func(r *RenderInputs) { r.Cluster = Cluster{} })
	ds := environmentFindings(t, env, "base", "region")
	if len(ds) != 1 || ds[0].Severity != severity.Info || !strings.Contains(ds[0].Message, "no EnvironmentConfig is known") {
		t.Fatalf("findings: %v", ds)
	}
}

// fakePipeline runs the steps whose function is "reader" with its own
// Runner, the others as analysis routes them: a real function among
// native steps.
type fakePipeline struct{ run functions.NativeFunc }

func (p fakePipeline) Runs(st functions.Step) bool { return st.Function == "reader" }

func (p fakePipeline) Run(ctx context.Context, in functions.Input, native functions.Router) functions.Output {
	in.Route = functions.Chain(native, func(st functions.Step) (functions.Runner, string) {
		if st.Function == "reader" {
			return functions.Native(p.run), "reader"
		}
		return nil, ""
	})
	return functions.Run(ctx, in)
}

// A real function after a function-environment-configs step reads the
// environment it built (the step runs in-process: no real one is
// configured), from the context, as in a cluster.
func TestEnvironmentForRealFunctions(t *testing.T) {
	env := environmentEnv(t)
	var seen any
	env.Options.Pipeline = fakePipeline{run: func(_ context.Context, _ functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
		e, _ := req.Context["apiextensions.crossplane.io/environment"].(map[string]any)
		seen = e["region"]
		return functions.NativeResponse{Desired: req.Desired, Context: req.Context}, nil
	}}
	text := strings.NewReplacer("REF", "base", "PATH", "region").Replace(envComposition) +
		"  - step: read\n    functionRef: {name: reader}\n"
	f := document.Parse("file:///ws/composition.yaml", 1, []byte(text))
	m, _ := f.Docs[0].Object()
	if _, ok := RenderComposition(context.Background(), f.Docs[0], m.(map[string]any), nil, env, true); !ok {
		t.Fatal("not rendered")
	}
	if seen != "eu-west-1" {
		t.Errorf("the function read region %v from the environment, want base's eu-west-1", seen)
	}
}

// compositionWithEnvironmentCRD is a Composition CRD whose spec has
// environment, as Crossplane's before v1.18 (crd-lsp's built-ins, v1.20
// and v2, prune it).
const compositionWithEnvironmentCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: compositions.apiextensions.crossplane.io
spec:
  group: apiextensions.crossplane.io
  names: {kind: Composition, plural: compositions, listKind: CompositionList, singular: composition}
  scope: Cluster
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
            x-kubernetes-preserve-unknown-fields: true
            properties:
              environment: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

const classicEnvComposition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xstores
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XStore}
  environment:
    environmentConfigs:
    - ref: {name: base}
    - type: Selector
      selector:
        matchLabels:
        - key: stage
          type: Value
          value: STAGE
  resources:
  - name: bucket
    base:
      apiVersion: storage.example.org/v1
      kind: Bucket
      spec:
        forProvider: {}
    patches:
    - type: FromEnvironmentFieldPath
      fromFieldPath: region
      toFieldPath: spec.forProvider.region
`

// Where the Composition API has spec.environment, Crossplane builds the
// environment from it before composing: a Single selector matching one
// sets the field, one matching two fails, once, on the selector.
func TestClassicEnvironment(t *testing.T) {
	env := environmentEnvOf(t, 1)
	env.Workspace.Schemas = env.Workspace.Schemas.WithFiles([]schemas.FileInput{{Source: workspace.Source("/ws/crds/composition.yaml"), Path: "/ws/crds/composition.yaml", Content: []byte(compositionWithEnvironmentCRD)}})
	find := func(stage string) []Diagnostic {
		f := document.Parse("file:///ws/composition.yaml", 1, []byte(strings.ReplaceAll(classicEnvComposition, "STAGE", stage)))
		var out []Diagnostic
		for _, d := range Diagnose(context.Background(), f, env) {
			if d.Severity != severity.Hint && d.Severity != severity.Info {
				out = append(out, d)
			}
		}
		return out
	}
	if ds := find("dev"); len(ds) != 0 {
		t.Errorf("stage dev: unexpected findings %v", ds)
	}
	ds := find("prod")
	if len(ds) != 1 || ds[0].Code != codeEnvironment || ds[0].Severity != severity.Error ||
		!strings.Contains(ds[0].Message, "only 1 EnvironmentConfig can be selected in Single mode, found: 2") {
		t.Fatalf("stage prod: findings %v", ds)
	}
	// The built-in schemas prune spec.environment: nothing is resolved,
	// and the field it would set is reported (with the unknown field).
	env = environmentEnvOf(t, 1)
	if ds := find("dev"); !hasCode(ds, "render-required") {
		t.Errorf("built-in schema: findings %v, want the region reported missing", ds)
	}
}

func hasCode(ds []Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// TestCrossplaneE2EEnvironments renders the classic Compositions of
// Crossplane's own e2e environment tests (shared corpus) with each test's
// claim and EnvironmentConfigs, under a Composition API that still has
// spec.environment: the annotation each patches from the environment is
// the value the selection and merge order give (later wins; Multiple
// sorted by data.priority, cut to maxMatch; Optional resolution skips a
// missing reference).
func TestCrossplaneE2EEnvironments(t *testing.T) {
	root := filepath.Join(corpusdir.Dir(t), "workspaces", "crossplane-e2e", "apiextensions", "environment")
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	st, err := workspace.Builtins(1)
	if err != nil {
		t.Fatal(err)
	}
	xrd := filepath.Join(root, "setup", "definition.yaml")
	st = st.WithFiles([]schemas.FileInput{
		{Source: workspace.Source(xrd), Path: xrd, Content: read(xrd)},
		{Source: workspace.Source("/crds/composition.yaml"), Path: "/crds/composition.yaml", Content: []byte(compositionWithEnvironmentCRD)},
	})
	for test, want := range map[string]string{
		"default": "2", "multipleModeMaxMatch1": "2", "multipleModeMaxMatchNil": "3",
		"resolutionOptional": "1", "resolveAlways": "2", "resolveIfNotPresent": "2",
	} {
		t.Run(test, func(t *testing.T) {
			var cfgs []map[string]any
			for _, o := range ObjectsIn("environmentConfigs.yaml", read(filepath.Join(root, test, "setup", "environmentConfigs.yaml"))) {
				cfgs = append(cfgs, o.Object)
			}
			env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 1, Render: Given(RenderInputs{Cluster: Cluster{EnvironmentConfigs: cfgs, Complete: true, From: "in the test"}})}}
			cp := filepath.Join(root, test, "setup", "composition.yaml")
			f := document.Parse("file://"+cp, 1, read(cp))
			d := f.Docs[len(f.Docs)-1]
			m, err := d.Object()
			if err != nil {
				t.Fatal(err)
			}
			claim, ok := ExampleIn("00-claim.yaml", read(filepath.Join(root, test, "00-claim.yaml")), func(_, k string) bool { return k == "SQLInstance" })
			if !ok {
				t.Fatal("no claim")
			}
			rd, ok := RenderComposition(context.Background(), d, m.(map[string]any), claim.Object, env, false)
			if !ok || len(rd.Resources) != 1 || rd.Resources[0].Object == nil {
				t.Fatalf("not rendered: %+v", rd.Notes)
			}
			md, _ := rd.Resources[0].Object["metadata"].(map[string]any)
			ann, _ := md["annotations"].(map[string]any)
			if ann["valueFromEnv"] != want {
				t.Errorf("valueFromEnv %v, want %s (notes %v)", ann["valueFromEnv"], want, rd.Notes)
			}
		})
	}
}
