package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// fakeTemplating is a Pipeline whose one function stands in for
// function-go-templating (a unit test's fake; the real pipeline engine
// runs it): it composes the objects given, by name, as the function does
// once it executed its template, and returns the results given.
type fakeTemplating struct {
	compose map[string]map[string]any
	results []functions.Result
}

func (f fakeTemplating) Runs(st functions.Step) bool { return st.Function == "function-go-templating" }

func (f fakeTemplating) Run(ctx context.Context, in functions.Input, native functions.Router) functions.Output {
	fn := functions.Native(func(_ context.Context, _ functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
		d := req.Desired
		for n, o := range f.compose {
			obj, _ := paved.DeepCopy(o).(map[string]any)
			d.Resources[n] = functions.Resource{Object: obj}
		}
		return functions.NativeResponse{Desired: d, Results: f.results}, nil
	})
	in.Route = functions.Chain(native, func(st functions.Step) (functions.Runner, string) {
		if f.Runs(st) {
			return fn, "fake go-templating"
		}
		return nil, ""
	})
	return functions.Run(ctx, in)
}

var templatingComposition = testfixtures.Composition{Name: "xbuckets", XRAPIVersion: "platform.example.org/v1alpha1", XRKind: "XBucket", Steps: `
  - step: templates
    functionRef:
      name: function-go-templating
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
          {{- range $i := until 2 }}
          ---
          apiVersion: storage.example.org/v1
          kind: Bucket
          metadata:
            annotations:
              gotemplating.fn.crossplane.io/composition-resource-name: bucket-{{ $i }}
          spec:
            forProvider:
              size: {{ $.observed.composite.resource.spec.parameters.size | quote }}
          {{- end }}
          ---
          apiVersion: storage.example.org/v1
          kind: Bucket
          metadata:
            annotations:
              gotemplating.fn.crossplane.io/composition-resource-name: named
          spec:
            forProvider:
              region: {{ .observed.composite.resource.spec.parameters.label }}
`}.YAML()

// findings are a Composition's diagnostics with the given code prefixes,
// as "line:col severity code message".
func findings(t *testing.T, text string, env Env, prefixes ...string) []string {
	t.Helper()
	f := document.Parse("/ws/composition.yaml", 1, []byte(text))
	var out []string
	for _, d := range Diagnose(context.Background(), f, env) {
		for _, p := range prefixes {
			if strings.HasPrefix(d.Code, p) {
				l, c := f.Mapper.LineCol(d.Span.Start)
				out = append(out, fmt.Sprintf("%d:%d %s %s %s", l, c, d.Severity, d.Code, d.Message))
				break
			}
		}
	}
	return out
}

// TestPipelineTemplateDocuments: what a go-templating step composed is
// validated, each finding on the template document that composed the
// resource (by its literal composition-resource-name, else the only
// unnamed document of its kind), at the key when it is written there, or
// at the nearest key on its way when it is not.
func TestPipelineTemplateDocuments(t *testing.T) {
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3, label: mars}}\n")
	env.Options.Pipeline = fakeTemplating{compose: map[string]map[string]any{
		"bucket-0": {"apiVersion": "storage.example.org/v1", "kind": "Bucket", "spec": map[string]any{"forProvider": map[string]any{"size": "3"}}},
		"bucket-1": {"apiVersion": "storage.example.org/v1", "kind": "Bucket", "spec": map[string]any{"forProvider": map[string]any{"size": "3"}}},
		"named":    {"apiVersion": "storage.example.org/v1", "kind": "Bucket", "spec": map[string]any{"forProvider": map[string]any{"region": "mars"}}},
	}}
	expectFindings(t, findings(t, templatingComposition, env, "render", "function"),
		`28:13 error render-required spec.forProvider.region is required by Bucket, but the resource "bucket-0" that step "templates" composed lacks it (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
		`29:15 error render-value resource "bucket-0" that step "templates" composed: spec.forProvider.size: must be of type integer: "string" (rendered with examples/xr.yaml) (and 1 more resource this template document composed)`,
		`39:15 error render-value resource "named" that step "templates" composed: spec.forProvider.region: unsupported value "mars"`,
	)
}

// TestPipelineFunctionResults: each result of a function is a diagnostic
// on its step, by severity; an execution error of a go template at the
// line and column it names. With a synthesised composite (no example), a
// Fatal result is a warning: the placeholders may be what failed.
func TestPipelineFunctionResults(t *testing.T) {
	fatal := `cannot execute template: template: manifests:20:13: executing "manifests" at <.observed.composite.resource.spec.parameters.label>: map has no entry for key "label"`
	pipeline := fakeTemplating{results: []functions.Result{
		{Severity: functions.SeverityNormal, Message: "composed 3 resources"},
		{Severity: functions.SeverityWarning, Message: "label is deprecated"},
	}}
	env := renderEnv(t, "apiVersion: platform.example.org/v1alpha1\nkind: XBucket\nmetadata: {name: b}\nspec: {parameters: {size: 3}}\n")
	env.Options.Pipeline = pipeline
	expectFindings(t, findings(t, templatingComposition, env, "function"),
		`11:11 info function-result function-go-templating: composed 3 resources`,
		`11:11 warning function-result function-go-templating: label is deprecated`,
	)
	env.Options.Pipeline = fakeTemplating{results: []functions.Result{{Severity: functions.SeverityFatal, Message: fatal}}}
	expectFindings(t, findings(t, templatingComposition, env, "function"),
		`39:24 error function-result function-go-templating failed: `+fatal)
	setRender(&env, func(r *RenderInputs) { r.Examples = nil })
	expectFindings(t, findings(t, templatingComposition, env, "function"),
		`39:24 warning function-result function-go-templating failed: `+fatal+` (rendered with a composite resource synthesised from the XRD)`)
}

// TestLateStepAfterRendering: a step whose call outlived its pipeline (it
// timed out and its runner went on) records nothing once the pipeline's
// rendering is made, so the rendering never races with it (seen under
// -race on a loaded machine).
func TestLateStepAfterRendering(t *testing.T) {
	pr := &pipelineRun{native: map[int]patchandtransform.StepOutput{}, envNotes: map[int][]render.Note{}, noValue: map[int][]gotemplating.NoValue{}}
	pr.rendering(nil, functions.Output{})
	pr.record(func() { pr.native[0] = patchandtransform.StepOutput{} })
	if len(pr.native) != 0 {
		t.Errorf("a late step recorded its output after the rendering")
	}
}
