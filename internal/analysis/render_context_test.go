package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// inputCRD is a function input CRD whose rule reads optional fields
// without has(), as function-sequencer's does.
const inputCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: inputs.seq.fn.example.org
spec:
  group: seq.fn.example.org
  names: {kind: Input, listKind: InputList, plural: inputs, singular: input}
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            rules:
              type: array
              items:
                type: object
                properties:
                  createOnly: {type: boolean}
                  deleteOnly: {type: boolean}
                x-kubernetes-validations:
                  - rule: '!(self.createOnly && self.deleteOnly)'
                    message: createOnly and deleteOnly are mutually exclusive
            params:
              type: object
              additionalProperties:
                type: object
                x-kubernetes-preserve-unknown-fields: true
            limits:
              type: object
              properties:
                max: {type: object}
`

func renderContextDiags(t *testing.T, text string) []string {
	t.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "input.yaml", File: "input.yaml"}, "input.yaml", []byte(inputCRD))
	f := document.Parse("x.yaml", 1, []byte(text))
	var out []string
	for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}, Options: Options{UnknownKind: severity.Warning}}) {
		line, col := f.Mapper.LineCol(d.Span.Start)
		out = append(out, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
	}
	return out
}

// TestInputRuleThatCannotBeEvaluated: a rule of a function input's CRD
// that fails to evaluate (a missing optional field) is a hint on the
// input: inputs never reach the API server, the only evaluator of such
// rules. A rule that evaluates to false is information (issue 31):
// Crossplane never validates an input against its CRD, and crd-lsp has no
// record that this function refuses it.
func TestInputRuleThatCannotBeEvaluated(t *testing.T) {
	comp := testfixtures.Composition{Name: "c", XRAPIVersion: "example.org/v1", XRKind: "XR", FlowRef: true, Steps: `
    - step: sequence
      functionRef: {name: function-seq}
      input:
        apiVersion: seq.fn.example.org/v1beta1
        kind: Input
        rules:
          - createOnly: true
          - createOnly: true
            deleteOnly: true
`}.YAML()
	var cel []string
	for _, l := range renderContextDiags(t, comp) {
		if strings.Contains(l, " cel ") {
			cel = append(cel, l)
		}
	}
	if len(cel) != 2 || !strings.HasPrefix(cel[0], "15:13 hint cel no such key: deleteOnly evaluating rule") ||
		!strings.HasPrefix(cel[1], "16:13 info cel createOnly and deleteOnly are mutually exclusive (Crossplane does not validate a step's input") {
		t.Errorf("cel findings:\n%s", strings.Join(cel, "\n"))
	}
}

// TestDevelopmentFunctionPackage: crossplane render ignores the package
// of a Function annotated with the Development runtime, so a placeholder
// there is a hint; without the annotation it is the API server's error.
func TestDevelopmentFunctionPackage(t *testing.T) {
	fn := func(annotations string) string {
		return "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-seq\n" + annotations + "spec:\n  package: function-seq\n"
	}
	dev := renderContextDiags(t, fn("  annotations:\n    render.crossplane.io/runtime: Development\n"))
	if len(dev) != 1 || !strings.HasPrefix(dev[0], "8:12 hint ") || !strings.Contains(dev[0], "crossplane render ignores the package") {
		t.Errorf("Development Function: %q", dev)
	}
	plain := renderContextDiags(t, fn(""))
	if len(plain) != 1 || !strings.HasPrefix(plain[0], "6:12 error ") {
		t.Errorf("Function: %q", plain)
	}
}

// TestInputFreeFormField: a value that is not an object where the input
// CRD has a free-form object (controller-gen's runtime.RawExtension, as
// function-kcl's params) is a hint; a declared object stays a warning (the
// function's input CRD does not allow it; crd-lsp knows nothing of this
// function's decoding).
func TestInputFreeFormField(t *testing.T) {
	comp := testfixtures.Composition{Name: "c", XRAPIVersion: "example.org/v1", XRKind: "XR", FlowRef: true, Steps: `
    - step: sequence
      functionRef: {name: function-seq}
      input:
        apiVersion: seq.fn.example.org/v1beta1
        kind: Input
        params:
          name: input-instance
        limits:
          max: 3
`}.YAML()
	var types []string
	for _, l := range renderContextDiags(t, comp) {
		if strings.Contains(l, " type ") {
			types = append(types, l)
		}
	}
	if len(types) != 2 || !strings.HasPrefix(types[0], "15:17 hint type must be of type object") || !strings.HasPrefix(types[1], "17:16 warning type must be of type object") {
		t.Errorf("type findings:\n%s", strings.Join(types, "\n"))
	}
}

// TestNotKubernetesObjects: kustomize's built-in plugin configurations
// and files whose apiVersion is a number (Grafana provisioning) are not
// objects to validate.
func TestNotKubernetesObjects(t *testing.T) {
	for _, text := range []string{
		"apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels:\n  env: dev\n",
		"apiVersion: 1\ndatasources:\n  - name: Tempo\n    type: tempo\n",
	} {
		if got := renderContextDiags(t, text); len(got) != 0 {
			t.Errorf("%q: %q", text, got)
		}
	}
}
