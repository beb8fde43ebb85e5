package testfixtures

import (
	"reflect"
	"testing"
)

// TestJSONNumbers: integers decode as int64 and other numbers as float64,
// the types the YAML decoder gives; "" is an empty object.
func TestJSONNumbers(t *testing.T) {
	got := JSONObject(t, `{"i": 3, "f": 1.5, "l": [1, "a"]}`)
	want := map[string]any{"i": int64(3), "f": 1.5, "l": []any{int64(1), "a"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSONObject = %#v, want %#v", got, want)
	}
	if got := JSONObject(t, ""); len(got) != 0 || got == nil {
		t.Errorf(`JSONObject("") = %#v`, got)
	}
}
