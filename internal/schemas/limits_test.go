package schemas

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

const numbersCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: numbers.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Numbers, plural: numbers}
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
            properties:
              big: {type: integer, format: int64}
              small: {type: integer, format: int32}
              list:
                type: array
                items: {type: integer, format: int32}
`

// TestFormatOverflowReportedOnce: kube-openapi reports an integer out of
// its format's range twice, once with a "<nil>" field ("Checked value must
// be of type integer with format int64 in spec.big"); that one is placed
// on the value it names, and the duplicate is dropped.
func TestFormatOverflowReportedOnce(t *testing.T) {
	st := NewStore().WithFile(Source{Kind: SourceWorkspace, Name: "n.yaml"}, "n.yaml", []byte(numbersCRD))
	sc := lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Numbers"})
	o := obj(t, "apiVersion: example.org/v1\nkind: Numbers\nmetadata: {name: nums}\nspec: {}\n")
	spec := o["spec"].(map[string]any)
	spec["big"] = float64(math.MaxInt64) * 2
	spec["small"] = int64(math.MaxInt32) + 1
	spec["list"] = []any{int64(1), int64(math.MinInt32) - 1}
	got := sc.Validate(context.Background(), o)
	expect(t, got,
		want{"spec.big", false, "format", "must be of type integer with format int64"},
		want{"spec.list[1]", false, "format", "must be of type integer with format int32"},
		want{"spec.small", false, "format", "must be of type integer with format int32"},
	)
	for _, e := range got {
		if strings.Contains(e.Message, "<nil>") || strings.Contains(e.Path.String(), "<nil>") {
			t.Errorf("garbled error %s", e)
		}
	}
}

// TestHugeEnumMessage: the API server lists every supported value; with
// 100,000 of them the message is cut, saying how many were left out.
func TestHugeEnumMessage(t *testing.T) {
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "v%d,", i)
	}
	crd := strings.Replace(gadgetCRD, "enum: [A, B]", "enum: ["+strings.TrimSuffix(b.String(), ",")+"]", 1)
	st := NewStore().WithFile(Source{Kind: SourceWorkspace, Name: "g.yaml"}, "g.yaml", []byte(crd))
	sc := lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "Gadget"})
	got := sc.Validate(context.Background(), obj(t, gadgetHead+"spec: {mode: nope}\n"))
	expect(t, got, want{"spec.mode", false, "enum", `unsupported value "nope": supported values: "v0", "v1"`}, want{"", true, "cel", "were not checked"})
	if m := got[1].Message; len(m) > maxMessage || !strings.Contains(m, "and 99,980 more") {
		t.Errorf("enum message is %d bytes (limit %d) or does not say how many values were left out: %.300s…", len(m), maxMessage, m)
	}
}

// TestLongValueInMessage: a bad value is quoted only in part.
func TestLongValueInMessage(t *testing.T) {
	got := gadget(t).Validate(context.Background(), obj(t, gadgetHead+"spec: {mode: "+strings.Repeat("x", 1<<20)+"}\n"))
	expect(t, got, want{"spec.mode", false, "enum", `unsupported value "xxxx`}, want{"", true, "cel", "were not checked"})
	if len(got[1].Message) > maxQuoted+100 {
		t.Errorf("message of %d bytes for a 1 MiB value", len(got[1].Message))
	}
}
