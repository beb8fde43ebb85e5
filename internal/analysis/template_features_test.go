package analysis

// Hover inside function-go-templating inline templates (field chains in
// actions, through $ and variables; the keys of the kind a template
// document writes), and template function names in completion.

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

var templateComposition = testfixtures.Composition{Name: "tpl", XRAPIVersion: "database.example.org/v1alpha1", XRKind: "XPostgreSQLInstance", Steps: `
    - step: render
      functionRef:
        name: function-go-templating
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: Inline
        inline:
          template: |
            {{ $xr := .observed.composite.resource }}
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              annotations:
                {{ setResourceNameAnnotation "web" }}
            spec:
              replicas: {{ .observed.composite.resource.spec.parameters.storageGB }}
              selector:
                matchLabels: {app: web}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers:
                    - name: web
                      image: {{ $xr.spec.parameters.region }}
`}.YAML()

// testTemplateCompleteFunctions: inside an action, a word that is not a
// field chain completes to the template functions that start with it
// (gotemplating_complete_test.go holds the field chains and the YAML).
func testTemplateCompleteFunctions(t *testing.T, env Env, _ FileReader) {
	at := func(old, marked string) string { return replaceOnce(templateComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "own function", text: at(`{{ setResourceNameAnnotation "web" }}`, `{{ setResource‸ "web" }}`),
			want: "setResourceNameAnnotation (value) template function \"setResourceNameAnnotation\" [setResource]\n"},
		{name: "sprig functions by prefix", text: at(`{{ setResourceNameAnnotation "web" }}`, `{{ toY‸ "web" }}`),
			want: "toYaml (value) template function \"toYaml\" [toY]\n"},
		{name: "not after a dot", text: at(`{{ setResourceNameAnnotation "web" }}`, `{{ .toY‸ "web" }}`), want: ""},
	}, completeResult)
}

func testTemplateHover(t *testing.T, env Env, _ FileReader) {
	at := func(old, marked string) string { return replaceOnce(templateComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "a composite field in an action", text: at("spec.parameters.storageGB }}", "spec.parameters.stor‸ageGB }}"),
			want: "[storageGB]\n**storageGB** `integer` — required\n\n`observed.composite.resource.spec.parameters.storageGB` — Schema: workspace file `xrd.yaml`"},
		{name: "a key of the document's kind", text: at("              replicas:", "              repl‸icas:"),
			want: "[replicas]\n**replicas** `integer (int32)`\n\nNumber of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.\n\n`spec.replicas` — Schema: built-in kubernetes v1.37"},
		{name: "a field inside a with block", text: at("                      image: {{ $xr.spec.parameters.region }}\n", "                      image: {{ $xr.spec.parameters.region }}\n                      {{ with .observed.composite.resource.spec }}{{ .param‸eters }}{{ end }}\n"),
			want: "[parameters]\n**parameters** `object`"},
		{name: "text outside any field", text: at("{{ $xr := .observed", "{{ $x‸r := .observed"), want: ""},
	}, hoverResult)
}
