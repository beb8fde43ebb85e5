package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// TestNativeTemplating: with nothing configured, a go-templating step is
// rendered in-process and what it composes is validated, each finding on
// the template document that composed the resource, exactly as when the
// function runs for real (TestPipelineTemplateDocuments).
func TestNativeTemplating(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	expectFindings(t, findings(t, templatingComposition, env, "render", "function"),
		`28:13 error render-required spec.forProvider.region is required by Bucket, but the resource "bucket-0" that step "templates" composed lacks it (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
		`29:15 error render-value resource "bucket-0" that step "templates" composed: spec.forProvider.size: must be of type integer: "string" (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
		`39:15 error render-value resource "named" that step "templates" composed: spec.forProvider.region: unsupported value "mars"`,
	)
}

// TestNativeTemplatingLiteralValue: a literal value the schema rejects in
// a templated document (one with actions, which the static check cannot
// read as YAML) is found once the template is rendered, even with a
// synthesised composite; values that come from the composite are not
// judged then (its placeholders may be what is wrong).
func TestNativeTemplatingLiteralValue(t *testing.T) {
	env := renderEnv(t, "")
	text := strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", "region: marz\n            size: {{ 2 }}", 1)
	expectFindings(t, findings(t, text, env, "render", "function"),
		`28:13 warning render-required spec.forProvider.region is required by Bucket, but the resource "bucket-0"`,
		`39:15 error render-value resource "named" that step "templates" composed: spec.forProvider.region: unsupported value "marz"`,
	)
}

// TestNativeTemplatingErrors: the function's failures at their place in
// the block scalar: an execution error at its line and column, a
// template that loops without end stopped by crd-lsp's limit (a warning:
// the function may well finish).
func TestNativeTemplatingErrors(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	text := strings.Replace(templatingComposition, "{{ .observed.composite.resource.spec.parameters.label }}", `{{ fail "no region" }}`, 1)
	expectFindings(t, findings(t, text, env, "function"),
		`39:26 error function-result function-go-templating failed: cannot execute template: template: manifests:20:15: executing "manifests" at <fail "no region">: error calling fail: no region`)
	text = strings.Replace(templatingComposition, "{{- range $i := until 2 }}", "{{- range $i := until 2 }}{{ range 100000000 }}{{ end }}", 1)
	got := findings(t, text, env, "function")
	if len(got) != 1 || !strings.HasPrefix(got[0], "20:46 warning function-result function-go-templating: crd-lsp stopped rendering the template: template: manifests:1:35: ") || !strings.Contains(got[0], "crd-lsp's limit") {
		t.Errorf("limit: %q", got)
	}
}

// TestNativeTemplatingPreview: "Preview rendered" on a go-templating
// Composition shows what the template composes, rendered in-process.
func TestNativeTemplatingPreview(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	f := document.Parse("/ws/composition.yaml", 1, []byte(templatingComposition))
	lenses := CodeLenses(f, env)
	if len(lenses) == 0 {
		t.Fatal("no lens")
	}
	ex := env.Workspace.Rendering().Examples(schemas.GVK{})[0]
	out, err := RenderAt(context.Background(), f, lenses[0].Span.Start, ex.Object, ex.Path, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crossplane.io/composition-resource-name: bucket-0", "crossplane.io/composition-resource-name: bucket-1",
		"crossplane.io/composition-resource-name: named", "size: \"3\"", "region: mars"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the preview:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gotemplating.fn.crossplane.io/composition-resource-name") {
		t.Errorf("the function's annotation is left in:\n%s", out)
	}
}

// TestRealTemplatingWins: when the Pipeline runs function-go-templating
// for real (configured), crd-lsp's own renderer does not run the step:
// what the real function answered is all there is.
func TestRealTemplatingWins(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	env.Options.Pipeline = fakeTemplating{results: []functions.Result{{Severity: functions.SeverityWarning, Message: "the real function ran"}}}
	expectFindings(t, findings(t, templatingComposition, env, "render", "function"),
		`11:11 warning function-result function-go-templating: the real function ran`)
}

// TestNativeTemplatingAfterUnrunStep: a template that fails on what an
// earlier step crd-lsp does not run would have provided (the environment
// function-environment-configs builds) gets an info saying so, not an
// error; without such a step, the failure is the template's.
func TestNativeTemplatingAfterUnrunStep(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	text := strings.Replace(templatingComposition, "{{ .observed.composite.resource.spec.parameters.label }}", `{{ index .context "apiextensions.crossplane.io/environment" "region" "name" }}`, 1)
	withEnv := strings.Replace(text, "  pipeline:\n", "  pipeline:\n  - step: environment\n    functionRef:\n      name: crossplane-contrib-function-environment-configs\n", 1)
	got := findings(t, withEnv, env, "function")
	if len(got) != 1 || !strings.Contains(got[0], " info function-result ") || !strings.Contains(got[0], `step "environment" (crossplane-contrib-function-environment-configs) before it, which crd-lsp does not run, may provide what the template reads`) {
		t.Errorf("after an unrun step: %q", got)
	}
	got = findings(t, text, env, "function")
	if len(got) != 1 || !strings.Contains(got[0], " error function-result function-go-templating failed: cannot execute template: template: manifests:20:") {
		t.Errorf("alone: %q", got)
	}
}

// TestNativeTemplatingYAMLError: output the function cannot read as YAML
// fails the step; the error is placed on the template line that wrote
// the offending output line (found by its text), not on the step.
// Before, it was on spec.pipeline[0].step.
func TestNativeTemplatingYAMLError(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	text := strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", "region: {{ .observed.composite.resource.spec.parameters.label }}\n              zone: a: b", 1)
	got := findings(t, text, env, "function")
	if len(got) != 1 || !strings.HasPrefix(got[0], "40:15 error function-result function-go-templating failed: cannot decode manifest: error converting YAML to JSON: yaml: line ") || !strings.Contains(got[0], "near: 'zone: a: b'") {
		t.Errorf("got %q", got)
	}
	// A line partly written by an action: its literal text finds it.
	text = strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", `region: {{ "a: b" }}`, 1)
	got = findings(t, text, env, "function")
	if len(got) != 1 || !strings.HasPrefix(got[0], "39:15 error function-result function-go-templating failed: cannot decode manifest") {
		t.Errorf("partly written by an action: %q", got)
	}
	// A line an action writes whole could be any line of actions: the
	// finding stays on the step.
	text = strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", `region: x`+"\n              "+`{{ "zone: a: b" }}`, 1)
	got = findings(t, text, env, "function")
	if len(got) != 1 || !strings.HasPrefix(got[0], "11:11 error function-result function-go-templating failed: cannot decode manifest") {
		t.Errorf("written by an action: %q", got)
	}
}

// TestNativeTemplatingNoValue: where a template crd-lsp renders writes
// "<no value>" (a field the example composite leaves out), the finding
// is on the action that wrote it, not on what the resource's schema then
// says of the text; an action the static check already reported, or a
// synthesised composite, adds nothing; a read of what only the cluster
// observes is information.
func TestNativeTemplatingNoValue(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3}}\n")
	expectFindings(t, findings(t, templatingComposition, env, "render", "function", "template"),
		`28:13 error render-required spec.forProvider.region is required by Bucket, but the resource "bucket-0"`,
		`29:15 error render-value resource "bucket-0" that step "templates" composed: spec.forProvider.size: must be of type integer`,
		`39:26 warning template-no-value <.observed.composite.resource.spec.parameters.label> has no value (rendered with examples/xr.yaml): function-go-templating writes "<no value>" here`,
	)
	// The static check said it first.
	text := strings.Replace(templatingComposition, "parameters.label }}", "parameters.lable }}", 1)
	expectFindings(t, findings(t, text, env, "render", "function", "template"),
		`28:13 error render-required`,
		`29:15 error render-value`,
		`39:71 warning template-read the composite resource (XBucket) has no field spec.parameters.lable (did you mean "label"?): the template renders "<no value>" there`,
	)
	// Through a variable: the place is the variable's read's.
	text = strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", "{{- $l := .observed.composite.resource.spec.parameters.label }}\n              region: {{ $l }}", 1)
	expectFindings(t, findings(t, text, env, "template"),
		`40:26 warning template-no-value <$l> has no value (rendered with examples/xr.yaml): function-go-templating writes "<no value>" here`)
	text = strings.Replace(text, "parameters.label }}", "parameters.lable }}", 1)
	expectFindings(t, findings(t, text, env, "template"),
		`39:70 warning template-read the composite resource (XBucket) has no field spec.parameters.lable (did you mean "label"?): $l gets no value`)
	// What only the cluster observes.
	text = strings.Replace(templatingComposition, "region: {{ .observed.composite.resource.spec.parameters.label }}", "region: us\n              size: {{ .observed.resources.named.resource.spec.forProvider.size }}", 1)
	got := findings(t, text, env, "template")
	if len(got) != 1 || !strings.HasPrefix(got[0], `40:24 info template-no-value <.observed.resources.named.resource.spec.forProvider.size> has no value (rendered with examples/xr.yaml): function-go-templating writes "<no value>" here, unless`) {
		t.Errorf("observed: %q", got)
	}
	// A synthesised composite.
	if got := findings(t, templatingComposition, renderEnv(t, ""), "template"); len(got) != 0 {
		t.Errorf("synthesised: %q", got)
	}
}

// TestTemplateProducer: findings on what a template rendered sit on the
// template document that wrote the resource, at the key when it is
// written literally, also when the resource's name is templated, the
// document comes from a range, an action elsewhere writes keys (so the
// document is not YAML with its actions blanked), or two documents of
// one kind are told apart by their literal values. Before, the first
// and the last case were on the step's line.
func TestTemplateProducer(t *testing.T) {
	env := readsEnv(t, false)
	setRender(&env, func(r *RenderInputs) {
		r.Examples = func(schemas.GVK) []Example {
			return []Example{{Path: "/ws/examples/xr.yaml", Object: map[string]any{"apiVersion": "platform.example.org/v1alpha1", "kind": "XNetwork",
				"metadata": map[string]any{"name": "n", "namespace": "d", "labels": map[string]any{"team": "a"}}, "spec": map[string]any{"parameters": map[string]any{"region": "us"}}}}}
		}
	})
	for _, tc := range []struct {
		name, tpl string
		want      []string
	}{
		{name: "a templated name, keys an action writes", tpl: `{{- $name := "bucket" }}
apiVersion: storage.example.org/v1
kind: Bucket
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: {{ $name }}
  labels:
    {{- range $k, $v := $.observed.composite.resource.metadata.labels }}
    {{ $k }}: {{ $v }}
    {{- end }}
spec:
  forProvider:
    region: us
    size: "x"
`, want: []string{`14:5 resource "bucket" that step "templates" composed: spec.forProvider.size: must be of type integer: "string" (rendered with examples/xr.yaml)`}},
		{name: "a range, setResourceNameAnnotation of a computed name, a missing required field", tpl: `{{- range $i, $r := list "a" "b" }}
---
apiVersion: storage.example.org/v1
kind: Bucket
metadata:
  annotations:
    {{ setResourceNameAnnotation (printf "b-%s" $r) }}
spec:
  forProvider:
    size: 3
    {{- if false }}
    region: us
    {{- end }}
{{- end }}
`, want: []string{`12:5 spec.forProvider.region is required by Bucket, but the resource "b-a" that step "templates" composed lacks it (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`}},
		{name: "two documents of one kind told apart by literal values", tpl: `{{- range $r := list "us" "eu" }}
---
apiVersion: storage.example.org/v1
kind: Bucket
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: a-{{ $r }}
spec:
  forProvider:
    region: {{ $r }}
    size: "x"
{{- end }}
{{- range $r := list "us" "eu" }}
---
apiVersion: storage.example.org/v1
kind: Bucket
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: b-{{ $r }}
spec:
  deletionPolicy: Delete
  forProvider:
    region: {{ $r }}
    size: 3
    {{- if false }}
    extra: 1
    {{- end }}
  writeConnectionSecretToRef:
    name: x
{{- end }}
`, want: []string{
			`11:5 resource "a-eu" that step "templates" composed: spec.forProvider.size: must be of type integer: "string" (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
			`28:3 spec.writeConnectionSecretToRef.namespace is required by Bucket, but the resource "b-eu" that step "templates" composed lacks it (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := readsComposition("", tc.tpl, "")
			got := templateFindings(t, text, tc.tpl, env, "render-value", "render-required")
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
