package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// readsXRD is the composite of the template-read tables: parameters of
// each shape (an enum string, an integer, a list of objects, a map, a
// free-form object), no status of its own.
var readsXRD = testfixtures.XRD{APIVersion: "v2", Group: "platform.example.org", Kind: "XNetwork", Plural: "xnetworks", Scope: "Namespaced", Version: "v1alpha1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              parameters:
                type: object
                properties:
                  region: {type: string, enum: [us, eu]}
                  size: {type: integer}
                  subnets:
                    type: array
                    items:
                      type: object
                      properties:
                        zone: {type: string}
                        cidr: {type: string}
                  tags:
                    type: object
                    additionalProperties: {type: string}
                  config:
                    type: object
                    x-kubernetes-preserve-unknown-fields: true
`}.YAML()

// readsEnvironmentConfigs are the workspace's EnvironmentConfigs of the
// environment cases.
const readsEnvironmentConfigs = `apiVersion: apiextensions.crossplane.io/v1beta1
kind: EnvironmentConfig
metadata: {name: base}
data:
  region: us
  network: {vpc: vpc-1, cidr: 10.0.0.0/16}
`

// readsComposition is a Composition of XNetwork whose pipeline is the
// given steps (YAML, indented as pipeline items), then a go-templating
// step with the template tpl (given unindented) and the input's extra
// lines (options).
func readsComposition(before, tpl, extra string) string {
	var b strings.Builder
	b.WriteString(testfixtures.Composition{Name: "xnetworks", XRAPIVersion: "platform.example.org/v1alpha1", XRKind: "XNetwork", FlowRef: true, Steps: `
`}.YAML())
	b.WriteString(before)
	b.WriteString(`  - step: templates
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
`)
	b.WriteString(extra)
	b.WriteString("      inline:\n        template: |\n")
	for _, l := range strings.Split(strings.TrimSuffix(tpl, "\n"), "\n") {
		b.WriteString("          " + l + "\n")
	}
	return b.String()
}

const environmentStep = `  - step: environment
    functionRef: {name: function-environment-configs}
    input:
      apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
      kind: Input
      spec:
        environmentConfigs:
        - type: Reference
          ref: {name: base}
`

// readsEnv is an Env with readsXRD, the Bucket CRD of rendered_test.go
// and, when configs is set, readsEnvironmentConfigs.
func readsEnv(t *testing.T, configs bool) Env {
	t.Helper()
	env := xrdEnv(t, readsXRD)
	if configs {
		var ec map[string]any
		if err := yaml.Unmarshal([]byte(readsEnvironmentConfigs), &ec); err != nil {
			t.Fatal(err)
		}
		setRender(&env, func(r *RenderInputs) {
			r.Cluster = Cluster{EnvironmentConfigs: []map[string]any{ec}, From: "in the workspace"}
		})
	}
	return env
}

// templateFindings are the findings with one of the codes of a
// Composition whose last step's template is tpl, placed by the
// template's own line and column ("2:7 message").
func templateFindings(t *testing.T, text, tpl string, env Env, codes ...string) []string {
	t.Helper()
	f := document.Parse("/ws/composition.yaml", 1, []byte(text))
	// The template's first line in the file, and its indentation.
	first := strings.Count(text[:strings.Index(text, "template: |\n")], "\n") + 2
	var out []string
	for _, d := range Diagnose(context.Background(), f, env) {
		for _, c := range codes {
			if d.Code == c {
				l, col := f.Mapper.LineCol(d.Span.Start)
				s := fmt.Sprintf("%d:%d %s", l-first+1, col-10, d.Message)
				if d.Replace != "" {
					s += " [" + d.Replace + "]"
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// TestTemplateReads: a template that reads what the request cannot hold
// gets a warning on the key it names, saying what the function does
// then; what crd-lsp cannot be sure of is said nothing of.
func TestTemplateReads(t *testing.T) {
	const bucket = "apiVersion: storage.example.org/v1\nkind: Bucket\nmetadata:\n  annotations:\n    gotemplating.fn.crossplane.io/composition-resource-name: bucket\nspec:\n  forProvider:\n    region: us\n---\n"
	for _, tc := range []struct {
		name    string
		before  string // steps before the template's
		tpl     string
		extra   string // the input's other fields
		configs bool   // the workspace has readsEnvironmentConfigs
		want    []string
	}{
		{name: "misspelt field, printed", tpl: "a: {{ .observed.composite.resource.spec.paramters.region }}\n",
			want: []string{`1:41 the composite resource (XNetwork) has no field spec.paramters (did you mean "parameters"?): the template renders "<no value>" there [parameters]`}},
		{name: "in an if", tpl: "{{ if .observed.composite.resource.spec.parameters.regoin }}a: b{{ end }}\n",
			want: []string{`1:52 the composite resource (XNetwork) has no field spec.parameters.regoin (did you mean "region"?): the condition is always false: the if's branch is never taken [region]`}},
		{name: "inside a with", tpl: "{{ with .observed.composite.resource.spec.parameters }}\na: {{ .sise }}\n{{ end }}\n",
			want: []string{`2:8 the composite resource (XNetwork) has no field spec.parameters.sise (did you mean "size"?): the template renders "<no value>" there [size]`}},
		{name: "a variable, quoted", tpl: "{{ $xr := .observed.composite.resource }}\na: {{ $xr.spec.parameters.regon | quote }}\n",
			want: []string{`2:27 the composite resource (XNetwork) has no field spec.parameters.regon (did you mean "region"?): quote gets no value and gives "" [region]`}},
		{name: "getCompositeResource and default", tpl: "a: {{ (getCompositeResource .).spec.parametres.size | default 3 }}\n",
			want: []string{`1:37 the composite resource (XNetwork) has no field spec.parametres (did you mean "parameters"?): default always gives its default [parameters]`}},
		{name: "index, a quoted key", tpl: "a: {{ index .observed.composite.resource.spec.parameters \"regio\" }}\n",
			want: []string{`1:58 the composite resource (XNetwork) has no field spec.parameters.regio (did you mean "region"?): the template renders "<no value>" there ["region"]`}},
		{name: "object metadata", tpl: "a: {{ .observed.composite.resource.metadata.labes }}\nb: {{ .observed.composite.resource.metadata.name }}\nc: {{ index .observed.composite.resource.metadata.labels \"app\" }}\n",
			want: []string{`1:45 the composite resource (XNetwork) has no field metadata.labes (did you mean "labels"?): the template renders "<no value>" there [labels]`}},
		{name: "what Crossplane adds", tpl: "a: {{ .observed.composite.resource.spec.crossplane.compositionRef.name }}\nb: {{ .observed.composite.resource.status.conditions }}\nc: {{ .observed.composite.resource.apiVersion }}\n"},
		{name: "a status field the XRD lacks", tpl: "a: {{ .observed.composite.resource.status.address }}\n",
			want: []string{`1:43 the composite resource (XNetwork) has no field status.address: the template renders "<no value>" there`}},
		{name: "below preserved unknown fields and in a map", tpl: "a: {{ .observed.composite.resource.spec.parameters.config.anything.at.all }}\nb: {{ .observed.composite.resource.spec.parameters.tags.team }}\n"},
		{name: "a field of a string", tpl: "a: {{ .observed.composite.resource.spec.parameters.region.name }}\n",
			want: []string{`1:59 spec.parameters.region in the composite resource (XNetwork) is a string, which has no field name: the template fails there whenever it is set ("can't evaluate field name")`}},
		{name: "range over a list", tpl: "{{ range $i, $s := .observed.composite.resource.spec.parameters.subnets }}\nz{{ $i }}: {{ $s.zonee }}\nc{{ $i }}: {{ .cidr }}\n{{ end }}\n",
			want: []string{`2:18 the composite resource (XNetwork) has no field spec.parameters.subnets..zonee (did you mean "zone"?): the template renders "<no value>" there [zone]`}},
		{name: "missingkey=error", tpl: "a: {{ .observed.composite.resource.spec.paramters }}\n", extra: "      options: [missingkey=error]\n",
			want: []string{`1:41 the composite resource (XNetwork) has no field spec.paramters (did you mean "parameters"?): function-go-templating fails the step there (the template runs with missingkey=error) [parameters]`}},
		{name: "a composed resource the template composes", tpl: bucket + "a: {{ .observed.resources.bucket.resource.spec.forProvidr.region }}\n{{ $b := getComposedResource . \"bucket\" }}\nb: {{ $b.spec.forProvider.regin }}\n",
			want: []string{
				`10:48 the observed Bucket "bucket" has no field spec.forProvidr (did you mean "forProvider"?): the template renders "<no value>" there [forProvider]`,
				`12:27 the observed Bucket "bucket" has no field spec.forProvider.regin (did you mean "region"?): the template renders "<no value>" there [region]`,
			}},
		{name: "a composed resource of unknown kind", tpl: "a: {{ .observed.resources.other.resource.spec.anything }}\n" + strings.Replace(bucket, "kind: Bucket", "kind: {{ \"Bucket\" }}", 1) + "b: {{ .observed.resources.bucket.resource.spec.nope }}\n"},
		{name: "a define's data", tpl: "{{ define \"x\" }}{{ .spec.nope }}{{ end }}\na: {{ include \"x\" .observed.composite.resource }}\n"},
		{name: "a variable assigned in a branch", tpl: "{{ $v := .observed.composite.resource }}\n{{ if true }}{{ $v = .observed.resources }}{{ end }}\na: {{ $v.spec.nope }}\n"},
		{name: "the environment: misspelt keys", before: environmentStep, configs: true,
			tpl: "{{ $env := index .context \"apiextensions.crossplane.io/environment\" }}\na: {{ $env.regoin }}\nb: {{ $env.network.vcp }}\nc: {{ $env.zone }}\nd: {{ $env.network.cidr }}\n",
			want: []string{
				`2:12 the environment has no regoin in any EnvironmentConfig in the workspace (did you mean "region"?): the template renders "<no value>" there, unless the cluster holds an EnvironmentConfig crd-lsp does not know [region]`,
				`3:20 the environment has no network.vcp in any EnvironmentConfig in the workspace (did you mean "vpc"?): the template renders "<no value>" there, unless the cluster holds an EnvironmentConfig crd-lsp does not know [vpc]`,
			}},
		{name: "the environment without EnvironmentConfigs known", before: environmentStep,
			tpl: "a: {{ index .context \"apiextensions.crossplane.io/environment\" \"regoin\" }}\n"},
		{name: "the environment nothing loads", configs: true,
			tpl: "a: {{ index .context \"apiextensions.crossplane.io/environment\" \"regoin\" }}\n"},
		{name: "a template that does not parse", tpl: "a: {{ .observed.composite.resource.spec.paramters }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := readsComposition(tc.before, tc.tpl, tc.extra)
			got := templateFindings(t, text, tc.tpl, readsEnv(t, tc.configs), codeTemplateRead)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s\n%s", d, text)
			}
		})
	}
}
