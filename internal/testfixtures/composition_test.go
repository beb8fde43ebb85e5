package testfixtures

import "testing"

// TestCompositionText: both forms of the compositeTypeRef, line for line.
func TestCompositionText(t *testing.T) {
	steps := `
  - step: s
    functionRef: {name: fn}
`
	for _, c := range []struct {
		flow bool
		want string
	}{
		{false, `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XApp
  mode: Pipeline
  pipeline:
  - step: s
    functionRef: {name: fn}
`},
		{true, `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
  - step: s
    functionRef: {name: fn}
`},
	} {
		if got := (Composition{Name: "c", XRAPIVersion: "example.org/v1", XRKind: "XApp", FlowRef: c.flow, Steps: steps}).YAML(); got != c.want {
			t.Errorf("FlowRef %v: YAML() =\n%s\nwant\n%s", c.flow, got, c.want)
		}
	}
}
