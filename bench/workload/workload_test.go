package workload

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// An upjet-shaped CRD: region required by the schema, key and value
// required by CEL (required parameters), constrained nested fields.
const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.aws.m.upbound.io
spec:
  group: example.aws.m.upbound.io
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object}
  - name: v1beta2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [forProvider]
            properties:
              forProvider:
                type: object
                required: [region]
                properties:
                  region: {type: string}
                  key: {type: string, pattern: '^[a-z]+-[a-z]+$'}
                  size: {type: integer, minimum: 3, exclusiveMinimum: true}
                  mode: {type: string, enum: [Fast, Slow]}
                  rules:
                    type: array
                    minItems: 2
                    items:
                      type: object
                      required: [action]
                      properties:
                        action: {type: string}
                  tags:
                    type: object
                    additionalProperties: {type: string}
            x-kubernetes-validations:
            - message: spec.forProvider.key is a required parameter
              rule: '!(''*'' in self.managementPolicies || ''Create'' in self.managementPolicies
                || ''Update'' in self.managementPolicies) || has(self.forProvider.key)
                || (has(self.initProvider) && has(self.initProvider.key))'
            - message: spec.forProvider.size is a required parameter
              rule: '!(''*'' in self.managementPolicies) || has(self.forProvider.size)'
            - message: spec.forProvider.rules is a required parameter
              rule: '!(''*'' in self.managementPolicies) || has(self.forProvider.rules)'
`

func widget(t *testing.T) Kind {
	t.Helper()
	crd, err := ParseCRD([]byte(crdYAML))
	if err != nil {
		t.Fatal(err)
	}
	k, err := StorageKind("widget.yaml", crd)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestObjectFillsRequiredAndCELParameters(t *testing.T) {
	k := widget(t)
	if k.Version != "v1beta2" || !k.Namespaced {
		t.Fatalf("storage kind = %s namespaced %v", k.Version, k.Namespaced)
	}
	if got := RequiredParameters(propsOf(k, "spec")); !reflect.DeepEqual(got, []string{"key", "rules", "size"}) {
		t.Errorf("required parameters = %v", got)
	}
	obj, err := k.Object("w-1", 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: example.aws.m.upbound.io/v1beta2
kind: Widget
metadata:
  labels:
    bench.crd-lsp.dev/index: "7"
  name: w-1
  namespace: bench
spec:
  forProvider:
    key: bench-key
    region: us-east-1
    rules:
      - action: bench-action
      - action: bench-action
    size: 4
    tags:
      bench: crd-lsp
      index: "7"
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func propsOf(k Kind, name string) *apiextv1.JSONSchemaProps {
	s := k.Schema.Properties[name]
	return &s
}

func TestUnsatisfiableKindIsRefused(t *testing.T) {
	k := widget(t)
	fp := k.Schema.Properties["spec"].Properties["forProvider"]
	key := fp.Properties["key"]
	key.Pattern = `^[0-9]{40}$`
	fp.Properties["key"] = key
	k.Schema.Properties["spec"].Properties["forProvider"] = fp
	if _, err := k.Object("w", 0); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("err = %v, want the unsatisfiable key named", err)
	}
}

// The edits flip the value they say, on the line they say, in the file
// the generator writes: applied in order, the file holds exactly one
// invalid value after each invalidating edit and none after the next.
func TestEditsFlipTheBucketValue(t *testing.T) {
	const docs = 300
	var b strings.Builder
	for i := 0; i < docs; i++ {
		fmt.Fprintf(&b, bucketDoc, i, i)
	}
	lines := strings.Split(b.String(), "\n")
	if n := len(lines) - 1; n != docs*linesPerDoc {
		t.Fatalf("%d lines, want %d", n, docs*linesPerDoc)
	}
	edits := Edits(docs, 1000)
	touched := map[int]bool{}
	for i, e := range edits {
		line := lines[e.Line]
		old := line[e.Start:e.End]
		if e.Invalid != (old == validValue) || (!e.Invalid && old != invalidValue) {
			t.Fatalf("edit %d replaces %q on %q", i, old, line)
		}
		lines[e.Line] = line[:e.Start] + e.Text + line[e.End:]
		if want := "    forceDestroy: " + e.Text; lines[e.Line] != want {
			t.Fatalf("edit %d: line %d = %q, want %q", i, e.Line+1, lines[e.Line], want)
		}
		if got := strings.Count(strings.Join(lines, "\n"), invalidValue); got != map[bool]int{true: 1, false: 0}[e.Invalid] {
			t.Fatalf("after edit %d: %d invalid values", i, got)
		}
		touched[e.Line] = true
	}
	if len(touched) != docs {
		t.Errorf("edits touch %d documents, want all %d", len(touched), docs)
	}
}
