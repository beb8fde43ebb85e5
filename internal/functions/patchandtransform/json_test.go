// This file decodes the tests' JSON literals as crd-lsp's YAML decoder
// does.

package patchandtransform

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// jsonObj decodes JSON as our YAML decoder does: integers int64, other
// numbers float64.
func jsonObj(t *testing.T, js string) map[string]any {
	t.Helper()
	v := jsonVal(t, js)
	if v == nil {
		return map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object", js)
	}
	return m
}

func jsonVal(t *testing.T, js string) any {
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

func same(a, b any) bool { return reflect.DeepEqual(a, b) }
