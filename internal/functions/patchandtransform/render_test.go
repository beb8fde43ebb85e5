package patchandtransform

import (
	"reflect"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

func ptComposition(resources []any, extra map[string]any) map[string]any {
	input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": resources}
	for k, v := range extra {
		input[k] = v
	}
	return map[string]any{"metadata": map[string]any{"name": "c"}, "spec": map[string]any{
		"mode": "Pipeline",
		"pipeline": []any{
			map[string]any{"step": "pt", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": input},
			map[string]any{"step": "templates", "functionRef": map[string]any{"name": "function-go-templating"}},
			map[string]any{"step": "ready", "functionRef": map[string]any{"name": "crossplane-contrib-function-auto-ready"}},
		},
	}}
}

func res(name string, patches ...any) map[string]any {
	return map[string]any{"name": name, "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}, "patches": patches}
}

var xr = map[string]any{"apiVersion": "example.org/v1", "kind": "XApp", "metadata": map[string]any{"name": "app", "uid": "u1", "namespace": "team"},
	"spec": map[string]any{"name": "web", "size": int64(3)}}

func notes(out render.Output) string {
	var b []string
	for _, n := range out.Notes {
		b = append(b, n.Path.String()+" "+n.Code+": "+n.Message)
	}
	return strings.Join(b, "\n")
}

// TestRenderPolicies: an Optional source that is not set skips the patch;
// a Required one withholds the resource (lenient rendering keeps it and
// notes why); ToComposite patches need observed resources and are skipped;
// other functions are noted on their step.
func TestRenderPolicies(t *testing.T) {
	comp := ptComposition([]any{
		res("optional", map[string]any{"fromFieldPath": "spec.missing", "toFieldPath": "data.a"}, map[string]any{"fromFieldPath": "spec.name", "toFieldPath": "data.name"}),
		res("required", map[string]any{"fromFieldPath": "spec.missing", "toFieldPath": "data.a", "policy": map[string]any{"fromFieldPath": "Required"}}),
		res("to-composite", map[string]any{"type": "ToCompositeFieldPath", "fromFieldPath": "data.x", "toFieldPath": "status.x"}),
	}, nil)
	autoReady := func(ref string) bool { return strings.HasSuffix(ref, "function-auto-ready") }
	out := Render(Input{Composition: comp, XR: xr, Namespaced: true, ComposesNothing: autoReady})
	if len(out.Resources) != 3 {
		t.Fatalf("resources = %d", len(out.Resources))
	}
	opt := out.Resources[0]
	if opt.Object == nil || opt.Object["data"].(map[string]any)["name"] != "web" || len(opt.Skips) != 1 || opt.Skips[0].To.String() != "data.a" {
		t.Errorf("optional: object %v, skips %v", opt.Object, opt.Skips)
	}
	md := opt.Object["metadata"].(map[string]any)
	if md["namespace"] != "team" || md["generateName"] != "app-" || md["labels"].(map[string]any)["crossplane.io/composite"] != "app" ||
		md["annotations"].(map[string]any)["crossplane.io/composition-resource-name"] != "optional" {
		t.Errorf("metadata = %v", md)
	}
	if out.Resources[1].Object != nil {
		t.Errorf("a Required source that is not set must withhold the resource: %v", out.Resources[1].Object)
	}
	if out.Resources[2].Object == nil || out.Resources[2].Object["status"] != nil {
		t.Errorf("to-composite: %v", out.Resources[2].Object)
	}
	n := notes(out)
	for _, want := range []string{
		`spec.pipeline[0].input.resources[1].patches[0] render-required: resource "required" is not created while spec.missing is not set`,
		`spec.pipeline[1].step render-step: step "templates" runs function-go-templating`,
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes lack %q:\n%s", want, n)
		}
	}
	if strings.Contains(n, "spec.pipeline[2]") {
		t.Errorf("auto-ready composes nothing (Input.ComposesNothing says so), yet its step got a note:\n%s", n)
	}
	lenient := Render(Input{Composition: comp, XR: xr, Lenient: true})
	if lenient.Resources[1].Object == nil || !lenient.Resources[1].Skips[0].Required {
		t.Errorf("lenient rendering keeps the withheld resource, marking the skip Required: %+v", lenient.Resources[1])
	}
}

// TestRenderFailures: P&T stops at a failing patch (the resource is not
// rendered); lenient rendering leaves the patch out and goes on. A missing
// PatchSet and [*] over fields that do not exist fail as in P&T.
func TestRenderFailures(t *testing.T) {
	comp := ptComposition([]any{
		res("bad", map[string]any{"fromFieldPath": "spec.name", "toFieldPath": "data.a", "transforms": []any{map[string]any{"type": "map", "map": map[string]any{"x": "y"}}}},
			map[string]any{"fromFieldPath": "spec.name", "toFieldPath": "data.b"}),
		res("set", map[string]any{"type": "PatchSet", "patchSetName": "nope"}),
		res("wild", map[string]any{"fromFieldPath": "spec.name", "toFieldPath": "data.items[*].name"}),
	}, nil)
	out := Render(Input{Composition: comp, XR: xr})
	for i, r := range out.Resources {
		if r.Object != nil {
			t.Errorf("resource %d rendered despite its failure: %v", i, r.Object)
		}
	}
	n := notes(out)
	for _, want := range []string{
		`resources[0].patches[0].transforms[0] render-transform: resource "bad" is not rendered`,
		`resources[1].patches[0] render-invalid: resource "set" is not rendered: cannot find PatchSet by name nope`,
		`resources[2].patches[0] render-patch: resource "wild" is not rendered`,
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes lack %q:\n%s", want, n)
		}
	}
	lenient := Render(Input{Composition: comp, XR: xr, Lenient: true})
	if b := lenient.Resources[0].Object; b == nil || b["data"].(map[string]any)["b"] != "web" {
		t.Errorf("lenient: the patch after the failing one still applies: %v", b)
	}
}

// TestRenderClassicDefaults: a classic Composition's transforms get the API
// server's defaults (string type Format, math type Multiply); P&T's input
// does not.
func TestRenderClassicDefaults(t *testing.T) {
	patch := map[string]any{"fromFieldPath": "spec.size", "toFieldPath": "data.s", "transforms": []any{
		map[string]any{"type": "math", "math": map[string]any{"multiply": int64(2)}},
		map[string]any{"type": "string", "string": map[string]any{"fmt": "n-%d"}},
	}}
	classic := map[string]any{"spec": map[string]any{"resources": []any{res("r", patch)}}}
	out := Render(Input{Composition: classic, XR: xr})
	if o := out.Resources[0].Object; o == nil || o["data"].(map[string]any)["s"] != "n-6" {
		t.Errorf("classic: %v\n%s", o, notes(out))
	}
	pt := Render(Input{Composition: ptComposition([]any{res("r", patch)}, nil), XR: xr})
	if pt.Resources[0].Object != nil || !strings.Contains(notes(pt), "render-invalid") {
		t.Errorf("P&T input without types must not render: %v\n%s", pt.Resources[0].Object, notes(pt))
	}
}

// TestRenderStepFromDesired: a step starts from the desired state earlier
// steps left: a template without a base patches a copy of the resource of
// its name, one with a base replaces it, and other resources pass
// through; nothing is added of Crossplane's metadata, and the inputs are
// not modified. Without an earlier resource the function fails.
func TestRenderStepFromDesired(t *testing.T) {
	earlier := map[string]map[string]any{
		"patched":  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "from-go-templating"}, "data": map[string]any{"keep": "yes"}},
		"replaced": {"apiVersion": "v1", "kind": "Secret"},
		"other":    {"apiVersion": "v1", "kind": "ServiceAccount"},
	}
	before := map[string]any{}
	for k, v := range earlier {
		before[k] = paved.DeepCopy(v)
	}
	input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{
		map[string]any{"name": "patched", "patches": []any{map[string]any{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.name", "toFieldPath": "data.name"}}},
		res("replaced", map[string]any{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.name", "toFieldPath": "data.name"}),
	}}
	path := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline"), fieldpath.Index(2), fieldpath.Field("input")}
	out := RenderStep(StepInput{Input: input, Path: path, Step: "patch", XR: xr, Desired: earlier, DesiredXR: map[string]any{"status": map[string]any{"a": "b"}}})
	if len(out.Notes) > 0 {
		t.Fatalf("notes: %+v", out.Notes)
	}
	after := map[string]any{}
	for k, v := range earlier {
		after[k] = v
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("the earlier desired state was modified: %v", earlier)
	}
	want := map[string]map[string]any{
		"patched":  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "from-go-templating"}, "data": map[string]any{"keep": "yes", "name": "web"}},
		"replaced": {"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"name": "web"}},
		"other":    {"apiVersion": "v1", "kind": "ServiceAccount"},
	}
	if !reflect.DeepEqual(out.Desired, want) {
		t.Errorf("desired = %v\nwant %v", out.Desired, want)
	}
	if out.Resources[0].Path.String() != "spec.pipeline[2].input.resources[0]" || out.Resources[0].Writes[0].To.String() != "data.name" {
		t.Errorf("resource 0: %+v", out.Resources[0])
	}
	wantXR := map[string]any{"apiVersion": "example.org/v1", "kind": "XApp", "status": map[string]any{"a": "b"}}
	if !reflect.DeepEqual(out.DesiredXR, wantXR) {
		t.Errorf("desired composite = %v, want %v", out.DesiredXR, wantXR)
	}
	if out.Environment["kind"] != "Environment" {
		t.Errorf("environment = %v, want the function's internal Environment kind", out.Environment)
	}

	missing := RenderStep(StepInput{Input: input, Path: path, XR: xr, Desired: map[string]map[string]any{}})
	if n := notes(render.Output{Notes: missing.Notes}); !strings.Contains(n, `spec.pipeline[2].input.resources[0] render: composed resource "patched" has no base template, and was not produced by a previous function in the pipeline`) {
		t.Errorf("notes: %s", n)
	}
	if missing.Notes[0].Severity != severity.Error || missing.Resources[0].Object != nil {
		t.Errorf("a base-less template with nothing to patch is the function's failure: %+v", missing)
	}
	opaque := RenderStep(StepInput{Input: input, Path: path, XR: xr, Opaque: true})
	if len(opaque.Notes) != 1 || opaque.Notes[0].Severity != severity.Warning || !strings.Contains(opaque.Notes[0].Message, "an earlier step runs a function crd-lsp did not run") {
		t.Errorf("after a step that was not run: %+v", opaque.Notes)
	}
}

// TestRenderPatchesEarlierStep: in a whole render, a later P&T step's
// template without a base patches what an earlier P&T step composed, and
// the result carries Crossplane's metadata once.
func TestRenderPatchesEarlierStep(t *testing.T) {
	first := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{res("cm")}}
	second := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{
		map[string]any{"name": "cm", "patches": []any{map[string]any{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.name", "toFieldPath": "data.name"}}},
	}}
	comp := map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{
		map[string]any{"step": "one", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": first},
		map[string]any{"step": "two", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": second},
	}}}
	out := Render(Input{Composition: comp, XR: xr})
	if len(out.Notes) > 0 || len(out.Resources) != 1 {
		t.Fatalf("notes %s, %d resources", notes(out), len(out.Resources))
	}
	r := out.Resources[0]
	if r.Step != "two" || r.Object["data"].(map[string]any)["name"] != "web" || r.Object["metadata"].(map[string]any)["generateName"] != "app-" {
		t.Errorf("resource: %+v", r)
	}
}

// TestRenderInt64Operands: Crossplane runs a classic Composition's
// transforms itself, so the int64 maximum multiplies exactly; a P&T input
// reaches the function as a Struct of float64s, where the same operand
// rounds beyond int64 and cannot be read, which the note explains.
func TestRenderInt64Operands(t *testing.T) {
	patch := map[string]any{"fromFieldPath": "spec.one", "toFieldPath": "data.n", "transforms": []any{
		map[string]any{"type": "math", "math": map[string]any{"type": "Multiply", "multiply": int64(9223372036854775807)}},
		map[string]any{"type": "convert", "convert": map[string]any{"toType": "string"}},
	}}
	x := map[string]any{"apiVersion": "example.org/v1", "kind": "XApp", "metadata": map[string]any{"name": "app"}, "spec": map[string]any{"one": int64(1)}}
	classic := map[string]any{"spec": map[string]any{"resources": []any{res("r", patch)}}}
	out := Render(Input{Composition: classic, XR: x})
	if o := out.Resources[0].Object; o == nil || o["data"].(map[string]any)["n"] != "9223372036854775807" {
		t.Errorf("classic: %v\n%s", o, notes(out))
	}
	pt := Render(Input{Composition: ptComposition([]any{res("r", patch)}, nil), XR: x})
	if n := notes(pt); pt.Resources[0].Object != nil || !strings.Contains(n, "math.multiply: cannot be read: 9223372036854775807 reaches the function as 9223372036854775808") {
		t.Errorf("P&T: %v\n%s", pt.Resources[0].Object, n)
	}
}
