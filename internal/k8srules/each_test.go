package k8srules

import (
	"strings"
	"testing"
)

// TestEachAndZeroOrOne holds the rule shapes no served kind of
// k8s.io/api v0.37.2 uses unconditionally on create (eachKey, eachVal,
// zeroOrOneOfMember: today only behind feature gates or on status), on
// rules written as the generator writes them.
func TestEachAndZeroOrOne(t *testing.T) {
	rules := []Rule{
		{Path: "spec.counters", Rule: "format", Arg: "k8s-short-name", Each: "key", Source: "x/types.go:1"},
		{Path: "spec.groups", Rule: "format", Arg: "k8s-short-name", Each: "val", Source: "x/types.go:2"},
		{Path: "spec.notes", Rule: "maxBytes", Arg: "4", Each: "val", Source: "x/types.go:3"},
		{Path: "spec", Rule: "zeroOrOneOf", Values: []string{"approved=", "denied"}, Source: "x/types.go:4"},
	}
	for _, c := range []struct {
		obj   map[string]any
		paths []string
	}{
		{map[string]any{"spec": map[string]any{
			"counters": map[string]any{"mem": 1, "gpu-0": 2},
			"groups":   []any{"a", "b-1"},
			"notes":    map[string]any{"x": "abcd"},
			"approved": false, // the zero value of a Go value type: unset
			"denied":   map[string]any{},
		}}, nil},
		{map[string]any{"spec": map[string]any{
			"counters": map[string]any{"Mem": 1},
			"groups":   []any{"a", "B_1"},
			"notes":    map[string]any{"x": "abcde"},
			"approved": true,
			"denied":   map[string]any{},
		}}, []string{"spec.counters.Mem", "spec.groups[1]", "spec.notes.x", "spec"}},
	} {
		got := check(rules, "example.k8s.io", "v1", "Widget", c.obj)
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Path.String())
			if !strings.Contains(f.Message, "Kubernetes' own validation for example.k8s.io/v1 Widget") {
				t.Errorf("message %q", f.Message)
			}
		}
		if strings.Join(paths, " ") != strings.Join(c.paths, " ") {
			t.Errorf("got %v, want %v: %v", paths, c.paths, got)
		}
	}
}

// TestOtherFormats holds the formats the checker knows that no rule of the
// current table uses, on the runtime checks' own semantics.
func TestOtherFormats(t *testing.T) {
	for _, c := range []struct{ format, valid, invalid string }{
		{"k8s-prefixed-label-key", "example.com/key", "key"},
		{"k8s-label-value", "v1.2_x", "-v"},
		{"k8s-extended-resource-name", "example.com/gpu", "gpu"},
		{"k8s-label-key", "key", "example.com/"},
		{"k8s-short-name", "a-1", "a.1"},
	} {
		rules := []Rule{{Path: "spec.x", Rule: "format", Arg: c.format, Source: "x/types.go:1"}}
		if got := check(rules, "", "v1", "Widget", map[string]any{"spec": map[string]any{"x": c.valid}}); len(got) != 0 {
			t.Errorf("%s %q: %v", c.format, c.valid, got)
		}
		got := check(rules, "", "v1", "Widget", map[string]any{"spec": map[string]any{"x": c.invalid}})
		if len(got) != 1 || !strings.Contains(got[0].Message, "("+c.format+")") || !strings.Contains(got[0].Message, "for v1 Widget") {
			t.Errorf("%s %q: %v", c.format, c.invalid, got)
		}
	}
}
