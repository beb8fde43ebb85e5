// This file holds ResolveFunction to the real function's recorded answers
// (testdata/conformance).

package environmentconfigs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/functions/conformance"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// TestResolveFunctionAnswersAsRecorded: for every recorded case,
// ResolveFunction, given the cluster's EnvironmentConfigs as a complete
// set, fails where the real function fails (a Fatal result or a crash)
// and otherwise builds the environment the function leaves in the
// context (none when the function leaves the context alone: then the
// environment is the one the step got). Decoding the input is not
// ResolveFunction's: the function's record says what it refuses.
func TestResolveFunctionAnswersAsRecorded(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no tables: %v", err)
	}
	same := 0
	for _, p := range paths {
		tb, err := conformance.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tb.Cases {
			rsp, _ := conformance.Stable(c.Response).(map[string]any)
			if r := conformance.Results(rsp); len(r) == 1 && strings.HasPrefix(r[0].Message, "cannot get Function input") {
				continue
			}
			in, _ := c.Request["input"].(map[string]any)
			xr, _ := lookupMap(c.Request, "observed", "composite", "resource")
			prior, _ := lookupMap(c.Request, "context", ContextKey)
			res := ResolveFunction(in, xr, prior, Options{Configs: InCluster(c.Resources, 2), Complete: true, From: "in the cluster"})
			switch {
			case c.Fatal():
				if res.Failure == nil {
					t.Errorf("%s: %s: the function fails (%s%s), crd-lsp builds %v", p, c.Name, c.Error, results(rsp), res.Environment)
				} else if !res.Failure.Certain {
					t.Errorf("%s: %s: the failure is certain with every EnvironmentConfig given: %s", p, c.Name, res.Failure.Message)
				}
			case res.Failure != nil:
				t.Errorf("%s: %s: crd-lsp fails (%s), the function does not", p, c.Name, res.Failure.Message)
			default:
				want, set := lookupMap(rsp, "context", ContextKey)
				if !set {
					want = prior
					if want == nil {
						want = map[string]any{}
					}
				}
				if d := cmp.Diff(plain(t, want), plain(t, res.Environment)); d != "" {
					t.Errorf("%s: %s: environment (-real +crd-lsp):\n%s", p, c.Name, d)
				}
			}
			same++
		}
	}
	if same < 30 {
		t.Errorf("only %d cases compared", same)
	}
	t.Logf("%d cases answered as the real function", same)
}

func lookupMap(m map[string]any, keys ...string) (map[string]any, bool) {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	out, ok := v.(map[string]any)
	return out, ok
}

// plain is v as JSON decodes it, numbers as Kubernetes reads them.
func plain(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	out, _ = jsonnum.Normalize(out)
	return out
}

func results(rsp map[string]any) string {
	var out []string
	for _, r := range conformance.Results(rsp) {
		out = append(out, r.Message)
	}
	return strings.Join(out, "; ")
}
