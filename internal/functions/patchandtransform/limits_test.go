package patchandtransform

import (
	"errors"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

func limitNote(t *testing.T, out render.Output) render.Note {
	t.Helper()
	for _, n := range out.Notes {
		if n.Code == "render-limit" {
			return n
		}
	}
	t.Fatalf("no render-limit note:\n%s", notes(out))
	return render.Note{}
}

func stringTransform(typ string, conf map[string]any) map[string]any {
	conf["type"] = typ
	return map[string]any{"type": "string", "string": conf}
}

// TestTransformOutputIsCapped: transforms that grow a string without end
// stop at MaxValueSize with a warning on the transform that crossed it;
// the resource is not rendered (the value would be wrong), nothing grows.
func TestTransformOutputIsCapped(t *testing.T) {
	replace := stringTransform("Replace", map[string]any{"replace": map[string]any{"search": "a", "replace": strings.Repeat("a", 10)}})
	reuse := stringTransform("Format", map[string]any{"fmt": "%[1]s%[1]s%[1]s%[1]s"})
	wide := stringTransform("Format", map[string]any{"fmt": strings.Repeat("%1000000s", 100)})
	x := map[string]any{"apiVersion": "example.org/v1", "kind": "XApp", "metadata": map[string]any{"name": "app"},
		"spec": map[string]any{"name": strings.Repeat("a", 2000)}}
	for _, c := range []struct {
		name       string
		transforms []any
		at         string
		msg        string
	}{
		{"three Replace", []any{replace, replace, replace}, "transforms[2]", "the Replace output is 1.9 MiB, over crd-lsp's rendering limit of 1.0 MiB"},
		{"Format reusing its argument", []any{reuse, reuse, reuse, reuse, reuse, reuse, reuse, reuse}, "transforms[4]", "the Format output could be up to 19.5 MiB"},
		{"Format with huge widths", []any{wide}, "transforms[0]", "the Format output could be up to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			patch := map[string]any{"fromFieldPath": "spec.name", "toFieldPath": "data.v", "transforms": c.transforms}
			out := Render(Input{Composition: ptComposition([]any{res("grow", patch)}, nil), XR: x})
			n := limitNote(t, out)
			if !strings.HasSuffix(n.Path.String(), "patches[0]."+c.at) || n.Severity != severity.Warning || !strings.Contains(n.Message, c.msg) || !strings.Contains(n.Message, `resource "grow" is not rendered`) {
				t.Errorf("note %s (severity %d): %s", n.Path, n.Severity, n.Message)
			}
			if out.Resources[0].Object != nil {
				t.Error("the resource was rendered with a truncated value")
			}
		})
	}
}

// TestCombineAndObjectsAreCapped: a combined string, and an object that
// patches keep writing into (a wildcard over many elements), stop at
// their limits too.
func TestCombineAndObjectsAreCapped(t *testing.T) {
	big := strings.Repeat("b", 600<<10)
	x := map[string]any{"apiVersion": "example.org/v1", "kind": "XApp", "metadata": map[string]any{"name": "app"},
		"spec": map[string]any{"big": big}}
	combine := map[string]any{"type": "CombineFromComposite", "toFieldPath": "data.v", "combine": map[string]any{
		"strategy": "string", "variables": []any{map[string]any{"fromFieldPath": "spec.big"}}, "string": map[string]any{"fmt": "%[1]s%[1]s"}}}
	out := Render(Input{Composition: ptComposition([]any{res("combined", combine)}, nil), XR: x})
	if n := limitNote(t, out); !strings.HasSuffix(n.Path.String(), "patches[0]") || !strings.Contains(n.Message, "the combined value is 1.2 MiB") {
		t.Errorf("combine: note %s: %s", n.Path, n.Message)
	}

	items := make([]any, 10)
	for i := range items {
		items[i] = map[string]any{"name": "x"}
	}
	wild := map[string]any{"name": "wild", "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "spec": map[string]any{"items": items}},
		"patches": []any{map[string]any{"fromFieldPath": "spec.big", "toFieldPath": "spec.items[*].name"}}}
	out = Render(Input{Composition: ptComposition([]any{wild}, nil), XR: x, Lenient: true})
	if n := limitNote(t, out); !strings.Contains(n.Message, "the object this patch writes to is 3.5 MiB, over crd-lsp's rendering limit of 3.0 MiB") {
		t.Errorf("wildcard: note %s: %s", n.Path, n.Message)
	}
	if o := out.Resources[0].Object; o == nil || valueSize(o, 1<<30) > MaxObjectSize {
		t.Errorf("lenient rendering should keep the resource within the limit, got %d bytes", valueSize(o, 1<<30))
	}
}

// TestQuantityExponentIsCapped: a quantity with a huge exponent took the
// API machinery most of a minute to convert; it is refused at once.
func TestQuantityExponentIsCapped(t *testing.T) {
	conv := map[string]any{"type": "convert", "convert": map[string]any{"toType": "float64", "format": "quantity"}}
	_, err := Transform(conv, "1E-99999999")
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), `the quantity "1E-99999999", whose exponent has 8 digits, over crd-lsp's rendering limit of 6`) {
		t.Errorf("huge exponent: %v", err)
	}
	if _, err := Transform(conv, strings.Repeat("9", 5000)); !errors.As(err, &le) || !strings.Contains(err.Error(), "the quantity to convert is 4.9 KiB, over crd-lsp's rendering limit of 4.0 KiB") {
		t.Errorf("long quantity: %v", err)
	}
	for in, want := range map[string]float64{"1E-999999": 1e-9, "1e3": 1000, "2Ei": 2 * (1 << 60), "1.5Gi": 1.5 * (1 << 30)} {
		if out, err := Transform(conv, in); err != nil || out != want {
			t.Errorf("%s: %v, %v, want %v", in, out, err, want)
		}
	}
}
