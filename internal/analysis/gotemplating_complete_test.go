package analysis

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestCompleteInTemplate: inside a go-templating step's inline template,
// completion offers what the chain being typed can read next (the XR's
// fields, nested, after .observed.composite.resource., through variables,
// with and range; the composed resources' names after
// .observed.resources.; a composed resource's fields by its kind) and,
// outside actions, the keys and values of the kind the template document
// writes, as in plain YAML, placed in the block scalar.
func TestCompleteInTemplate(t *testing.T) {
	env := readsEnv(t, false)
	const bucket = "apiVersion: storage.example.org/v1\nkind: Bucket\nmetadata:\n  annotations:\n    gotemplating.fn.crossplane.io/composition-resource-name: bucket\nspec:\n  forProvider:\n    region: us\n---\n"
	c := func(tpl string) string { return readsComposition("", tpl, "") }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "the composite's spec", text: c("a: {{ .observed.composite.resource.spec.‸ }}\n"), want: "crossplane (field) object \"crossplane\" []\nparameters (field) object \"parameters\" []\n"},
		{name: "nested, by prefix, unclosed", text: c("a: {{ .observed.composite.resource.spec.parameters.re‸\n"), want: "region (field) string \"region\" [re]\n"},
		{name: "the composite's top", text: c("a: {{ .observed.composite.resource.‸ }}\n"), want: "apiVersion (field) string \"apiVersion\" []\nkind (field) string \"kind\" []\nmetadata (field) object \"metadata\" []\nspec (field) object \"spec\" []\nstatus (field) object \"status\" []\n"},
		{name: "status", text: c("a: {{ .observed.composite.resource.status.‸ }}\n"), want: "conditions (field) array of object \"conditions\" []\n"},
		{name: "metadata", text: c("a: {{ .observed.composite.resource.metadata.la‸ }}\n"), want: "labels (field) map[string]string \"labels\" [la]\n"},
		{name: "through a variable and range", text: c("{{ $xr := getCompositeResource . }}\n{{ range $xr.spec.parameters.subnets }}\na: {{ .‸ }}\n{{ end }}\n"), want: "cidr (field) string \"cidr\" []\nzone (field) string \"zone\" []\n"},
		{name: "the resources composed", text: c(bucket + "a: {{ .observed.resources.‸ }}\n"), want: "bucket (field) storage.example.org/v1 Bucket \"bucket\" []\n"},
		{name: "a composed resource's fields", text: c(bucket + "a: {{ .observed.resources.bucket.resource.spec.forProvider.‸ }}\n"), want: "region (field) string \"region\" []\nsize (field) integer \"size\" []\n"},
		{name: "the template document's keys", text: c("apiVersion: storage.example.org/v1\nkind: Bucket\nmetadata:\n  name: {{ .observed.composite.resource.metadata.name }}\nspec:\n  forProvider:\n    ‸\n"), want: "region (field) string (required) \"region: \" []\nsize (field) integer \"size: \" []\n"},
		{name: "a nested key, indented in the block", text: c("apiVersion: storage.example.org/v1\nkind: Bucket\nspec:\n  ‸\n"), want: "forProvider (field) object (required) \"forProvider:\\n              \" []\n" +
			"deletionPolicy (field) string \"deletionPolicy: \" []\n" +
			"writeConnectionSecretToRef (field) object \"writeConnectionSecretToRef:\\n              \" []\n"},
		{name: "the kind a document writes", text: c("apiVersion: storage.example.org/v1\nkind: Buc‸\n"), want: "Bucket (kind) storage.example.org/v1 \"Bucket\" [Buc]\n"},
		{name: "an action that is no chain", text: c("a: {{ include \"x‸\" . }}\n"), want: ""},
		{name: "templates, custom delimiters", text: testfixtures.Composition{Name: "xnetworks", XRAPIVersion: "platform.example.org/v1alpha1", XRKind: "XNetwork", FlowRef: true, Steps: `
  - step: templates
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      delims: {left: "[[", right: "]]"}
      inline:
        templates:
        - |
          a: b
        - |
          a: [[ .observed.composite.resource.spec.parameters.s‸ ]]
`}.YAML(), want: "size (field) integer \"size\" [s]\nsubnets (field) array of object \"subnets\" [s]\n"},
		{name: "below a field the schema lacks", text: c("a: {{ .observed.composite.resource.spec.nope.‸ }}\n"), want: ""},
	}, completeResult)
}
