// This file holds the in-process renderer to the real function's recorded
// answers (testdata/conformance).

package gotemplating

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/conformance"
)

// essence is a response as a render shows it: the meta (ttl) dropped,
// empty maps as absent, a result without target as one on the composite
// (Crossplane's reading).
func essence(rsp map[string]any, callErr string) map[string]any {
	rsp, _ = conformance.Stable(rsp).(map[string]any)
	out := map[string]any{}
	if callErr != "" {
		out["error"] = callErr
	}
	for k, v := range rsp {
		if k == "meta" {
			continue
		}
		out[k] = v
	}
	var results []any
	for _, r := range conformance.Results(rsp) {
		msg := r.Message
		target := r.Target
		if target == "" {
			target = "TARGET_COMPOSITE"
		}
		results = append(results, r.Severity+" "+target+" "+msg)
	}
	delete(out, "results")
	if len(results) > 0 {
		out["results"] = results
	}
	if conformance.Case.Fatal(conformance.Case{Response: rsp, Error: callErr}) {
		// Crossplane stops at a Fatal result and keeps nothing else of the
		// response (crossplane v2.2.1
		// internal/controller/apiextensions/composite/composition_functions.go).
		return dropEmpty(map[string]any{"results": results, "error": out["error"]}).(map[string]any)
	}
	// An empty desired composite changes nothing.
	if d, ok := out["desired"].(map[string]any); ok {
		if c, ok := d["composite"].(map[string]any); ok {
			if r, ok := c["resource"].(map[string]any); ok && len(r) == 0 {
				c = maps.Clone(c)
				delete(c, "resource")
				d = maps.Clone(d)
				d["composite"] = c
				out["desired"] = d
			}
		}
	}
	return dropEmpty(out).(map[string]any)
}

// withheld says whether crd-lsp's answer is its note that it did not
// render a step whose template it cannot read (a folder outside the
// workspace, an environment it did not resolve) where the real function
// failed reading it: crd-lsp withholds a verdict rather than claim one.
func withheld(real, crd map[string]any) bool {
	rr, _ := real["results"].([]any)
	cr, _ := crd["results"].([]any)
	if len(rr) != 1 || len(cr) != 1 {
		return false
	}
	r, _ := rr[0].(string)
	c, _ := cr[0].(string)
	const fatal, note = "SEVERITY_FATAL TARGET_COMPOSITE invalid function input: cannot read tmpl from ", "SEVERITY_NORMAL TARGET_COMPOSITE crd-lsp did not render this step: cannot read tmpl from "
	return strings.HasPrefix(r, fatal) && strings.HasPrefix(c, note)
}

func dropEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			x = dropEmpty(x)
			if m, ok := x.(map[string]any); ok && len(m) == 0 && (k == "desired" || k == "composite" || k == "resources" || k == "context") {
				continue
			}
			if x == nil && k == "error" {
				continue
			}
			out[k] = x
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = dropEmpty(x)
		}
		return out
	}
	return v
}

func TestNativeAnswersAsRecorded(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no tables: %v", err)
	}
	same, documented := 0, 0
	for _, p := range paths {
		tb, err := conformance.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tb.Cases {
			if c.Expect.NotRendered || c.Expect.Differs != "" {
				documented++
				continue
			}
			run := functions.Native(Native(functions.NativeEnv{Deadline: time.Now().Add(time.Minute), Release: tb.Version}))
			a := conformance.Call(context.Background(), run, tb.Function, c)
			want := essence(c.Response, c.Error)
			got := essence(a.Response, a.Error)
			if withheld(want, got) {
				documented++
				continue
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: case %q: crd-lsp's renderer answers otherwise (-real +crd-lsp):\n%s", p, c.Name, d)
				continue
			}
			same++
		}
	}
	t.Logf("%d cases answered as the real function, %d documented differences", same, documented)
}
