package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// The files of the layouts below: an XRD, a classic Composition (mode
// Resources, valid for Crossplane v1 only) that patches a misspelt
// composite field into a ConfigMap, and an example claim.
const (
	agreeXRD = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xdatabases.example.org
spec:
  group: example.org
  names: {kind: XDatabase, plural: xdatabases}
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              parameters:
                type: object
                properties:
                  size: {type: string}
`
	agreeComposition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xdatabases
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XDatabase}
  resources:
  - name: config
    base:
      apiVersion: v1
      kind: ConfigMap
      metadata: {namespace: default}
      data: {engine: postgres}
    patches:
    - fromFieldPath: spec.parameters.sise
      toFieldPath: data.size
`
	agreeMetaV1 = `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: databases
spec:
  crossplane:
    version: ">=v1.17.0"
`
	agreeXR = `apiVersion: example.org/v1alpha1
kind: XDatabase
metadata:
  name: example
spec:
  parameters:
    size: small
    tier: gold
`
	agreeUnknown = `apiVersion: example.org/v1
kind: Cache
metadata:
  name: c
spec: {}
`
)

// TestEditorAgreesWithCheck runs crd-lsp check and the language server
// (driven by the test editor) over the same workspace layouts, settings
// and flags, and requires the same findings in every file: both read the
// workspace through one loader, take each file's Crossplane version from
// its nearest crossplane.yaml, and build one analysis.Env. (check leaves
// out hints, which only editors show.)
const agreeDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`

// agreeTemplate is a Helm template: YAML only once rendered.
const agreeTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "web.fullname" . }}
spec:
  replicas: {{ .Values.replicas }}
  {{- with .Values.selector }}
  selector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
`

const agreeChainsawTest = `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: web
spec:
  bindings:
    - name: name
      value: web
  steps:
    - try:
        - apply:
            file: install.yaml
        - assert:
            file: assert-install.yaml
        - patch:
            file: scale.yaml
`

// agreeChainsawInstall is whole but for its name, an expression, and a
// wrong replicas.
const agreeChainsawInstall = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ($name)
spec:
  replicas: three
  selector:
    matchLabels: {app: ($name)}
  template:
    metadata:
      labels: {app: ($name)}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`

const agreeChainsawAssert = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ($name)
status:
  (readyReplicas > ` + "`0`" + `): true
`

const agreeKustomization = `resources:
  - ../base
patches:
  - path: replicas.yaml
patchesStrategicMerge:
  - webhook.patch.yaml
`

const agreeReplicasPatch = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: three
`

// agreeWebhookPatch is the shape of a kustomize patch that turns on a
// CRD's conversion webhook (as provider-kubernetes's cluster/kustomize
// has): nothing of a whole CRD but its name.
const agreeWebhookPatch = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: objects.kubernetes.crossplane.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions:
        - v1
      clientConfig:
        service:
          path: /convert
`

// agreeTemplating is a function-go-templating Composition of
// agreeXRD's kind, with nothing configured to run it: crd-lsp renders it
// in-process. Its Deployment (templated: an action in its name) writes
// replicas as a word, and its ConfigMap an execution error.
const agreeTemplating = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xdatabases-templated
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XDatabase}
  mode: Pipeline
  pipeline:
  - step: templates
    functionRef:
      name: function-go-templating
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
          apiVersion: apps/v1
          kind: Deployment
          metadata:
            name: {{ .observed.composite.resource.metadata.name }}-web
            annotations:
              gotemplating.fn.crossplane.io/composition-resource-name: web
          spec:
            replicas: three
            selector:
              matchLabels: {app: web}
            template:
              metadata:
                labels: {app: web}
              spec:
                containers:
                - name: web
                  image: nginx
`

const agreeTemplatingFS = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xdatabases-files
spec:
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XDatabase}
  mode: Pipeline
  pipeline:
  - step: templates
    functionRef:
      name: function-go-templating
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: FileSystem
      fileSystem:
        dirPath: templates
`

const agreeTemplatingFSWeb = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .observed.composite.resource.metadata.name }}
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: config
data:
  replicas: 3
`

func TestEditorAgreesWithCheck(t *testing.T) {
	cases := []struct {
		name     string
		files    map[string]string
		flags    []string
		settings map[string]any
		// want lists findings both must report (a guard against a layout
		// where both are silent by mistake); clean, files neither may
		// report anything in.
		want, clean []string
	}{{
		name: "nested crossplane.yaml pins v1",
		files: map[string]string{
			"xrd.yaml": agreeXRD, "composition.yaml": agreeComposition,
			"v1/crossplane.yaml": agreeMetaV1, "v1/composition.yaml": agreeComposition, "v1/xr.yaml": agreeXR,
		},
		want: []string{"composition.yaml:7:3 error", "v1/composition.yaml:15:38 warning fieldpath-unknown"},
	}, {
		name:     "v1 from the setting",
		files:    map[string]string{"xrd.yaml": agreeXRD, "composition.yaml": agreeComposition, "xr.yaml": agreeXR},
		flags:    []string{"--crossplane-version", "v1"},
		settings: map[string]any{"crossplaneVersion": "v1"},
		want:     []string{"composition.yaml:15:38 warning fieldpath-unknown", "xr.yaml:8:5 error unknown-field"},
	}, {
		name:     "strict composition mode",
		files:    map[string]string{"xrd.yaml": agreeXRD, "composition.yaml": agreeComposition},
		flags:    []string{"--crossplane-version", "v1", "--composition-mode", "strict"},
		settings: map[string]any{"crossplaneVersion": "v1", "validation": map[string]any{"compositionMode": "strict"}},
		want:     []string{"composition.yaml:15:38 error fieldpath-unknown"},
	}, {
		name:     "unknown kinds are errors",
		files:    map[string]string{"cache.yaml": agreeUnknown, "xrd.yaml": agreeXRD},
		flags:    []string{"--unknown-kind", "error"},
		settings: map[string]any{"validation": map[string]any{"unknownKind": "error"}},
		want:     []string{"cache.yaml:2:7 error unknown-kind"},
	}, {
		// A kustomize overlay's patches are fragments: checked for what
		// they set, not for what a whole object needs; the same file
		// outside a kustomization is a whole object.
		name: "kustomize patches",
		files: map[string]string{
			"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": agreeDeployment,
			"overlay/kustomization.yaml": agreeKustomization, "overlay/replicas.yaml": agreeReplicasPatch, "overlay/webhook.patch.yaml": agreeWebhookPatch,
			"loose/replicas.yaml": agreeReplicasPatch,
		},
		want:  []string{"overlay/replicas.yaml:6:13 error type", "loose/replicas.yaml:5:1 error required", "loose/replicas.yaml:6:13 error type"},
		clean: []string{"overlay/webhook.patch.yaml", "base/deployment.yaml"},
	}, {
		// A Helm chart's Chart.yaml and templates are not manifests; a
		// templates folder outside a chart is.
		name: "helm chart",
		files: map[string]string{
			"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n", "charts/web/values.yaml": "replicas: 2\n",
			"charts/web/templates/deployment.yaml": agreeTemplate, "templates/replicas.yaml": agreeReplicasPatch,
		},
		want:  []string{"templates/replicas.yaml:6:13 error type"},
		clean: []string{"charts/web/Chart.yaml", "charts/web/values.yaml", "charts/web/templates/deployment.yaml"},
	}, {
		// A chainsaw test's files: assertions are partial matches with
		// expressions, patches are fragments, applied files are whole
		// objects whose "(…)" values chainsaw evaluates first. kuttl's
		// assert files are partial matches too.
		name: "chainsaw and kuttl tests",
		files: map[string]string{
			"tests/web/chainsaw-test.yaml": agreeChainsawTest, "tests/web/install.yaml": agreeChainsawInstall,
			"tests/web/assert-install.yaml": agreeChainsawAssert, "tests/web/scale.yaml": agreeReplicasPatch,
			// kuttl's assert files, known by name.
			"tests/kuttl/00-install.yaml": agreeReplicasPatch, "tests/kuttl/00-assert.yaml": agreeReplicasPatch,
		},
		want:  []string{"tests/web/scale.yaml:6:13 error type", "tests/web/install.yaml:6:13 error type", "tests/kuttl/00-install.yaml:5:1 error required"},
		clean: []string{"tests/web/chainsaw-test.yaml", "tests/web/assert-install.yaml", "tests/kuttl/00-assert.yaml"},
	}, {
		// function-go-templating rendered in-process with nothing
		// configured: what the template composes is validated, on the
		// template's key, in the editor as in check.
		name:  "go-templating rendered natively",
		files: map[string]string{"xrd.yaml": agreeXRD, "composition.yaml": agreeTemplating},
		want:  []string{"composition.yaml:25:13 error render-value"},
	}, {
		// A FileSystem source reads its folder in the workspace (relative
		// to the Composition): its resources are rendered and validated
		// too, the finding on the step.
		name: "go-templating FileSystem templates",
		files: map[string]string{"xrd.yaml": agreeXRD, "apis/composition.yaml": agreeTemplatingFS,
			"apis/templates/web.tmpl": agreeTemplatingFSWeb, "apis/templates/.hidden/skipped.tmpl": "{{ fail \"hidden files are skipped\" }}"},
		want: []string{"apis/composition.yaml:17:18 error render-value"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cache := t.TempDir()
			var paths []string
			for p, text := range tc.files {
				full := filepath.Join(dir, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(p, ".yaml") { // template files are not opened
					paths = append(paths, p)
				}
			}
			slices.Sort(paths)

			fromCheck := checkFindings(t, dir, append([]string{"--cache-dir", cache}, tc.flags...))

			settings := map[string]any{"cacheDir": cache}
			for k, v := range tc.settings {
				settings[k] = v
			}
			e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: settings})
			e.AwaitSchemas(60 * time.Second)
			fromEditor := map[string][]string{}
			var strictFix bool
			for _, p := range paths {
				e.Open(p, tc.files[p])
				for _, d := range e.AwaitDiagnostics(p, 1, 30*time.Second) {
					if d.Severity == protocol.DiagnosticSeverityHint {
						continue
					}
					code, _ := d.Code.(protocol.String)
					msg, _ := d.Message.(protocol.String)
					r := d.Range
					fromEditor[p] = append(fromEditor[p], editorFinding(p, d))
					// A quick fix carries its diagnostic as published.
					if code != "fieldpath-unknown" {
						continue
					}
					actions, err := e.CodeActions(p, int(r.Start.Line), int(r.Start.Character))
					if err != nil || len(actions) == 0 {
						t.Errorf("%s: no quick fix for %s (%v)", p, msg, err)
						continue
					}
					for _, a := range actions {
						for _, fd := range a.Diagnostics {
							if fd.Severity != d.Severity {
								t.Errorf("%s: the quick fix %q carries its diagnostic as %s, published as %s", p, a.Title, lsptest.SeverityName(fd.Severity), lsptest.SeverityName(d.Severity))
							}
							strictFix = strictFix || fd.Severity == protocol.DiagnosticSeverityError
						}
					}
				}
			}
			sameFindings(t, paths, fromCheck, fromEditor)
			var all []string
			for _, ds := range fromCheck {
				all = append(all, ds...)
			}
			for _, w := range tc.want {
				parts := strings.SplitN(w, " ", 2)
				found := false
				for _, d := range all {
					if strings.HasPrefix(d, parts[0]+"-") && strings.Contains(d, " "+parts[1]+" ") {
						found = true
					}
				}
				if !found {
					t.Errorf("no finding %q in\n  %s", w, strings.Join(all, "\n  "))
				}
			}
			for _, p := range tc.clean {
				if len(fromCheck[p]) > 0 {
					t.Errorf("%s should have no findings, has\n  %s", p, strings.Join(fromCheck[p], "\n  "))
				}
			}
			if tc.name == "strict composition mode" && !strictFix {
				t.Error("strict mode: no quick fix for an error-level fieldPath finding")
			}
		})
	}
}

// checkFindings runs crd-lsp check --output json with flags on dir and
// returns its findings by file (relative to dir), one line each:
// "file:line:col-endline:endcol severity code message".
func checkFindings(t *testing.T, dir string, flags []string) map[string][]string {
	t.Helper()
	args := append(append([]string{"check", "--output", "json"}, flags...), dir)
	_, stdout, stderr := runCmd(t, "", args...)
	var out struct {
		Files []checkedFile `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("check output: %v\n%s\n%s", err, stdout, stderr)
	}
	found := map[string][]string{}
	for _, f := range out.Files {
		rel, _ := filepath.Rel(dir, f.Path)
		for _, d := range f.Diagnostics {
			found[rel] = append(found[rel], fmt.Sprintf("%s:%d:%d-%d:%d %s %s %s", rel, d.Line, d.Column, d.EndLine, d.EndColumn, d.Severity, d.Code, d.Message))
		}
	}
	return found
}

// editorFinding is a published diagnostic as checkFindings words it.
func editorFinding(rel string, d protocol.Diagnostic) string {
	code, _ := d.Code.(protocol.String)
	msg, _ := d.Message.(protocol.String)
	r := d.Range
	return fmt.Sprintf("%s:%d:%d-%d:%d %s %s %s", rel, r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1, lsptest.SeverityName(d.Severity), code, msg)
}

// sameFindings reports every file of paths whose findings differ between
// check and the editor.
func sameFindings(t *testing.T, paths []string, fromCheck, fromEditor map[string][]string) {
	t.Helper()
	for _, p := range paths {
		c, ed := slices.Clone(fromCheck[p]), slices.Clone(fromEditor[p])
		slices.Sort(c)
		slices.Sort(ed)
		if !slices.Equal(c, ed) {
			t.Errorf("%s: check and the editor disagree\ncheck:\n  %s\neditor:\n  %s", p, strings.Join(c, "\n  "), strings.Join(ed, "\n  "))
		}
	}
}
