// Package jsonnum is crd-lsp's one rule for JSON numbers in unstructured
// values: what Kubernetes' JSON decoding (k8s.io/apimachinery's
// util/json) makes of them, an int64 when the number is whole as
// written, else a float64. YAML read through JSON, values a template or
// transform writes as JSON, and protobuf Structs from functions all go
// through it, so a replica count is an int64 wherever it came from.
package jsonnum

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Number reads a JSON number literal: an int64 when it parses as one,
// else a float64. A number beyond float64's range is ±Inf with an error.
func Number(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return f, fmt.Errorf("number %s out of range", s)
	}
	return f, nil
}

// Normalize replaces, in place, the json.Numbers of a value decoded with
// UseNumber by Number's values, and returns it. The error is the first
// number out of range (which is left ±Inf).
func Normalize(v any) (any, error) {
	var first error
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case json.Number:
			n, err := Number(string(x))
			if err != nil && first == nil {
				first = err
			}
			return n
		}
		return v
	}
	return walk(v), first
}

// NormalizeDoubles replaces, in place, the float64s of a value decoded
// from a protobuf Struct (structpb's AsMap: every number a double) by
// what Number makes of the JSON protojson writes for them: a whole double
// below 1e21 is written without a fraction or an exponent, so it is read
// back as an int64.
func NormalizeDoubles(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = NormalizeDoubles(e)
		}
	case []any:
		for i, e := range x {
			x[i] = NormalizeDoubles(e)
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x)
		}
	}
	return v
}
