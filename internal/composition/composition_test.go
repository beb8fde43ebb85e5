package composition

import (
	"fmt"
	"strings"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

func steps(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"step": fmt.Sprintf("s%d", i), "functionRef": map[string]any{"name": "f"}}
	}
	return out
}

// TestPipelineLimits: Crossplane allows at most 99 steps; an empty
// pipeline is an error on mode.
func TestPipelineLimits(t *testing.T) {
	for _, c := range []struct {
		n          int
		wantPath   string
		wantSubstr string
	}{
		{100, "spec.pipeline", "at most 99 steps, this one has 100"},
		{0, "spec.mode", "needs at least one step"},
	} {
		obj := map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": steps(c.n)}}
		probs := Check(obj, Env{})
		found := false
		for _, p := range probs {
			if p.Path.String() == c.wantPath && strings.Contains(p.Message, c.wantSubstr) && p.Severity == severity.Error {
				found = true
			}
		}
		if !found {
			t.Errorf("%d steps: problems %v, want %q at %s", c.n, probs, c.wantSubstr, c.wantPath)
		}
	}
	if probs := Check(map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": steps(99)}}, Env{}); len(probs) != 0 {
		t.Errorf("99 steps: %v", probs)
	}
}

// TestEnvironmentPatchTypes: environment.patches allows the six types P&T
// accepts there, not PatchSet or the Combine*Environment ones.
func TestEnvironmentPatchTypes(t *testing.T) {
	patch := func(typ string) map[string]any {
		return map[string]any{"type": typ, "fromFieldPath": "a", "toFieldPath": "b",
			"combine": map[string]any{"strategy": "string", "variables": []any{map[string]any{"fromFieldPath": "a"}}, "string": map[string]any{"fmt": "%s"}}}
	}
	for typ, ok := range map[string]bool{
		"FromCompositeFieldPath": true, "ToCompositeFieldPath": true, "CombineFromComposite": true, "CombineToComposite": true,
		"FromEnvironmentFieldPath": true, "ToEnvironmentFieldPath": true,
		"PatchSet": false, "CombineFromEnvironment": false, "CombineToEnvironment": false,
	} {
		input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
			"environment": map[string]any{"patches": []any{patch(typ)}}}
		obj := map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{map[string]any{"step": "pt", "functionRef": map[string]any{"name": "f"}, "input": input}}}}
		var bad []string
		for _, p := range Check(obj, Env{}) {
			if strings.Contains(p.Message, "not allowed in environment.patches") {
				bad = append(bad, p.Path.String())
			}
		}
		if ok != (len(bad) == 0) {
			t.Errorf("%s in environment.patches: reported at %v, allowed %v", typ, bad, ok)
		}
		if !ok && (len(bad) != 1 || bad[0] != "spec.pipeline[0].input.environment.patches[0].type") {
			t.Errorf("%s: reported at %v, want on the patch's type", typ, bad)
		}
	}
}

// TestMissingXRD: a Composition whose XRD is unknown gets a warning
// whatever its functions (issue 22: a pipeline without patches was
// silent, although Crossplane never selects a Composition for a kind no
// XRD defines); with patches it adds that they are not checked.
func TestMissingXRD(t *testing.T) {
	none := Env{Schema: func(GVK) (*structuralschema.Structural, bool) { return nil, false }}
	ref := map[string]any{"apiVersion": "example.org/v1", "kind": "XR"}
	templating := map[string]any{"spec": map[string]any{"compositeTypeRef": ref, "mode": "Pipeline", "pipeline": []any{
		map[string]any{"step": "render", "functionRef": map[string]any{"name": "function-go-templating"},
			"input": map[string]any{"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline"}},
	}}}
	warned := false
	for _, p := range Check(templating, none) {
		if strings.Contains(p.Message, "no XRD") {
			warned = p.Severity == severity.Warning && p.Message == "no XRD for example.org/v1 XR in the workspace"
		}
	}
	if !warned {
		t.Errorf("a pipeline without patches: %v", Check(templating, none))
	}
	patched := map[string]any{"spec": map[string]any{"compositeTypeRef": ref, "mode": "Pipeline", "pipeline": []any{
		map[string]any{"step": "pt", "functionRef": map[string]any{"name": "function-patch-and-transform"},
			"input": map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{
				map[string]any{"name": "a", "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
					"patches": []any{map[string]any{"fromFieldPath": "spec.x", "toFieldPath": "data.x"}}},
			}}},
	}}}
	found := false
	for _, p := range Check(patched, none) {
		found = found || (p.Path.String() == "spec.compositeTypeRef.kind" && strings.Contains(p.Message, "no XRD for example.org/v1 XR in the workspace: patches that read or write the composite resource are not checked"))
	}
	if !found {
		t.Errorf("patches without an XRD: no warning: %v", Check(patched, none))
	}
}

// TestMathOperandBeyondFunctionRange: a P&T input's int64 maximum reaches
// the function as 2^63 (the Struct's numbers are float64), which the
// function cannot read back into its int64 field; a classic Composition
// keeps exact integers.
func TestMathOperandBeyondFunctionRange(t *testing.T) {
	transform := func(v any) map[string]any {
		return map[string]any{"type": "math", "math": map[string]any{"type": "Multiply", "multiply": v}}
	}
	resources := func(v any) []any {
		return []any{map[string]any{"name": "r", "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
			"patches": []any{map[string]any{"fromFieldPath": "spec.a", "toFieldPath": "data.a", "transforms": []any{transform(v)}}}}}
	}
	pipeline := func(v any) map[string]any {
		input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": resources(v)}
		return map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{map[string]any{"step": "pt", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": input}}}}
	}
	at := "spec.pipeline[0].input.resources[0].patches[0].transforms[0].math.multiply"
	probs := Check(pipeline(int64(9223372036854775807)), Env{})
	if len(probs) != 1 || probs[0].Path.String() != at || !strings.Contains(probs[0].Message, "arrives as 9223372036854775808") {
		t.Errorf("int64 maximum in a P&T input: %v, want one problem at %s", probs, at)
	}
	if probs := Check(pipeline(int64(9223372036854775295)), Env{}); len(probs) != 0 {
		t.Errorf("largest readable operand: %v", probs)
	}
	classic := map[string]any{"spec": map[string]any{"mode": "Resources", "resources": resources(int64(9223372036854775807))}}
	if probs := Check(classic, Env{}); len(probs) != 0 {
		t.Errorf("int64 maximum in a classic Composition: %v", probs)
	}
}

// TestTransformProblems: the editor's wording and place for each reason
// patchandtransform.ValidateTransform finds, every one of them (the function stops at
// the first), with a classic Composition's defaults.
func TestTransformProblems(t *testing.T) {
	withTransform := func(tr any, classic bool) map[string]any {
		res := []any{map[string]any{"name": "r", "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
			"patches": []any{map[string]any{"fromFieldPath": "spec.a", "toFieldPath": "data.a", "transforms": []any{tr}}}}}
		if classic {
			return map[string]any{"spec": map[string]any{"mode": "Resources", "resources": res}}
		}
		input := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": res}
		return map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{map[string]any{"step": "pt", "functionRef": map[string]any{"name": "function-patch-and-transform"}, "input": input}}}}
	}
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for name, tc := range map[string]struct {
		tr      any
		classic bool
		want    []string // "path key|value: message", path relative to the transform
	}{
		"EveryBadPattern": {
			tr: obj("type", "match", "match", obj("patterns", []any{obj("type", "regexp", "regexp", "("), obj("type", "glob"), obj("literal", "a"), nil, obj("type", "regexp")})),
			want: []string{
				"match.patterns[0].regexp value: invalid regular expression: error parsing regexp: missing closing ): `(`",
				`match.patterns[1].type value: unknown pattern type "glob" (literal or regexp)`,
				"match.patterns[3] key: a literal pattern needs literal",
				"match.patterns[4] key: a regexp pattern needs regexp",
			},
		},
		"NoPatterns":       {tr: obj("type", "match", "match", obj()), want: []string{"match key: a match transform needs at least one pattern"}},
		"NoType":           {tr: obj("map", obj("a", "b")), want: []string{" key: a transform needs a type"}},
		"NotAnObject":      {tr: "map", want: []string{" key: a transform needs a type"}},
		"UnknownType":      {tr: obj("type", "lookup"), want: []string{`type value: unknown transform type "lookup"`}},
		"NoConfiguration":  {tr: obj("type", "convert"), want: []string{" key: a convert transform needs convert"}},
		"MapOfWrongType":   {tr: obj("type", "map", "map", "x"), want: []string{"map key: a map transform needs at least one pair"}},
		"ConvertEnumsLeft": {tr: obj("type", "convert", "convert", obj("toType", "xml", "format", "yaml"))},
		"MathType":         {tr: obj("type", "math", "math", obj("multiply", 2)), want: []string{"math key: a math transform needs math.type (Multiply, ClampMin or ClampMax)"}},
		"ClassicMathType":  {tr: obj("type", "math", "math", obj("multiply", 2)), classic: true},
		"ClassicMultiply":  {tr: obj("type", "math", "math", obj()), classic: true, want: []string{"math key: a Multiply math transform needs multiply"}},
		"UnknownMathType":  {tr: obj("type", "math", "math", obj("type", "Divide")), want: []string{`math.type value: unknown math transform type "Divide"`}},
		"StringType":       {tr: obj("type", "string", "string", obj("fmt", "%s")), want: []string{"string key: a string transform needs string.type"}},
		"ClassicFormat":    {tr: obj("type", "string", "string", obj()), classic: true, want: []string{"string key: a Format string transform needs fmt"}},
		"Trim":             {tr: obj("type", "string", "string", obj("type", "TrimSuffix")), want: []string{"string key: a TrimSuffix string transform needs trim"}},
		"RegexpMissing":    {tr: obj("type", "string", "string", obj("type", "Regexp")), want: []string{"string key: a Regexp string transform needs regexp.match"}},
		"RegexpNoMatch":    {tr: obj("type", "string", "string", obj("type", "Regexp", "regexp", obj("group", 1))), want: []string{"string key: a Regexp string transform needs regexp.match"}},
		"RegexpBad": {tr: obj("type", "string", "string", obj("type", "Regexp", "regexp", obj("match", "a("))),
			want: []string{"string.regexp.match value: invalid regular expression: error parsing regexp: missing closing ): `a(`"}},
		"ReplaceSearch": {tr: obj("type", "string", "string", obj("type", "Replace", "replace", obj("replace", "b"))), want: []string{"string.replace key: a Replace string transform needs replace.search"}},
		"UnreadableOperand": {tr: obj("type", "math", "math", obj("type", "ClampMax", "clampMax", int64(9223372036854775296))),
			want: []string{"math.clampMax value: function-patch-and-transform cannot read 9223372036854775296: Crossplane passes a step's input as a protobuf Struct, whose numbers are float64, so it arrives as 9223372036854775808, which does not fit an int64, and the function rejects its whole input; the largest value it reads is 9223372036854775295"}},
		// The function rejects its whole input for any integer it cannot
		// read, used by the transform's type or not.
		"UnreadableUnusedOperand": {tr: obj("type", "math", "math", obj("type", "Multiply", "multiply", 2, "clampMin", int64(9223372036854775807))),
			want: []string{"math.clampMin value: function-patch-and-transform cannot read 9223372036854775807: Crossplane passes a step's input as a protobuf Struct, whose numbers are float64, so it arrives as 9223372036854775808, which does not fit an int64, and the function rejects its whole input; the largest value it reads is 9223372036854775295"}},
	} {
		t.Run(name, func(t *testing.T) {
			at := "spec.pipeline[0].input.resources[0].patches[0].transforms[0]"
			if tc.classic {
				at = "spec.resources[0].patches[0].transforms[0]"
			}
			var got []string
			for _, p := range Check(withTransform(tc.tr, tc.classic), Env{}) {
				if p.Code != "composition-transform" {
					continue
				}
				where := map[bool]string{true: "key", false: "value"}[p.OnKey]
				got = append(got, fmt.Sprintf("%s %s: %s", strings.TrimPrefix(strings.TrimPrefix(p.Path.String(), at), "."), where, p.Message))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}
