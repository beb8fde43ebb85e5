package patchandtransform

import (
	"reflect"
	"strings"
	"testing"
)

// TestTransformSemantics checks function-patch-and-transform's behaviour
// for each transform type: results, the Go types of numbers, fallbacks,
// and the failures the function reports (our wording, its meaning).
func TestTransformSemantics(t *testing.T) {
	cases := []struct {
		name    string
		t       map[string]any
		in      any
		want    any
		wantErr string
	}{
		{"map hit", map[string]any{"type": "map", "map": map[string]any{"US": "us-east-2"}}, "US", "us-east-2", ""},
		{"map miss", map[string]any{"type": "map", "map": map[string]any{"US": "us-east-2"}}, "EU", nil, "EU"},
		{"map needs a string", map[string]any{"type": "map", "map": map[string]any{"1": "one"}}, int64(1), nil, "int64 is not supported"},
		{"match literal", map[string]any{"type": "match", "match": map[string]any{"patterns": []any{map[string]any{"type": "literal", "literal": "a", "result": int64(1)}}}}, "a", float64(1), ""},
		{"match regexp", map[string]any{"type": "match", "match": map[string]any{"patterns": []any{map[string]any{"type": "regexp", "regexp": "^a+$", "result": "many"}}}}, "aaa", "many", ""},
		{"match no match, no fallback", map[string]any{"type": "match", "match": map[string]any{"patterns": []any{map[string]any{"type": "literal", "literal": "a", "result": "x"}}}}, "b", nil, ""},
		{"match fallbackValue", map[string]any{"type": "match", "match": map[string]any{"patterns": []any{map[string]any{"type": "literal", "literal": "a", "result": "x"}}, "fallbackValue": "other"}}, "b", "other", ""},
		{"match fallbackTo Input", map[string]any{"type": "match", "match": map[string]any{"patterns": []any{map[string]any{"type": "literal", "literal": "a", "result": "x"}}, "fallbackTo": "Input"}}, "b", "b", ""},
		{"math multiply int", map[string]any{"type": "math", "math": map[string]any{"type": "Multiply", "multiply": int64(3)}}, int64(4), int64(12), ""},
		{"math multiply float", map[string]any{"type": "math", "math": map[string]any{"type": "Multiply", "multiply": int64(2)}}, 1.25, 2.5, ""},
		{"math clampMin", map[string]any{"type": "math", "math": map[string]any{"type": "ClampMin", "clampMin": int64(10)}}, int64(4), int64(10), ""},
		{"math clampMax", map[string]any{"type": "math", "math": map[string]any{"type": "ClampMax", "clampMax": int64(10)}}, int64(40), int64(10), ""},
		{"math on a string", map[string]any{"type": "math", "math": map[string]any{"type": "Multiply", "multiply": int64(3)}}, "4", nil, "string"},
		{"string format", map[string]any{"type": "string", "string": map[string]any{"type": "Format", "fmt": "db-%v"}}, int64(7), "db-7", ""},
		{"string upper", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "ToUpper"}}, "abc", "ABC", ""},
		{"string base64 round trip", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "FromBase64"}}, "aGVsbG8=", "hello", ""},
		{"string bad base64", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "FromBase64"}}, "%%%", nil, "base64"},
		{"string json of an object", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "ToJson"}}, map[string]any{"b": int64(1), "a": "x"}, `{"a":"x","b":1}`, ""},
		{"string sha256 of a string hashes its bytes", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "ToSha256"}}, "US", "9b202ecbc6d45c6d8901d989a918878397a3eb9d00e8f48022fc051b19d21a1d", ""},
		{"string adler32", map[string]any{"type": "string", "string": map[string]any{"type": "Convert", "convert": "ToAdler32"}}, "US", "16711849", ""},
		{"string trim prefix", map[string]any{"type": "string", "string": map[string]any{"type": "TrimPrefix", "trim": "arn:"}}, "arn:aws", "aws", ""},
		{"string regexp group", map[string]any{"type": "string", "string": map[string]any{"type": "Regexp", "regexp": map[string]any{"match": "([a-z]+)-([0-9]+)", "group": int64(2)}}}, "db-42", "42", ""},
		{"string regexp no match", map[string]any{"type": "string", "string": map[string]any{"type": "Regexp", "regexp": map[string]any{"match": "^x"}}}, "db", nil, "match"},
		{"string join", map[string]any{"type": "string", "string": map[string]any{"type": "Join", "join": map[string]any{"separator": "/"}}}, []any{"a", int64(1), true}, "a/1/true", ""},
		{"string join needs an array", map[string]any{"type": "string", "string": map[string]any{"type": "Join", "join": map[string]any{"separator": "/"}}}, "a", nil, "array"},
		{"string replace", map[string]any{"type": "string", "string": map[string]any{"type": "Replace", "replace": map[string]any{"search": "-", "replace": "_"}}}, "a-b-c", "a_b_c", ""},
		{"convert string to int64", map[string]any{"type": "convert", "convert": map[string]any{"toType": "int64"}}, "42", int64(42), ""},
		{"convert bad int", map[string]any{"type": "convert", "convert": map[string]any{"toType": "int64"}}, "forty", nil, "forty"},
		{"convert string to bool", map[string]any{"type": "convert", "convert": map[string]any{"toType": "bool"}}, "true", true, ""},
		{"convert int to string", map[string]any{"type": "convert", "convert": map[string]any{"toType": "string"}}, int64(5), "5", ""},
		{"convert quantity", map[string]any{"type": "convert", "convert": map[string]any{"toType": "float64", "format": "quantity"}}, "500m", 0.5, ""},
		{"convert json array", map[string]any{"type": "convert", "convert": map[string]any{"toType": "array", "format": "json"}}, `["a", 1]`, []any{"a", float64(1)}, ""},
		{"convert quantity to int64 is not in P&T's table", map[string]any{"type": "convert", "convert": map[string]any{"toType": "int64", "format": "quantity"}}, "1Gi", nil, "quantity"},
		{"unknown transform type", map[string]any{"type": "lookup"}, "x", nil, "lookup"},
		{"math without its operand", map[string]any{"type": "math", "math": map[string]any{"type": "Multiply"}}, int64(1), nil, "multiply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Transform(c.t, c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Transform = %#v, %v; want an error mentioning %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Transform: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Transform = %#v (%T), want %#v (%T)", got, got, c.want, c.want)
			}
		})
	}
}

// TestTransformAllReportsTheFailingIndex: a chain stops at the transform
// that fails and says which.
func TestTransformAllReportsTheFailingIndex(t *testing.T) {
	ts := []any{
		map[string]any{"type": "string", "string": map[string]any{"type": "Format", "fmt": "%s-1"}},
		map[string]any{"type": "convert", "convert": map[string]any{"toType": "int64"}},
	}
	_, at, err := TransformAll(ts, "a")
	if err == nil || at != 1 {
		t.Fatalf("TransformAll: index %d, error %v; want a failure at index 1", at, err)
	}
	out, at, err := TransformAll(ts[:1], "a")
	if err != nil || out != "a-1" || at != -1 {
		t.Errorf("TransformAll = %v, %d, %v", out, at, err)
	}
}
