// This file holds the in-process sequencer to the real function's recorded
// answers (testdata/conformance).

package sequencer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/conformance"
)

// notRun are the parts of the function Native leaves to the real one,
// each case's input holding one (see Native's doc comment).
func notRun(c conformance.Case) string {
	in, _ := c.Request["input"].(map[string]any)
	if on, _ := in["enableDeletionSequencing"].(bool); on {
		return "deletion sequencing (Usages for observed resources)"
	}
	rules, _ := in["rules"].([]any)
	for _, r := range rules {
		if rm, _ := r.(map[string]any); rm["condition"] != nil && rm["condition"] != "" {
			return "a rule's CEL condition"
		}
	}
	if c.Error != "" {
		return "the call itself failed (the function crashed): " + c.Error
	}
	return ""
}

// essence is what a render shows of an answer: the results, which
// desired resources remain and how ready they are, the composite's
// readiness.
func essence(rsp map[string]any) map[string]any {
	rsp, _ = conformance.Stable(rsp).(map[string]any)
	out := map[string]any{}
	var results []any
	for _, r := range conformance.Results(rsp) {
		results = append(results, r.Severity+" "+r.Message)
	}
	out["results"] = results
	for i, r := range results {
		// A decoding failure is worded by the function's JSON library;
		// crd-lsp's words differ after the prefix the function adds.
		const prefix = "SEVERITY_FATAL cannot get Function input from *v1.RunFunctionRequest: "
		if s, _ := r.(string); strings.HasPrefix(s, prefix) {
			results[i] = prefix + "…"
		}
	}
	desired, _ := rsp["desired"].(map[string]any)
	res, _ := desired["resources"].(map[string]any)
	names := map[string]any{}
	for n, r := range res {
		rm, _ := r.(map[string]any)
		names[n] = rm["ready"]
	}
	out["resources"] = names
	comp, _ := desired["composite"].(map[string]any)
	out["compositeReady"] = comp["ready"]
	return out
}

func TestNativeAnswersAsRecorded(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no tables: %v", err)
	}
	run := functions.Native(Native)
	same, documented := 0, 0
	for _, p := range paths {
		tb, err := conformance.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tb.Cases {
			if why := notRun(c); why != "" {
				documented++
				continue
			}
			a := conformance.Call(context.Background(), run, tb.Function, c)
			if a.Error != "" {
				t.Errorf("%s: case %q: crd-lsp's sequencer failed: %s", p, c.Name, a.Error)
				continue
			}
			if d := cmp.Diff(essence(c.Response), essence(a.Response)); d != "" {
				t.Errorf("%s: case %q: crd-lsp's sequencer answers otherwise (-real +crd-lsp):\n%s", p, c.Name, d)
				continue
			}
			same++
		}
	}
	t.Logf("%d cases answered as the real function, %d left to it (documented)", same, documented)
}
