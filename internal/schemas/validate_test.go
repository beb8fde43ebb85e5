package schemas

import (
	"context"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.org
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
            x-kubernetes-validations:
            - rule: self.min <= self.max
              fieldPath: .max
              messageExpression: "'max (' + string(self.max) + ') must be at least min'"
            - rule: self.min == oldSelf.min
              message: min is immutable
            - rule: "!has(self.forbidden)"
              reason: FieldValueForbidden
              message: forbidden is not allowed
            properties:
              min: {type: integer, default: 1}
              max: {type: integer, default: 10}
              forbidden: {type: string}
              tags:
                type: object
                additionalProperties: {type: string, maxLength: 3}
                x-kubernetes-validations:
                - rule: self.all(k, k != 'x')
                  message: no x
              labels:
                type: object
                additionalProperties:
                  type: string
                  x-kubernetes-validations:
                  - rule: self != 'bad'
                    message: not bad
              items:
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, pattern: '^[a-z]+$'}
                    port: {type: integer, minimum: 1, maximum: 65535}
              mode: {type: string, enum: [A, B], nullable: true}
              when: {type: string, format: date-time}
              count: {x-kubernetes-int-or-string: true}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
`

func gadget(t *testing.T) *Schema {
	t.Helper()
	st := NewStore().WithFile(Source{Kind: SourceWorkspace, Name: "gadget.yaml"}, "gadget.yaml", []byte(gadgetCRD))
	return lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Gadget"})
}

const gadgetHead = "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\n"

func TestValidateCELFieldPathAndMessageExpression(t *testing.T) {
	got := gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec: {min: 5, max: 3}\n"))
	// fieldPath moves the error to spec.max; the transition rule (oldSelf)
	// is skipped on create.
	expect(t, got, want{"spec.max", false, "cel", "max (3) must be at least min"})
	// Defaults apply first: max defaults to 10.
	expect(t, gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec: {min: 5}\n")))
	got = gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec: {min: 50}\n"))
	expect(t, got, want{"spec.max", false, "cel", "max (10) must be at least min"})
}

func TestValidateCELReasonAndMapKeys(t *testing.T) {
	got := gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec:\n  forbidden: x\n  tags: {x: a}\n  labels: {a.b/c: bad, ok: fine}\n"))
	expect(t, got,
		want{"spec", true, "cel", "forbidden is not allowed"},
		want{"spec.labels[a.b/c]", false, "cel", "not bad"},
		want{"spec.tags", true, "cel", "no x"},
	)
}

func TestValidateOpenAPIKeywords(t *testing.T) {
	got := gadget(t).Validate(context.Background(), obj(t, gadgetHead+`spec:
  tags: {a.b: long, c: ok}
  items:
  - {name: ok, port: 80}
  - {name: Bad, port: 0}
  - {port: 70000}
  mode: null
  when: yesterday
  count: 3.5
`))
	expect(t, got,
		want{"spec.count", false, "type", `must be of type integer,string: "number"`},
		// As in the API server, null is not among the enum values even
		// though the field is nullable.
		want{"spec.mode", false, "enum", `unsupported value null: supported values: "A", "B"`},
		want{"spec.items[1].name", false, "pattern", "should match '^[a-z]+$'"},
		want{"spec.items[1].port", false, "range", "should be greater than or equal to 1"},
		want{"spec.items[2]", true, "required", `missing required field "name"`},
		want{"spec.items[2].port", false, "range", "should be less than or equal to 65535"},
		want{"spec.tags[a.b]", false, "length", "may not be more than 3 bytes"},
		want{"spec.when", false, "format", "must be of type date-time"},
		want{"", true, "cel", "were not checked"},
	)
	for _, e := range got {
		if e.Code == "length" && !e.Path.Equal(pathOf("spec", "tags", "a.b")) {
			t.Errorf("dotted key path %#v", e.Path)
		}
		if e.Code == "required" && !e.Path.Equal(pathOf("spec", "items", 2)) {
			t.Errorf("required path %#v", e.Path)
		}
	}
}

func TestValidateEmbeddedResource(t *testing.T) {
	got := gadget(t).Validate(context.Background(), obj(t, gadgetHead+`spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: a/b, labls: {}}
    data: {a: b}
`))
	expect(t, got,
		want{"spec.template.metadata.labls", true, "unknown-field", `unknown field "labls"`},
		// Embedded names only need to be valid path segments.
		want{"spec.template.metadata.name", false, "metadata", `may not contain '/'`},
	)
	got = gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec:\n  template: {metadata: {name: x}}\n"))
	expect(t, got,
		want{"spec.template", true, "required", `missing required field "apiVersion"`},
		want{"spec.template", true, "required", `missing required field "kind"`},
		want{"", true, "cel", "were not checked"},
	)
}

func TestValidateUnusableSchema(t *testing.T) {
	bad := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.org}
spec:
  group: example.org
  scope: Cluster
  names: {kind: Thing, plural: things}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            properties:
              a: {type: string}
`
	st := NewStore().WithFile(Source{Kind: SourceWorkspace, Name: "thing.yaml"}, "thing.yaml", []byte(bad))
	sc := lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Thing"})
	if _, err := sc.Structural(); err == nil {
		t.Error("Structural of a non-structural schema succeeded")
	}
	got := sc.Validate(context.Background(), obj(t, "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {a: 1}\n"))
	// OpenAPI validation still runs; the schema problem is a warning.
	expect(t, got,
		want{"", true, "schema", "only partly validated: the schema is not structural"},
		want{"spec.a", false, "type", `must be of type string: "integer"`},
	)
}

// Concurrent first use builds once and every caller sees the same result.
func TestValidateConcurrentFirstUse(t *testing.T) {
	crd := []byte(gadgetCRD + "# concurrent\n") // a digest no other test uses
	st := NewStore().WithFile(Source{Kind: SourceWorkspace}, "c.yaml", crd)
	sc := lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Gadget"})
	before := builds.Load()
	results := make(chan string, 8)
	for range 8 {
		go func() {
			results <- dump(sc.Validate(context.Background(), obj(t, gadgetHead+"spec: {min: 5, max: 3}\n")))
		}()
	}
	first := testfixtures.Await(t, results, "a concurrent first validation")
	for range 7 {
		if got := testfixtures.Await(t, results, "a concurrent first validation"); got != first {
			t.Errorf("results differ:\n%s\nvs\n%s", first, got)
		}
	}
	if n := builds.Load() - before; n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
}
