package composition

import (
	"fmt"
	"strings"
	"testing"
)

// TestFmtArgs: the arguments Go's fmt reads, as fmt.Sprintf does.
func TestFmtArgs(t *testing.T) {
	for _, c := range []struct {
		format    string
		n         int
		reordered bool
	}{
		{"%s-%s", 2, false},
		{"100%%", 0, false},
		{"%*d", 2, false},
		{"%-8.*f", 2, false},
		{"%[2]s-%[1]s", 2, true},
		{"%[3]s", 3, true},
		{"plain", 0, false},
		{"%", 0, false},
		{"%v%", 1, false},
	} {
		n, r := fmtArgs(c.format)
		if n != c.n || r != c.reordered {
			t.Errorf("fmtArgs(%q) = %d, %v; want %d, %v", c.format, n, r, c.n, c.reordered)
		}
		// Cross-check with fmt itself: MISSING appears exactly when the
		// format reads more than it is given.
		args := make([]any, c.n)
		for i := range args {
			args[i] = 1
		}
		if c.n > 0 && strings.Contains(fmt.Sprintf(c.format, args...), "MISSING") {
			t.Errorf("%q with %d arguments still misses one", c.format, c.n)
		}
	}
}

// TestFormatVerbs: a combine whose fmt reads more values than it has
// variables, or fewer, and a Format string transform with no verb, are
// warnings on the fmt (issue 22: they rendered "%!v(MISSING)" silently).
func TestFormatVerbs(t *testing.T) {
	patch := func(fmtStr string, nvars int, transform string) map[string]any {
		vars := []any{}
		for i := 0; i < nvars; i++ {
			vars = append(vars, map[string]any{"fromFieldPath": fmt.Sprintf("spec.v%d", i)})
		}
		p := map[string]any{"type": "CombineFromComposite", "toFieldPath": "data.x",
			"combine": map[string]any{"strategy": "string", "variables": vars, "string": map[string]any{"fmt": fmtStr}}}
		if transform != "" {
			p["transforms"] = []any{map[string]any{"type": "string", "string": map[string]any{"type": "Format", "fmt": transform}}}
		}
		return p
	}
	for _, c := range []struct {
		patch    map[string]any
		wantPath string
		want     string
	}{
		{patch("%s-%s-%s", 2, ""), "combine.string.fmt", `fmt "%s-%s-%s" reads 3 values, and there are only 2 variables`},
		{patch("%s", 2, ""), "combine.string.fmt", `fmt "%s" reads 1 of the 2 variables`},
		{patch("%s-%s", 2, "prefix"), "transforms[0].string.fmt", `fmt "prefix" has no verb for the input`},
		{patch("%s-%s", 2, "%s-%s"), "transforms[0].string.fmt", `fmt "%s-%s" reads 2 values, and there is only 1 input`},
		{patch("%[2]s/%[1]s", 2, "x-%s"), "", ""},
	} {
		in := map[string]any{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": []any{map[string]any{
			"name": "r", "base": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}, "patches": []any{c.patch}}}}
		obj := map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": []any{map[string]any{"step": "s", "functionRef": map[string]any{"name": "f"}, "input": in}}}}
		var got []string
		for _, p := range Check(obj, Env{}) {
			if strings.Contains(p.Message, "fmt ") {
				got = append(got, p.Path.String()+" "+p.Severity.String()+" "+p.Message)
			}
		}
		if c.want == "" {
			if len(got) > 0 {
				t.Errorf("unexpected: %v", got)
			}
			continue
		}
		prefix := "spec.pipeline[0].input.resources[0].patches[0]." + c.wantPath + " warning " + c.want
		if len(got) != 1 || !strings.HasPrefix(got[0], prefix) {
			t.Errorf("got %v\nwant %s…", got, prefix)
		}
	}
}
