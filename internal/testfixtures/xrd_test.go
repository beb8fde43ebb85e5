package testfixtures

import "testing"

// TestXRDText: the text is the XRD as a test would write it by hand,
// line for line (the tests that check positions depend on it).
func TestXRDText(t *testing.T) {
	got := XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", ClaimKind: "Database", ClaimPlural: "databases", Scope: "Cluster", Version: "v1alpha1",
		Schema: `
        type: object
        properties:
          spec: {type: object}
`}.YAML()
	want := `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xdatabases.example.org
spec:
  group: example.org
  names: {kind: XDatabase, plural: xdatabases}
  claimNames: {kind: Database, plural: databases}
  scope: Cluster
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object}
`
	if got != want {
		t.Errorf("YAML() =\n%s\nwant\n%s", got, want)
	}
	if got := (XRD{APIVersion: "v2", Group: "g", Kind: "XA", Plural: "xas", Version: "v1"}.YAML()); got != "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xas.g\nspec:\n  group: g\n  names: {kind: XA, plural: xas}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n" {
		t.Errorf("bare XRD = %q", got)
	}
}
