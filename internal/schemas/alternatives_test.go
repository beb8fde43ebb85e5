package schemas

import (
	"context"
	"testing"
)

const altCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [region]
            properties:
              region: {type: string}
              source:
                type: object
                properties:
                  a: {type: string}
                  b: {type: string}
                oneOf:
                - required: [a]
                - required: [b]
              size:
                type: string
                anyOf:
                - pattern: '^[0-9]+$'
                - enum: [small, large]
              note: {type: string}
              kept: {type: string, nullable: true}
`

func altSchema(t *testing.T) *Schema {
	t.Helper()
	st := NewStore().WithFile(Source{Kind: SourceWorkspace, Name: "g.yaml", File: "g.yaml"}, "g.yaml", []byte(altCRD))
	return lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Gadget"})
}

// A oneOf/anyOf failure sits on the field it concerns and names the
// alternatives (kube-openapi reports it with no field at all).
func TestValidateOneOfAnyOf(t *testing.T) {
	got := altSchema(t).Validate(context.Background(), obj(t, `apiVersion: example.org/v1
kind: Gadget
metadata: {name: g}
spec:
  region: eu
  source: {a: x, b: z}
`))
	expect(t, got, want{"spec.source", true, "invalid", `must match exactly one of the alternatives (oneOf), and it matches 2: has a; or has b`})

	got = altSchema(t).Validate(context.Background(), obj(t, `apiVersion: example.org/v1
kind: Gadget
metadata: {name: g}
spec:
  region: eu
  source: {}
  size: medium
`))
	for _, e := range got {
		if e.Path.String() == "" || e.Path.String() == "<nil>" {
			t.Errorf("finding without a field: %v", e)
		}
	}
	expect(t, got,
		want{"spec.size", false, "invalid", `must match at least one of the alternatives (anyOf), and it matches none: matches "^[0-9]+$"; or is one of "small", "large"`},
		want{"spec.size", false, "pattern", `should match`},
		want{"spec.source", true, "invalid", `must match exactly one of the alternatives (oneOf), and it matches none: has a; or has b`},
		// kube-openapi adds what the first alternative misses, as the
		// API server does.
		want{"spec.source", true, "required", `missing required field "a"`})
}

// A required field written as null is missing, said on its key; other
// nulls the server drops are not findings.
func TestValidateNullKeys(t *testing.T) {
	got := altSchema(t).Validate(context.Background(), obj(t, `apiVersion: example.org/v1
kind: Gadget
metadata: {name: g}
spec:
  region: null
  note: null
  kept: null
`))
	expect(t, got,
		want{"spec.region", true, "required", `missing required field "region": its value is null, which the API server drops (the field is not nullable)`})
}
