package schemas_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// validateBuiltin validates a document against the embedded bundle.
func validateBuiltin(t *testing.T, text string) []schemas.Error {
	t.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatal(err)
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	g, v, ok := strings.Cut(av, "/")
	if !ok {
		g, v = "", av
	}
	sc, ok := st.Lookup(schemas.GVK{Group: g, Version: v, Kind: kind})
	if !ok {
		t.Fatalf("no built-in schema for %s %s", av, kind)
	}
	return sc.Validate(context.Background(), obj)
}

// The API server decodes a []byte field's "" to an empty slice: a Secret's
// or ConfigMap's empty value is valid; what is not base64 still is not.
func TestBuiltinEmptyBytes(t *testing.T) {
	for _, text := range []string{
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: \"\"}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nbinaryData: {a: \"\"}\n",
	} {
		if errs := validateBuiltin(t, text); len(errs) > 0 {
			t.Errorf("%s: got %v, want no findings", text, errs)
		}
	}
	errs := validateBuiltin(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: \"not base64!\"}\n")
	if len(errs) != 1 || errs[0].Path.String() != "data.a" || errs[0].Code != "format" {
		t.Errorf("invalid base64: got %v, want one format finding on data.a", errs)
	}
}

// A Quantity is a string or a number; the server's decoding rejects
// anything else.
func TestBuiltinQuantityTypes(t *testing.T) {
	errs := validateBuiltin(t, `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: true, memory: [1], ephemeral-storage: 1Gi}
      limits: {cpu: {a: 1}, memory: 0.5}
`)
	var got []string
	for _, e := range errs {
		got = append(got, e.Path.String()+" "+e.Code+" "+e.Message)
	}
	want := []string{
		`spec.containers[0].resources.limits.cpu type must be a quantity, a string such as "500m" or "1Gi" or a number, not an object`,
		`spec.containers[0].resources.requests.cpu type must be a quantity, a string such as "500m" or "1Gi" or a number, not a boolean`,
		`spec.containers[0].resources.requests.memory type must be a quantity, a string such as "500m" or "1Gi" or a number, not a list`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
