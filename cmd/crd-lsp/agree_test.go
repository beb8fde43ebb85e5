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
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// The files of the layouts below: an XRD, a classic Composition (mode
// Resources, valid for Crossplane v1 only) that patches a misspelt
// composite field into a ConfigMap, and an example claim.
var (
	agreeXRD = testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", Version: "v1alpha1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              parameters:
                type: object
                properties:
                  size: {type: string}
`}.YAML()
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

// agreeFunctions names the functions a Composition's steps run (issue
// 22: steps are linked to their function through the workspace's
// Function objects, or crossplane.yaml's dependencies, which the editor
// would try to reach).
const agreeFunctions = `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: crossplane-contrib-function-patch-and-transform
spec:
  package: xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.8.2
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: crossplane-contrib-function-kcl
spec:
  package: xpkg.upbound.io/crossplane-contrib/function-kcl:v0.11.0
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: crossplane-contrib-function-auto-ready
spec:
  package: xpkg.upbound.io/crossplane-contrib/function-auto-ready:v0.5.1
`

var agreeAppXRD = testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: "XApp", Plural: "xapps", Scope: "Namespaced", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
`}.YAML()

// agreeFnComposition holds one of each class of issue 22: an old-group
// P&T input (checked as P&T: its unknown patch type, and a combine fmt
// reading more values than it has), a namespaced XR composing a
// ClusterRole, KCL's empty target (info) and unknown target (warning)
// and an unknown field (error), go-templating's misspelt source, a
// function template's placeholder input left for auto-ready, and a
// compositeTypeRef typo.
var agreeFnComposition = testfixtures.Composition{Name: "xapps", XRAPIVersion: "example.org/v1", XRKind: "XApp", FlowRef: true, Steps: `
  - step: pt
    functionRef: {name: crossplane-contrib-function-patch-and-transform}
    input:
      apiVersion: pt.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: role
        base: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, rules: []}
      - name: cm
        base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}
        patches:
        - type: FromCompositeFieldPathh
          fromFieldPath: spec.size
          toFieldPath: data.size
        - type: CombineFromComposite
          combine:
            strategy: string
            variables: [{fromFieldPath: spec.size}]
            string: {fmt: "%s-%s"}
          toFieldPath: data.both
  - step: kcl-empty
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {target: "", source: "items = []"}
  - step: kcl-typo
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {target: Resourcse, sourc: "items = []"}
  - step: gt
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: inline
      inline: {template: "x"}
  - step: ready
    functionRef: {name: crossplane-contrib-function-auto-ready}
    input:
      apiVersion: template.fn.crossplane.io/v1beta1
      kind: Input
      example: Hello
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: typo
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XAp}
  mode: Pipeline
  pipeline:
  - step: kcl
    functionRef: {name: crossplane-contrib-function-kcl}
`}.YAML()

// agreeUptest is an upjet provider's example, an uptest template.
const agreeUptest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: example-${Rand.RFC1123Subdomain}
data:
  account: ${data.aws_account_id}
`

// agreeTemplating is a function-go-templating Composition of
// agreeXRD's kind, with nothing configured to run it: crd-lsp renders it
// in-process. Its Deployment (templated: an action in its name) writes
// replicas as a word, and its ConfigMap an execution error.
var agreeTemplating = testfixtures.Composition{Name: "xdatabases-templated", XRAPIVersion: "example.org/v1alpha1", XRKind: "XDatabase", FlowRef: true, Steps: `
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
`}.YAML()

var agreeTemplatingFS = testfixtures.Composition{Name: "xdatabases-files", XRAPIVersion: "example.org/v1alpha1", XRKind: "XDatabase", FlowRef: true, Steps: `
  - step: templates
    functionRef:
      name: function-go-templating
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: FileSystem
      fileSystem:
        dirPath: templates
`}.YAML()

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
	// 3,000 findings on one line, and 1,200 lines with one each: both
	// show the first analysis.MaxPerLine of the line and a summary, and at
	// most analysis.MaxPerFile per file, the last a summary.
	var oneLine, manyLines strings.Builder
	oneLine.WriteString("apiVersion: example.org/v1alpha1\nkind: XDatabase\nmetadata:\n  name: line\nspec:\n  parameters: {size: s")
	for i := range 3000 {
		fmt.Fprintf(&oneLine, ", p%04d: 1", i)
	}
	oneLine.WriteString("}\n")
	manyLines.WriteString("apiVersion: example.org/v1alpha1\nkind: XDatabase\nmetadata:\n  name: lines\nspec:\n  parameters:\n")
	for i := range 1200 {
		fmt.Fprintf(&manyLines, "    q%04d: 1\n", i)
	}
	lineSummary := fmt.Sprintf("line.yaml:6:%d error too-many-findings", strings.Index(strings.Split(oneLine.String(), "\n")[5], "p0050")+1)

	cases := []struct {
		name     string
		files    map[string]string
		flags    []string
		settings map[string]any
		// want lists findings both must report (a guard against a layout
		// where both are silent by mistake); clean, files neither may
		// report anything in.
		want, clean []string
		// absent are findings neither may report (a part of the line).
		absent []string
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
		// outside a kustomization is a whole object. The overlay patches
		// a CRD its resources lack: kustomize build fails, on that patch.
		name: "kustomize patches",
		files: map[string]string{
			"base/kustomization.yaml": "resources: [deployment.yaml]\n", "base/deployment.yaml": agreeDeployment,
			"overlay/kustomization.yaml": agreeKustomization, "overlay/replicas.yaml": agreeReplicasPatch, "overlay/webhook.patch.yaml": agreeWebhookPatch,
			"loose/replicas.yaml": agreeReplicasPatch,
		},
		want:  []string{"overlay/replicas.yaml:6:13 error type", "loose/replicas.yaml:5:1 error required", "loose/replicas.yaml:6:13 error type", "overlay/kustomization.yaml:6:5 error kustomize-build"},
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
		name:  "too many findings",
		files: map[string]string{"xrd.yaml": agreeXRD, "line.yaml": oneLine.String(), "lines.yaml": manyLines.String()},
		want:  []string{lineSummary, "lines.yaml:1006:5 error too-many-findings"},
	}, {
		// The environment function-environment-configs builds from the
		// workspace's EnvironmentConfigs: a Single selector matching two
		// fails the pipeline, one finding on the selector (before: a
		// warning on each patch reading the empty environment it was
		// rendered with).
		name: "environment from the workspace's EnvironmentConfigs",
		files: map[string]string{
			"xrd.yaml": agreeFile(t, "environment/xrd.yaml"), "environmentconfigs.yaml": agreeFile(t, "environment/environmentconfigs.yaml"),
			"composition.yaml": agreeFile(t, "environment/composition.yaml"), "xr.yaml": agreeFile(t, "environment/xr.yaml"),
			"single/composition.yaml": agreeFile(t, "environment/single/composition.yaml"),
		},
		want:   []string{"single/composition.yaml:17:11 error environment"},
		clean:  []string{"xrd.yaml", "environmentconfigs.yaml", "xr.yaml"},
		absent: []string{"render-required", "only set when"},
	}, {
		// Issue 22: steps as their functions run them, scope as
		// Crossplane v2 enforces it, the smaller checks.
		name: "functions, inputs and scope",
		files: map[string]string{
			"functions.yaml": agreeFunctions, "kcl-crd.yaml": testfixtures.KCLInputCRD, "xrd.yaml": agreeAppXRD, "composition.yaml": agreeFnComposition,
		},
		want: []string{
			"composition.yaml:12:19 info step-input", "composition.yaml:16:64 error composition-scope", "composition.yaml:20:17 error composition-patch",
			"composition.yaml:27:27 warning composition-patch", "composition.yaml:34:22 info enum", "composition.yaml:40:22 info enum",
			"composition.yaml:40:33 info unknown-field", "composition.yaml:46:15 error enum", "composition.yaml:51:19 info step-input",
			"composition.yaml:60:56 warning composition-schema",
		},
	}, {
		// Crossplane's e2e fixture: function-dummy runs in-process (its
		// input is the response it merges in), so the ClusterRole its
		// namespaced XR composes is refused on the resource's kind, in
		// the editor as in check.
		name: "function-dummy composes a cluster-scoped kind",
		files: map[string]string{
			"composition.yaml": agreeCorpusFile(t, "workspaces/crossplane-e2e/apiextensions/composition/namespaced-xr-no-cluster-scoped-resource/setup/composition.yaml"),
			"definition.yaml":  agreeCorpusFile(t, "workspaces/crossplane-e2e/apiextensions/composition/namespaced-xr-no-cluster-scoped-resource/setup/definition.yaml"),
			"functions.yaml":   agreeCorpusFile(t, "workspaces/crossplane-e2e/apiextensions/composition/namespaced-xr-no-cluster-scoped-resource/setup/functions.yaml"),
		},
		want:  []string{"composition.yaml:23:23 error composition-scope"},
		clean: []string{"definition.yaml", "functions.yaml"},
	}, {
		name:     "uptest placeholders",
		files:    map[string]string{"examples/cm.yaml": agreeUptest, "examples/bad.yaml": strings.ReplaceAll(agreeUptest, "example-", "Example-")},
		flags:    []string{"--uptest-placeholders"},
		settings: map[string]any{"uptestPlaceholders": true},
		want:     []string{"examples/bad.yaml:4:9 error metadata"},
		clean:    []string{"examples/cm.yaml"},
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
			for _, a := range tc.absent {
				for _, d := range all {
					if strings.Contains(d, a) {
						t.Errorf("finding %q should not be reported", d)
					}
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

// agreeFile is a file of testdata/render (the golden renders' inputs).
func agreeFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "render", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// agreeCorpusFile is a file of ../shared/corpus.
func agreeCorpusFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
