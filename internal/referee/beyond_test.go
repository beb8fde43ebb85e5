package referee

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

// beyond is a check crd-lsp makes that the API server does not: the
// server is not wrong to accept what it reports, because something else
// rejects it (kubectl, Crossplane's webhooks and controllers, a
// function). An error it matches is not a disagreement; each is asserted
// by TestReferee on its example, which the server accepts and crd-lsp
// rejects with that check.
type beyond struct {
	name, why string
	match     func(dg analysis.Diagnostic, kind string) bool
	example   string
	// restates: the check says in one finding what the server reports
	// on these fields (crd-lsp then leaves out the schema's findings).
	restates func(serverField string) bool
}

var classicField = regexp.MustCompile(`^spec\.(resources|patchSets|environment|functions)(\.|\[|$)`)

var pipelineInput = regexp.MustCompile(`^spec\.pipeline\[\d+\]\.input(\.|\[|$)`)

var beyondServer = []beyond{
	{
		name: "duplicate YAML keys",
		why:  "kubectl keeps the last value and sends JSON; the API server rejects raw YAML with duplicate keys",
		match: func(dg analysis.Diagnostic, _ string) bool {
			return dg.Code == "duplicate-key"
		},
		example: `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-a
  name: function-b
spec:
  package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8
`,
	},
	{
		name: "Composition checks",
		why:  "Crossplane's Composition webhook and controllers, and function-patch-and-transform, check patches, fieldPaths, transforms, readiness checks and what a Composition renders; the CRD schema does not",
		// "mode: Resources was removed in Crossplane v2" stands for the
		// schema's unknown classic fields and its missing pipeline.
		restates: func(f string) bool {
			return f == "spec" || classicField.MatchString(f)
		},
		match: func(dg analysis.Diagnostic, _ string) bool {
			for _, p := range []string{"composition-", "fieldpath-", "render-", "function-", "template-", "patch-"} {
				if strings.HasPrefix(dg.Code, p) {
					return true
				}
			}
			return false
		},
		example: `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: referee-patch}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
  - step: patch-and-transform
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: bucket
        base:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: x}
        patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec..region
          toFieldPath: data.region
`,
	},
	{
		name: "function inputs",
		why:  "a Composition step's input is an embedded object the API server keeps as is; the function reads it against its input CRD",
		match: func(dg analysis.Diagnostic, kind string) bool {
			return kind == "Composition" && pipelineInput.MatchString(dg.Path)
		},
		example: `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: referee-input}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
  - step: patch-and-transform
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources: []
      resourcez: []
`,
	},
	{
		name: "provider-kubernetes manifests",
		why:  "an Object's manifest is an embedded object its CRD keeps as is; the target cluster's API server judges it when provider-kubernetes applies it",
		match: func(dg analysis.Diagnostic, kind string) bool {
			return kind == "Object" && strings.HasPrefix(dg.Path, "spec.forProvider.manifest.")
		},
		example: `apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: Object
metadata: {name: referee-manifest, namespace: default}
spec:
  forProvider:
    manifest:
      apiVersion: v1
      kind: Service
      metadata: {name: svc, namespace: default}
      spec: {ports: [{port: 80, protocol: tcp}]}
`,
	},
	{
		name: "XRD rules",
		why:  "Crossplane's XRD webhook and the CRD it derives from an XRD (its name, its schema) are checked by Crossplane, not by the XRD's CRD schema",
		match: func(dg analysis.Diagnostic, _ string) bool {
			return dg.Code == "xrd"
		},
		example: `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: xbuckets.other.org
spec:
  group: example.org
  names: {kind: XBucket, plural: xbuckets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              region: {type: string}
`,
	},
}

// beyondCheck names the check beyond the API server that dg is, if any.
func beyondCheck(dg analysis.Diagnostic, kind string) (string, bool) {
	for _, b := range beyondServer {
		if b.match(dg, kind) {
			return b.name, true
		}
	}
	return "", false
}

// assertBeyond: each listed check fires on its example, which the API
// server accepts.
func assertBeyond(t *testing.T, ctx context.Context, r *referee) {
	t.Helper()
	for _, b := range beyondServer {
		body, err := kubectlJSON([]byte(b.example))
		if err != nil {
			t.Errorf("%s: kubectl cannot send the example: %v", b.name, err)
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			t.Fatal(err)
		}
		j := r.judge(ctx, doc{name: "beyond: " + b.name, text: []byte(b.example), obj: obj})
		switch {
		case j.skipped != "" || j.unavailable != "":
			t.Errorf("%s: the example was not judged: %s%s", b.name, j.skipped, j.unavailable)
		case j.serverReject:
			t.Errorf("%s: the API server rejects the example, so this is no check beyond it: %s", b.name, j)
		case !slices.Contains(j.beyond, b.name):
			t.Errorf("%s: crd-lsp does not make this check on its example (it found %q)", b.name, j.lspSays)
		case j.lspReject:
			t.Errorf("%s: crd-lsp reports more than this check on the example: %s", b.name, j)
		}
	}
}

// lenient is a finding crd-lsp deliberately makes less than an error
// where the API server rejects: a disagreement of severity only, stated
// and asserted (TestReferee checks each one still occurs).
type lenient struct {
	name, why string
	match     func(dg analysis.Diagnostic) bool
}

var lenientFindings = []lenient{
	{
		name: "install-time conversion webhook service",
		why:  "provider packages ship CRDs whose conversion webhook service has no name or namespace: Crossplane's package manager fills them in at install, so crd-lsp says so as info, not as an error",
		match: func(dg analysis.Diagnostic) bool {
			return dg.Code == "crd" && dg.Path == "spec.conversion.webhook.clientConfig.service"
		},
	},
}
