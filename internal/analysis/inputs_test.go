package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// kclCRD is function-kcl's input CRD, cut to the fields the tests use
// (testfixtures.KCLInputCRD).
var kclCRD = testfixtures.KCLInputCRD

// inputDiags diagnoses a Composition whose steps are given as YAML (the
// pipeline's items), with the built-in v2 schemas, kclCRD, and the
// workspace's functions: functionRef names → packages.
func inputDiags(t *testing.T, steps string, fns map[string]string, crds ...string) []string {
	t.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range append([]string{kclCRD}, crds...) {
		name := "crd" + itoa(i) + ".yaml"
		st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: name, File: name}, name, []byte(c))
	}
	text := testfixtures.Composition{Name: "c", XRAPIVersion: "example.org/v1", XRKind: "XR", FlowRef: true, Steps: `
`}.YAML() + steps
	f := document.Parse("file:///w/c.yaml", 1, []byte(text))
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2, FunctionOf: func(name string) (StepFunction, bool) {
		p, ok := fns[name]
		return StepFunction{Package: p, From: "functions.yaml"}, ok
	}}}
	var out []string
	for _, d := range Diagnose(context.Background(), f, env) {
		if d.Code == "render-step" || d.Code == "unknown-kind" || d.Code == "composition-schema" || strings.HasPrefix(d.Code, "render") {
			continue
		}
		line, col := f.Mapper.LineCol(d.Span.Start)
		out = append(out, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
	}
	return out
}

// TestFunctionInputs: what a function's recorded answers show it refuses
// (function-go-templating's unknown fields, wrong JSON types, a source it
// does not know) is an error; what only the input CRD says is
// information, for a function whose answers could not be recorded
// (function-kcl: its KCL runtime is not served here) as for any value a
// recorded function is not known to refuse. Before issue 31 the CRD's
// enum on function-kcl's target was a warning, and before issue 22 all of
// these were API-server errors.
func TestFunctionInputs(t *testing.T) {
	kcl := map[string]string{"crossplane-contrib-function-kcl": "xpkg.upbound.io/crossplane-contrib/function-kcl"}
	for _, tc := range []struct {
		name, steps string
		fns         map[string]string
		want        []string // prefixes of findings, in order
	}{
		{"kcl empty target is the default", `
  - step: k
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {source: x, target: ""}
`, kcl, []string{`15:33 info enum unsupported value "": supported values: "Default", "PatchDesired", "PatchResources", "XR", "Resources" (Crossplane does not validate a step's input against the function's input CRD: the function reads the input itself; crd-lsp has no record that function-kcl rejects this)`}},
		{"kcl unknown target: the CRD's word only", `
  - step: k
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {source: x, target: Resourcse}
`, kcl, []string{`15:33 info enum unsupported value "Resourcse"`, ``}},
		{"unknown field and wrong type fail decoding", `
  - step: t
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline: {templat: x}
      delims: left
`, nil, []string{`12:5 info cel some validation rules`, `16:16 error unknown-field unknown field "templat"; did you mean "template"? (function-go-templating fails the step: it cannot decode its input`, `17:15 error type must be of type object: "string" (function-go-templating fails the step: it cannot decode its input`}},
		{"unknown field of a function whose answers are not recorded", `
  - step: k
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {sourc: x, count: "two"}
`, kcl, []string{`15:14 info unknown-field unknown field "sourc"; did you mean "source"? (function-kcl's input CRD does not allow it; crd-lsp has no record of what function-kcl does with it)`, `15:31 info type must be of type integer`}},
		{"range and pattern the function is not known to refuse are information", `
  - step: k
    functionRef: {name: my-kcl}
    input:
      apiVersion: krm.kcl.dev/v1alpha1
      kind: KCLInput
      spec: {source: "", count: 0}
`, nil, []string{`15:22 info pattern should match '^.+$' (Crossplane does not validate a step's input against the function's input CRD: the function reads the input itself; crd-lsp has no record that function-kcl rejects this)`, `15:33 info range`}},
		{"go-templating source", `
  - step: t
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: inline
      inline: {template: "x"}
`, nil, []string{`15:15 error enum unsupported value "inline": function-go-templating knows "Inline", "FileSystem" and "Environment" (did you mean "Inline"?); it fails the step ("invalid function input: invalid source")`}},
		{"go-templating without a source", `
  - step: t
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      inline: {template: "x"}
`, nil, []string{`12:5 error required missing required field "source" (function-go-templating fails the step ("invalid function input: source is required"))`, `12:5 info cel some validation rules`}},
		{"a template's placeholder input for a known function", `
  - step: k
    functionRef: {name: crossplane-contrib-function-kcl}
    input:
      apiVersion: template.fn.crossplane.io/v1beta1
      kind: Input
      example: Hello
`, kcl, []string{`13:19 info step-input step "k" runs function-kcl (xpkg.upbound.io/crossplane-contrib/function-kcl, from functions.yaml), whose input CRD defines krm.kcl.dev KCLInput, not template.fn.crossplane.io Input (crd-lsp has no record of what function-kcl does with another kind)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inputDiags(t, tc.steps, tc.fns)
			want := tc.want
			if len(want) > 0 && want[len(want)-1] == "" {
				want = want[:len(want)-1]
			}
			if len(got) != len(want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
			}
			for i := range want {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Errorf("finding %d:\n got %s\nwant %s…", i, got[i], want[i])
				}
			}
		})
	}
}

// TestPatchAndTransformByFunction: an input of function-patch-and-
// transform written with the old group pt.crossplane.io is read by the
// function all the same: it gets every P&T check (here an unknown patch
// type) and is rendered, with one info naming the group assumed; before,
// the step was "not configured" and nothing in it was checked.
func TestPatchAndTransformByFunction(t *testing.T) {
	steps := `
  - step: pt
    functionRef: {name: crossplane-contrib-function-patch-and-transform}
    input:
      apiVersion: pt.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: cm
        base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}
        patches:
        - {type: FromCompositeFieldPathh, fromFieldPath: spec.a, toFieldPath: data.a}
`
	for _, fns := range []map[string]string{
		{"crossplane-contrib-function-patch-and-transform": "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform"},
		nil, // known by the name Crossplane gives its dependency
	} {
		got := strings.Join(inputDiags(t, steps, fns), "\n")
		if !strings.Contains(got, `error composition-patch unknown patch type "FromCompositeFieldPathh"`) ||
			!strings.Contains(got, "info step-input step \"pt\" runs function-patch-and-transform") ||
			!strings.Contains(got, "checked and rendered as pt.fn.crossplane.io/v1beta1 Resources") {
			t.Errorf("functions %v:\n%s", fns, got)
		}
	}
}

// TestPackageInputKinds: for a function crd-lsp has no table entry for,
// the input CRDs its pulled package ships say which inputs it reads.
func TestPackageInputKinds(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	crd := strings.NewReplacer("kclinputs.krm.kcl.dev", "inputs.foo.fn.acme.io", "group: krm.kcl.dev", "group: foo.fn.acme.io",
		"{kind: KCLInput, listKind: KCLInputList, plural: kclinputs, singular: kclinput}", "{kind: Input, listKind: InputList, plural: inputs, singular: input}").Replace(kclCRD)
	st = st.WithFile(schemas.Source{Kind: schemas.SourcePackage, Name: "xpkg.crossplane.io/acme/function-foo", Version: "v1.0.0"}, "pkg/function-foo", []byte(crd))
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2, FunctionOf: func(name string) (StepFunction, bool) {
		return StepFunction{Package: "xpkg.crossplane.io/acme/function-foo", From: "crossplane.yaml"}, name == "acme-function-foo"
	}}}
	run := func(input string) []string {
		text := "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}\n  mode: Pipeline\n  pipeline:\n  - step: foo\n    functionRef: {name: acme-function-foo}\n    input: " + input + "\n"
		f := document.Parse("file:///w/c.yaml", 1, []byte(text))
		var out []string
		for _, d := range Diagnose(context.Background(), f, env) {
			if d.Code == "step-input" {
				out = append(out, d.Severity.String()+" "+d.Message)
			}
		}
		return out
	}
	if got := run("{apiVersion: foo.fn.acme.io/v1alpha1, kind: Input, spec: {source: x}}"); len(got) != 0 {
		t.Errorf("its own input: %v", got)
	}
	want := `info step "foo" runs function-foo (xpkg.crossplane.io/acme/function-foo, from crossplane.yaml), whose package defines foo.fn.acme.io Input as input, not template.fn.crossplane.io Input`
	if got := run("{apiVersion: template.fn.crossplane.io/v1beta1, kind: Input, example: Hello}"); len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("a placeholder input: %v", got)
	}
}

// fnInputCRD is a one-version input CRD of group and kind with the given
// openAPIV3Schema properties (YAML, indented for the schema's level).
func fnInputCRD(group, kind, props string) string {
	plural := strings.ToLower(kind) + "s"
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + "." + group + `
spec:
  group: ` + group + `
  names: {kind: ` + kind + `, listKind: ` + kind + `List, plural: ` + plural + `, singular: ` + strings.ToLower(kind) + `}
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
` + props
}

// TestMoreFunctionInputs: what function-extra-resources, function-cue
// and function-status-transformer do with input values their CRDs refuse
// (their enums as the CRDs declare them), as each function's recorded
// answers show it (internal/functions/<function>/testdata/conformance):
// status-transformer never fails the step, it reports an event type it
// does not know in a False condition.
func TestMoreFunctionInputs(t *testing.T) {
	extra := fnInputCRD("extra-resources.fn.crossplane.io", "Input", `            spec:
              type: object
              properties:
                policy:
                  type: object
                  properties:
                    resolution: {type: string, enum: [Required, Optional]}
                extraResources:
                  type: array
                  items:
                    type: object
                    properties:
                      type: {type: string, enum: [Reference, Selector]}
                      kind: {type: string}
                      into: {type: string}
                      selector:
                        type: object
                        properties:
                          matchLabels:
                            type: array
                            items:
                              type: object
                              properties:
                                type: {type: string, enum: [FromCompositeFieldPath, Value]}
                                key: {type: string}
                                value: {type: string}
                                fromFieldPathPolicy: {type: string, enum: [Optional, Required]}
`)
	cue := fnInputCRD("cue.fn.crossplane.io", "CueInput", `            source: {type: string, enum: [Inline]}
            script: {type: string}
`)
	status := fnInputCRD("function-status-transformer.fn.crossplane.io", "StatusTransformation", `            statusConditionHooks:
              type: array
              items:
                type: object
                properties:
                  matchers:
                    type: array
                    items:
                      type: object
                      properties:
                        type: {type: string, enum: [AnyResourceMatchesAnyCondition, AnyResourceMatchesAllConditions, AllResourcesMatchAnyCondition, AllResourcesMatchAllConditions]}
                  setConditions:
                    type: array
                    items:
                      type: object
                      properties:
                        target: {type: string, enum: [Composite, CompositeAndClaim]}
                        condition:
                          type: object
                          properties:
                            type: {type: string}
                            status: {type: string, enum: ["True", "False", "Unknown"]}
                  createEvents:
                    type: array
                    items:
                      type: object
                      properties:
                        event:
                          type: object
                          properties:
                            type: {type: string, enum: [Normal, Warning]}
                            message: {type: string}
`)
	for _, tc := range []struct {
		name, steps string
		want        []string
	}{
		{"extra-resources source and matcher types", `
  - step: e
    functionRef: {name: function-extra-resources}
    input:
      apiVersion: extra-resources.fn.crossplane.io/v1beta1
      kind: Input
      spec:
        policy: {resolution: optional}
        extraResources:
        - {type: "", kind: EnvironmentConfig, into: a}
        - type: Selektor
          kind: EnvironmentConfig
          into: b
          selector:
            matchLabels:
            - {type: Valeu, key: k, value: v}
            - {type: Value, key: k, value: v, fromFieldPathPolicy: optional}
`, []string{
			// function-extra-resources v0.3.0's recorded answers prove no
			// rule for these values (an entry that asks for nothing fails
			// the step only beside another that asks for something): what
			// its CRD says is information.
			`16:30 info enum unsupported value "optional": supported values: "Required", "Optional" (Crossplane does not validate a step's input against the function's input CRD: the function reads the input itself; crd-lsp has no record that function-extra-resources v0.3.0 rejects this)`,
			`18:18 info enum unsupported value ""`,
			`19:17 info enum unsupported value "Selektor"`,
			`24:22 info enum unsupported value "Valeu"`,
			`25:68 info enum unsupported value "optional"`,
		}},
		{"cue never reads source", `
  - step: c
    functionRef: {name: function-cue}
    input:
      apiVersion: cue.fn.crossplane.io/v1beta1
      kind: CueInput
      source: File
      script: "response: {}"
`, []string{`15:15 warning enum unsupported value "File": supported values: "Inline" (function-cue never reads source: it runs the inline script whatever source says)`}},
		{"status-transformer defaults and refusals", `
  - step: s
    functionRef: {name: function-status-transformer}
    input:
      apiVersion: function-status-transformer.fn.crossplane.io/v1beta1
      kind: StatusTransformation
      statusConditionHooks:
      - matchers: [{type: AnyResource}]
        setConditions: [{target: Claim, condition: {type: X, status: "true"}}]
        createEvents: [{event: {type: Info, message: m}}]
`, []string{
			`16:20 warning required missing field "conditions": function-status-transformer never matches a matcher without conditions, so the hook never fires`,
			`16:27 warning enum unsupported value "AnyResource"`,
			`17:34 warning enum unsupported value "Claim"`,
			`17:70 warning enum unsupported value "true"`,
			`18:39 error enum unsupported value "Info": supported values: "Normal", "Warning" (function-status-transformer creates no event: it sets StatusTransformationSuccess False (SetConditionFailure, "invalid type"))`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inputDiags(t, tc.steps, nil, extra, cue, status)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range tc.want {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("finding %d:\n got %s\nwant %s…", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestUnservedInputVersion: an input at a version its input CRD does not
// serve is said on its apiVersion, naming the served versions, and its
// fields are checked against the newest served one (before, nothing was
// checked at all).
func TestUnservedInputVersion(t *testing.T) {
	foo := fnInputCRD("foo.fn.acme.io", "Input", `            mode: {type: string}
`)
	got := inputDiags(t, `
  - step: f
    functionRef: {name: acme-function-foo}
    input:
      apiVersion: foo.fn.acme.io/v1alpha1
      kind: Input
      mdoe: fast
`, nil, foo)
	want := []string{
		`13:19 warning step-input foo.fn.acme.io/v1alpha1 Input is not served: the input CRD of its function serves v1beta1 only`,
		`15:7 warning unknown-field unknown field "mdoe"; did you mean "mode"?`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("finding %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}
