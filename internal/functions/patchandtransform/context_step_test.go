package patchandtransform

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// envComposition: a step that loads the environment, then a P&T step
// reading it.
func envComposition() map[string]any {
	pt := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{
		res("cm", map[string]any{"type": "FromEnvironmentFieldPath", "fromFieldPath": "region", "toFieldPath": "data.region"}),
	}}
	return map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{
		map[string]any{"step": "env", "functionRef": map[string]any{"name": "function-environment-configs"}, "input": map[string]any{"kind": "Input"}},
		map[string]any{"step": "pt", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": pt},
	}}}
}

// TestContextStep: the environment a context step leaves is what later
// steps read; an unknown one marks what they skip; a failing one stops a
// strict render, and a lenient one carries on.
func TestContextStep(t *testing.T) {
	step := func(out render.ContextStepResult) func(int, map[string]any, map[string]any) (render.ContextStepResult, bool) {
		return func(i int, sm, env map[string]any) (render.ContextStepResult, bool) {
			if sm["step"] != "env" {
				return render.ContextStepResult{}, false
			}
			return out, true
		}
	}
	out := Render(Input{Composition: envComposition(), XR: xr, ContextStep: step(render.ContextStepResult{Context: map[string]any{render.EnvironmentContextKey: map[string]any{"region": "eu"}}})})
	if got := out.Resources[0].Object["data"]; !mapsEqual(got, map[string]any{"region": "eu"}) {
		t.Errorf("data %v, want the environment's region", got)
	}
	out = Render(Input{Composition: envComposition(), XR: xr, Lenient: true, ContextStep: step(render.ContextStepResult{Unknown: true})})
	if len(out.Resources) != 1 || len(out.Resources[0].Skips) != 1 || !out.Resources[0].Skips[0].Unknown || !out.Resources[0].Skips[0].Environment {
		t.Errorf("skips %+v, want one of an unknown environment", out.Resources)
	}
	failed := render.ContextStepResult{Failed: true, Unknown: true, Notes: []render.Note{{Severity: severity.Error, Code: "environment", Message: "fails"}}}
	if out = Render(Input{Composition: envComposition(), XR: xr, ContextStep: step(failed)}); len(out.Resources) != 0 || len(out.Notes) != 1 {
		t.Errorf("strict: %d resources, notes %q; want none after the failing step, and its note", len(out.Resources), notes(out))
	}
	if out = Render(Input{Composition: envComposition(), XR: xr, Lenient: true, ContextStep: step(failed)}); len(out.Resources) != 1 {
		t.Errorf("lenient: %d resources, want the later step's", len(out.Resources))
	}
}

func mapsEqual(a any, b map[string]any) bool {
	am, ok := a.(map[string]any)
	if !ok || len(am) != len(b) {
		return false
	}
	for k, v := range b {
		if am[k] != v {
			return false
		}
	}
	return true
}
