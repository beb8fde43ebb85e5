package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestTemplateReads: a field a go template reads of the observed composite
// that its XRD does not define is a warning at the field in the template
// (it renders <no value>, or never takes the branch that tests it), with
// the field meant; fields through variables and with blocks too; what
// crd-lsp cannot follow (range, index, maps, metadata) is not judged.
func TestTemplateReads(t *testing.T) {
	const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xnets.example.org}
spec:
  group: example.org
  names: {kind: XNet, plural: xnets}
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
              parameters:
                type: object
                properties:
                  region: {type: string}
                  tags: {type: object, additionalProperties: {type: string}}
                  zones: {type: array, items: {type: string}}
`
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "xrd.yaml", File: "/w/xrd.yaml"}, "/w/xrd.yaml", []byte(xrd))
	comp := func(template string) string {
		return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XNet}
  mode: Pipeline
  pipeline:
  - step: t
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
` + template
	}
	for _, tc := range []struct {
		name, template string
		want           []string
	}{
		{"misspelt parameters", "          region: {{ .observed.composite.resource.spec.paramters.region }}\n",
			[]string{`16:56 warning template-field the composite resource's schema has no field "paramters" in spec; did you mean "parameters"? (the template renders <no value> there)`}},
		{"through a variable", "          {{ $p := .observed.composite.resource.spec.parameters }}\n          region: {{ $p.regoin }}\n",
			[]string{`17:25 warning template-field the composite resource's schema has no field "regoin" in spec.parameters; did you mean "region"?`}},
		{"in an if", "          {{ if .observed.composite.resource.spec.parameters.regin }}x: y{{ end }}\n",
			[]string{`16:62 warning template-field the composite resource's schema has no field "regin" in spec.parameters; did you mean "region"? (the template tests a field that never exists`}},
		{"in a with block", "          {{ with .observed.composite.resource.spec }}region: {{ .parameters.zone }}{{ end }}\n",
			[]string{`16:78 warning template-field the composite resource's schema has no field "zone" in spec.parameters`}},
		{"defaulted", "          region: {{ .observed.composite.resource.spec.parameters.regon | default \"m\" }}\n",
			[]string{`16:67 warning template-field the composite resource's schema has no field "regon" in spec.parameters; did you mean "region"? (no composite can set it: the API server prunes what the XRD does not define, so the default always applies)`}},
		{"fields that exist", "          region: {{ .observed.composite.resource.spec.parameters.region }}\n          name: {{ .observed.composite.resource.metadata.name }}\n          tag: {{ .observed.composite.resource.spec.parameters.tags.team }}\n", nil},
		{"not followed", "          {{ range .observed.composite.resource.spec.parameters.zones }}z: {{ .nope }}{{ end }}\n          {{ $x := index .observed.composite.resource \"spec\" }}a: {{ $x.nope }}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := document.Parse("/w/c.yaml", 1, []byte(comp(tc.template)))
			var got []string
			for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}) {
				if d.Code != "template-field" {
					continue
				}
				line, col := f.Mapper.LineCol(d.Span.Start)
				got = append(got, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("got  %s\nwant %s…", got[i], tc.want[i])
				}
			}
		})
	}
}

// TestTemplateNoValue: rendered with the user's example composite, an
// action that prints "<no value>" (the real function writes that text
// into the resource: recorded as v0.12.2/missing-key-top-level) is
// reported on the action: a warning when it reads the composite, which
// the example leaves without the value, information when it reads what
// Crossplane provides only later (observed resources); an action a
// template-field warning already names is not reported twice, and a
// render with a synthesised composite reports none.
func TestTemplateNoValue(t *testing.T) {
	const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xnets.example.org}
spec:
  group: example.org
  names: {kind: XNet, plural: xnets}
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
              zone: {type: string}
`
	const comp = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XNet}
  mode: Pipeline
  pipeline:
  - step: t
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
          apiVersion: v1
          kind: ConfigMap
          metadata:
            annotations:
              {{ setResourceNameAnnotation "cm" }}
          data:
            region: {{ .observed.composite.resource.spec.region }}
            zone: "{{ .observed.composite.resource.spec.zone }}"
            typo: "{{ .observed.composite.resource.spec.regoin }}"
            host: "{{ .observed.resources.db.resource.status.host }}"
`
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "xrd.yaml", File: "/w/xrd.yaml"}, "/w/xrd.yaml", []byte(xrd))
	diagnose := func(examples func(schemas.GVK) []Example) []string {
		f := document.Parse("/w/c.yaml", 1, []byte(comp))
		var got []string
		for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2, Examples: examples}}) {
			if d.Code != "template-no-value" && d.Code != "template-field" {
				continue
			}
			line, col := f.Mapper.LineCol(d.Span.Start)
			got = append(got, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
		}
		return got
	}
	got := diagnose(func(schemas.GVK) []Example {
		return []Example{{Path: "/w/xr.yaml", Object: map[string]any{"apiVersion": "example.org/v1", "kind": "XNet",
			"metadata": map[string]any{"name": "x", "namespace": "default"}, "spec": map[string]any{"region": "eu"}}}}
	})
	want := []string{
		`24:57 warning template-field the composite resource's schema has no field "regoin" in spec`,
		`23:20 warning template-no-value {{ .observed.composite.resource.spec.zone }} prints "<no value>" here (rendered with xr.yaml): the composite holds no such value`,
		`25:20 info template-no-value {{ .observed.resources.db.resource.status.host }} prints "<no value>" here (rendered with xr.yaml)`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("missing %s…\ngot %q", w, got)
		}
	}
	if got := diagnose(nil); len(got) != 1 {
		t.Errorf("without an example: %q, want only the template-field warning", got)
	}
}
