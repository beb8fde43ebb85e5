package testfixtures

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// JSONObject decodes a JSON object as crd-lsp's YAML decoder does
// (integers int64, other numbers float64); "" is an empty object.
func JSONObject(t testing.TB, js string) map[string]any {
	t.Helper()
	v := JSONValue(t, js)
	if v == nil {
		return map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object", js)
	}
	return m
}

// JSONValue decodes a JSON value as crd-lsp's YAML decoder does; "" is nil.
func JSONValue(t testing.TB, js string) any {
	t.Helper()
	if js == "" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(js)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON %s: %v", js, err)
	}
	v, err := jsonnum.Normalize(v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
