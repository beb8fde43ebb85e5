package jsonnum

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
)

func TestNormalize(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"a": 3, "b": [1.5, -7, 1.0, 1e3, 9223372036854775807, 9223372036854775808], "c": {"d": "3"}}`)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	got, err := Normalize(v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(3), "b": []any{1.5, int64(-7), 1.0, 1000.0, int64(math.MaxInt64), 9223372036854775808.0}, "c": map[string]any{"d": "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %#v\nwant %#v", got, want)
	}
	// Beyond float64: +Inf, and an error that names the number.
	got, err = Normalize([]any{json.Number("1e400")})
	if err == nil || err.Error() != "number 1e400 out of range" || !math.IsInf(got.([]any)[0].(float64), 1) {
		t.Errorf("Normalize(1e400) = %v, %v", got, err)
	}
}

// A function's response arrives as a protobuf Struct, every number a
// double; Kubernetes reads the JSON protojson writes of it, where a whole
// double below 1e21 has no fraction: an int64.
func TestNormalizeDoubles(t *testing.T) {
	s, err := structpb.NewStruct(map[string]any{"replicas": 3, "ratio": 0.5, "whole": 2.0, "big": 1e21, "list": []any{-4, "x"}})
	if err != nil {
		t.Fatal(err)
	}
	got := NormalizeDoubles(s.AsMap())
	want := map[string]any{"replicas": int64(3), "ratio": 0.5, "whole": int64(2), "big": 1e21, "list": []any{int64(-4), "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NormalizeDoubles = %#v\nwant %#v", got, want)
	}
	// What the JSON route gives for the same value agrees.
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	viaJSON, _ := Normalize(v)
	if !reflect.DeepEqual(viaJSON, want) {
		t.Errorf("via protojson %s: %#v\nwant %#v", b, viaJSON, want)
	}
}
