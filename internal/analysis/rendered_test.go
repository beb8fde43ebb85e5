package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// A legacy (v1) XRD with a claim, and a managed resource whose
// connection-secret reference needs a namespace, as upjet's do.
var renderXRD = testfixtures.XRD{APIVersion: "v1", Group: "platform.example.org", Kind: "XBucket", Plural: "xbuckets", ClaimKind: "BucketClaim", ClaimPlural: "bucketclaims", Version: "v1alpha1", Schema: `
        type: object
        properties:
          spec:
            type: object
            required: [parameters]
            properties:
              parameters:
                type: object
                properties:
                  region: {type: string, enum: [us, eu]}
                  size: {type: integer}
                  label: {type: string}
                  deletionPolicy: {type: string, default: Delete}
`}.YAML()

const renderMRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: buckets.storage.example.org
spec:
  group: storage.example.org
  scope: Cluster
  names: {kind: Bucket, plural: buckets, singular: bucket, listKind: BucketList}
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
            required: [forProvider]
            properties:
              deletionPolicy: {type: string, enum: [Delete, Orphan]}
              forProvider:
                type: object
                required: [region]
                properties:
                  region: {type: string, enum: [us, eu]}
                  size: {type: integer}
              writeConnectionSecretToRef:
                type: object
                required: [name, namespace]
                properties:
                  name: {type: string}
                  namespace: {type: string}
`

// renderComposition is a P&T Composition of one Bucket; resource holds
// the resource's patches (indented for the input) and conn the
// Composition's writeConnectionSecretsToNamespace ("" for none).
func renderComposition(conn, patches string) string {
	c := `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: buckets
spec:
`
	if conn != "" {
		c += "  writeConnectionSecretsToNamespace: " + conn + "\n"
	}
	return c + `  compositeTypeRef: {apiVersion: platform.example.org/v1alpha1, kind: XBucket}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: bucket
        base:
          apiVersion: storage.example.org/v1
          kind: Bucket
          spec:
            forProvider: {}
        patches:
` + patches
}

// xrdEnv is a Crossplane 2 Env with the built-in schemas, xrd as the
// workspace's /ws/xrd.yaml and renderMRD (the Bucket CRD) as /ws/mr.yaml.
func xrdEnv(t *testing.T, xrd string) Env {
	t.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFiles([]schemas.FileInput{
		{Source: workspace.Source("/ws/xrd.yaml"), Path: "/ws/xrd.yaml", Content: []byte(xrd)},
		{Source: workspace.Source("/ws/mr.yaml"), Path: "/ws/mr.yaml", Content: []byte(renderMRD)},
	})
	return Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}
}

func renderEnv(t *testing.T, example string) Env {
	t.Helper()
	env := xrdEnv(t, renderXRD)
	if example != "" {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(example), &obj); err != nil {
			t.Fatal(err)
		}
		setRender(&env, func(r *RenderInputs) {
			r.Examples = func(schemas.GVK) []Example { return []Example{{Path: "/ws/examples/xr.yaml", Object: obj}} }
		})
	}
	return env
}

// renderFindings are the rendering findings (render-*) of a Composition,
// as "line:col severity code message".
func renderFindings(t *testing.T, text string, env Env) []string {
	t.Helper()
	f := document.Parse("/ws/composition.yaml", 1, []byte(text))
	var out []string
	for _, d := range Diagnose(context.Background(), f, env) {
		if strings.HasPrefix(d.Code, "render") {
			l, c := f.Mapper.LineCol(d.Span.Start)
			out = append(out, fmt.Sprintf("%d:%d %s %s %s", l, c, d.Severity, d.Code, d.Message))
		}
	}
	return out
}

func expectFindings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d = %s\nwant it to contain %q", i, got[i], want[i])
		}
	}
}

const regionPatch = `        - fromFieldPath: spec.parameters.region
          toFieldPath: spec.forProvider.region
`

const connPatches = `        - fromFieldPath: metadata.uid
          toFieldPath: spec.writeConnectionSecretToRef.name
        - fromFieldPath: spec.writeConnectionSecretToRef.namespace
          toFieldPath: spec.writeConnectionSecretToRef.namespace
`

// Crossplane gives a legacy XR without a connection-secret reference one
// in the Composition's writeConnectionSecretsToNamespace before any patch
// runs: the namespace is set whatever the XR says. Without that field the
// XR's optional reference decides.
func TestRenderConnectionSecretFromComposition(t *testing.T) {
	patches := regionPatch + connPatches
	// The smallest XR lacks the optional region: that warning stays.
	region := "spec.forProvider.region is required by Bucket, and only set when spec.parameters.region is set on the composite resource"
	expectFindings(t, renderFindings(t, renderComposition("crossplane-system", patches), renderEnv(t, "")),
		"24:24 warning render-required "+region)
	expectFindings(t, renderFindings(t, renderComposition("", patches), renderEnv(t, "")),
		"23:24 warning render-required "+region,
		"27:24 warning render-required spec.writeConnectionSecretToRef.namespace is required by Bucket, and only set when spec.writeConnectionSecretToRef.namespace is set on the composite resource")
}

// An example whose own value its XRD rejects is reported on the example;
// the Composition that copies the value is not blamed for it.
func TestRenderInvalidExampleNotBlamedOnComposition(t *testing.T) {
	comp := renderComposition("crossplane-system", regionPatch+`        - fromFieldPath: spec.parameters.label
          toFieldPath: spec.forProvider.size
`)
	ex := "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata:\n  name: b\nspec:\n  parameters:\n    region: mars\n    label: big\n"
	// region "mars" is the example's mistake (its XRD's enum); label is a
	// valid string that the Composition writes into an integer.
	expectFindings(t, renderFindings(t, comp, renderEnv(t, ex)),
		"24:24 warning render-required spec.forProvider.region",
		"26:24 error render-value rendered with examples/xr.yaml, spec.forProvider.size gets a value Bucket rejects: must be of type integer")
	// The same through a claim.
	claim := strings.Replace(strings.Replace(ex, "kind: XBucket", "kind: BucketClaim", 1), "name: b\n", "name: b\n  namespace: team-a\n", 1)
	expectFindings(t, renderFindings(t, comp, renderEnv(t, claim)),
		"24:24 warning render-required spec.forProvider.region",
		"26:24 error render-value rendered with examples/xr.yaml, spec.forProvider.size gets a value Bucket rejects")
}

// Two patches write one field: the value is the last one's, and so is the
// blame.
func TestRenderValueBlamedOnLastWriter(t *testing.T) {
	comp := renderComposition("crossplane-system", regionPatch+`        - fromFieldPath: spec.parameters.size
          toFieldPath: spec.forProvider.size
        - fromFieldPath: spec.parameters.label
          toFieldPath: spec.forProvider.size
`)
	ex := "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata:\n  name: b\nspec:\n  parameters:\n    region: us\n    size: 3\n    label: big\n"
	expectFindings(t, renderFindings(t, comp, renderEnv(t, ex)),
		"24:24 warning render-required spec.forProvider.region",
		"28:24 error render-value rendered with examples/xr.yaml, spec.forProvider.size gets a value Bucket rejects")
}

// A patch that cannot run has its own finding; the required fields it
// might have set are not reported on top.
func TestRenderFailedPatchHidesWhatItMightSet(t *testing.T) {
	// A misspelt PatchSet name: what the PatchSet it means sets is not
	// reported missing; the name is.
	withSet := func(name string) string {
		c := renderComposition("crossplane-system", "        - type: PatchSet\n          patchSetName: "+name+"\n")
		return strings.Replace(c, "      resources:\n", "      patchSets:\n      - name: region\n        patches:\n        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      resources:\n", 1)
	}
	comp := withSet("regoin")
	expectFindings(t, renderFindings(t, comp, renderEnv(t, "")))
	f := document.Parse("/ws/composition.yaml", 1, []byte(comp))
	found := false
	for _, d := range Diagnose(context.Background(), f, renderEnv(t, "")) {
		found = found || (d.Severity == severity.Error && strings.Contains(d.Message, `no patchSet named "regoin"`))
	}
	if !found {
		t.Errorf("the missing PatchSet is not reported")
	}
	// A name like no PatchSet's tells nothing of what it would set: the
	// missing field is reported as well.
	expectFindings(t, renderFindings(t, withSet("networking"), renderEnv(t, "")),
		"error render-required spec.forProvider.region is required by Bucket, but neither the base nor any patch sets it")
	// A transform that fails on the composite's value (a name is no
	// integer): the field it writes is not reported missing.
	comp = renderComposition("crossplane-system", `        - fromFieldPath: metadata.name
          toFieldPath: spec.forProvider.region
          transforms:
          - type: convert
            convert: {toType: int64}
`)
	got := renderFindings(t, comp, renderEnv(t, ""))
	for _, g := range got {
		if strings.Contains(g, "spec.forProvider.region is required") {
			t.Errorf("a field the failing patch writes is reported missing: %s", g)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "render-transform") {
		t.Errorf("findings = %q, want the failing map transform alone", got)
	}
}

// TestRenderCELRequiredNotHidden: a field an MR's CEL rule requires is
// reported though another required field is missing too — the API server
// skips CEL rules on an object with such errors, but tells once they are
// fixed: one mistake must not hide the other.
func TestRenderCELRequiredNotHidden(t *testing.T) {
	mrd := strings.Replace(renderMRD, `                  size: {type: integer}
`, `                  size: {type: integer}
                  engine: {type: string}
            x-kubernetes-validations:
            - rule: has(self.forProvider.engine)
              message: spec.forProvider.engine is a required parameter
`, 1)
	env := renderEnv(t, "")
	env.Workspace.Schemas = env.Workspace.Schemas.WithFiles([]schemas.FileInput{{Source: workspace.Source("/ws/mr.yaml"), Path: "/ws/mr.yaml", Content: []byte(mrd)}})
	got := renderFindings(t, renderComposition("", ""), env)
	var region, engine bool
	for _, g := range got {
		region = region || strings.Contains(g, "spec.forProvider.region is required by Bucket")
		engine = engine || strings.Contains(g, "spec.forProvider.engine is required by Bucket")
	}
	if !region || !engine {
		t.Errorf("want both the missing region (schema) and engine (CEL rule) reported:\n%s", strings.Join(got, "\n"))
	}
}
