// This file holds crd-lsp's model of each function to the function's
// recorded answers (internal/functions/<function>/testdata/conformance):
// every decoding and rule names recorded cases that show it, and what
// crd-lsp says about every recorded input agrees with what the real
// function answered.

package known

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/conformance"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// tables are every recorded table, by "function@release".
func tables(t *testing.T) map[string]*conformance.Table {
	t.Helper()
	paths, err := conformance.Tables(filepath.Join(".."))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*conformance.Table{}
	for _, p := range paths {
		tb, err := conformance.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out[tb.Function+"@"+tb.Version] = tb
	}
	if len(out) == 0 {
		t.Fatal("no conformance tables")
	}
	return out
}

// caseOf finds a proof "release/case" of fn.
func caseOf(tbs map[string]*conformance.Table, fn *functions.Known, proof string) (*conformance.Case, error) {
	rel, name, ok := strings.Cut(proof, "/")
	if !ok {
		return nil, fmt.Errorf("proof %q is not release/case", proof)
	}
	tb := tbs[fn.Name+"@"+rel]
	if tb == nil {
		return nil, fmt.Errorf("proof %q: no recorded table of %s %s", proof, fn.Name, rel)
	}
	for i := range tb.Cases {
		if tb.Cases[i].Name == name {
			return &tb.Cases[i], nil
		}
	}
	return nil, fmt.Errorf("proof %q: %s has no case %q", proof, tb.Path, name)
}

// reportsFailure says whether a recorded answer says the function could
// not do what the input asked without failing the step: a condition set
// False, or a Warning result.
func reportsFailure(c *conformance.Case) bool {
	conds, _ := c.Response["conditions"].([]any)
	for _, x := range conds {
		m, _ := x.(map[string]any)
		if m["status"] == "STATUS_CONDITION_FALSE" {
			return true
		}
	}
	for _, r := range conformance.Results(c.Response) {
		if r.Severity == "SEVERITY_WARNING" {
			return true
		}
	}
	return false
}

// agrees says whether a recorded answer shows effect e.
func agrees(c *conformance.Case, e functions.Effect) string {
	switch e {
	case functions.Fails:
		if !c.Fatal() {
			return "the step does not fail"
		}
	case functions.Reports:
		if c.Fatal() {
			return "the step fails"
		}
		if !reportsFailure(c) {
			return "no False condition or Warning result"
		}
	case functions.Defaults, functions.Ignores, functions.Accepts:
		if c.Fatal() {
			return "the step fails"
		}
	default:
		return fmt.Sprintf("unknown effect %q", e)
	}
	return ""
}

// TestRecordsAreProven: every function with a table has a record naming
// the table's release; every decoding and rule names its source place
// and recorded cases, and each case shows the effect claimed.
func TestRecordsAreProven(t *testing.T) {
	tbs := tables(t)
	for key, tb := range tbs {
		fn := ByName(tb.Function)
		if fn == nil {
			t.Errorf("%s: no record of %s in known.All", tb.Path, tb.Function)
			continue
		}
		if !strings.Contains(tb.Version, "+") && !slices.Contains(fn.Releases, tb.Version) {
			t.Errorf("%s: %s's record does not list release %s (Releases %v)", key, fn.Name, tb.Version, fn.Releases)
		}
	}
	for _, fn := range All() {
		for _, r := range fn.Releases {
			if tbs[fn.Name+"@"+r] == nil {
				t.Errorf("%s: release %s is listed but has no recorded table", fn.Name, r)
			}
		}
		for i, d := range fn.Decodings {
			where := fmt.Sprintf("%s decoding %d (since %s)", fn.Name, i, d.Since)
			if d.Source == "" || len(d.Proof) == 0 {
				t.Errorf("%s: names no source place or proof", where)
			}
			for _, p := range d.Proof {
				c, err := caseOf(tbs, fn, p)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				// A decoding's proofs show what an unknown field (or a
				// wrong type) does: at least one of its effects.
				if agrees(c, d.Unknown) != "" && agrees(c, d.WrongType) != "" && d.Reads != functions.ReadsNothing {
					t.Errorf("%s: proof %s shows neither %s nor %s", where, p, d.Unknown, d.WrongType)
				}
			}
			if d.AnyKind && len(d.KindProof) == 0 {
				t.Errorf("%s: says any kind is read, but names no case that shows it", where)
			}
			for _, p := range d.KindProof {
				c, err := caseOf(tbs, fn, p)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if c.Fatal() || reportsFailure(c) {
					t.Errorf("%s: kind proof %s shows the input refused", where, p)
				}
			}
		}
		for _, r := range fn.Rules {
			where := fmt.Sprintf("%s rule %s (%s %v)", fn.Name, r.Path, r.When, r.Known)
			if r.Source == "" || len(r.Proof) == 0 || r.Does == "" {
				t.Errorf("%s: names no source place, proof or words", where)
			}
			for _, p := range r.Proof {
				c, err := caseOf(tbs, fn, p)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if why := agrees(c, r.Effect); why != "" {
					t.Errorf("%s claims %s, but its proof %s shows otherwise: %s", where, r.Effect, p, why)
				}
			}
		}
	}
}

// inputFindings is what crd-lsp says about a recorded case's input for
// the table's release: the input validated against the function's input
// CRD (the built-in one), judged.
func inputFindings(t *testing.T, st *schemas.Store, fn *functions.Known, release string, in map[string]any) []schemas.Error {
	t.Helper()
	link := Link{Fn: fn, How: ByPackage, Release: release, Pinned: true}
	var errs []schemas.Error
	if sch, probe, ok := schemaOf(st, link, in); ok {
		for _, e := range sch.Validate(context.Background(), probe) {
			if len(e.Path) > 0 && e.Path[0].Field == "metadata" || e.Code == "cel" && (e.Severity == severity.Info || e.Unevaluable) {
				continue
			}
			errs = append(errs, e)
		}
	}
	return link.Judge(errs, in)
}

// schemaOf finds the built-in input CRD the function reads in as (its
// own kind's, or for a release that decodes any kind, its first input
// kind's).
func schemaOf(st *schemas.Store, link Link, in map[string]any) (*schemas.Schema, map[string]any, bool) {
	g, ok := inputGVK(in)
	if !ok || len(link.Fn.Inputs) == 0 {
		return nil, nil, false
	}
	probe := map[string]any{"metadata": map[string]any{"name": "input"}}
	for k, v := range in {
		probe[k] = v
	}
	if c := st.Candidates(g); len(c) > 0 {
		return c[0], probe, true
	}
	own := link.Fn.Inputs[0]
	for _, v := range append([]string{g.Version}, own.Versions...) {
		og := gvk.GVK{Group: own.Group, Version: v, Kind: own.Kind}
		if c := st.Candidates(og); len(c) > 0 {
			probe["apiVersion"], probe["kind"] = og.APIVersion(), og.Kind
			return c[0], probe, true
		}
	}
	return nil, nil, false
}

func words(e schemas.Error) string {
	p := e.Path
	if e.Code == "required" && e.Field != "" {
		p = p.Child(fieldpath.Field(e.Field))
	}
	return fmt.Sprintf("%s %s: %s", e.Severity, p, e.Message)
}

// TestFindingsAgreeWithRecordedAnswers: for every recorded case, crd-lsp
// says the step fails (an error) only where the real function failed or
// reported that it could not use its input, and says what the case's
// expect lists.
func TestFindingsAgreeWithRecordedAnswers(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	tbs := tables(t)
	keys := make([]string, 0, len(tbs))
	for k := range tbs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		tb := tbs[key]
		fn := ByName(tb.Function)
		if fn == nil {
			continue // TestRecordsAreProven says so
		}
		for i := range tb.Cases {
			c := &tb.Cases[i]
			in, _ := c.Request["input"].(map[string]any)
			if in == nil {
				continue
			}
			got := inputFindings(t, st, fn, tb.Version, in)
			var errs, said []string
			for _, e := range got {
				if e.Severity == severity.Error {
					errs = append(errs, words(e))
				}
				if e.Severity == severity.Error || e.Severity == severity.Warning {
					said = append(said, words(e))
				}
			}
			if dump := os.Getenv("CRD_LSP_CONFORMANCE_DUMP"); dump != "" && strings.Contains(key, dump) {
				t.Logf("%s %s (fatal %v): %q", key, c.Name, c.Fatal(), said)
			}
			if len(errs) > 0 && !c.Fatal() && !reportsFailure(c) && c.Expect.StateDependent == "" {
				t.Errorf("%s: case %q: crd-lsp says %q, but the real function neither failed nor reported a failure", tb.Path, c.Name, errs)
			}
			if len(c.Expect.Findings) > 0 || len(c.Expect.Infos) > 0 {
				checkExpected(t, tb.Path, c, got, said)
			}
		}
	}
}

// checkExpected holds a case's findings to its expect: its findings at
// warning and error exactly (in any order), its infos among the rest.
func checkExpected(t *testing.T, path string, c *conformance.Case, got []schemas.Error, said []string) {
	t.Helper()
	want := c.Expect.Findings
	if len(want) == 1 && want[0] == "none" {
		want = nil
	}
	used := make([]bool, len(said))
	for _, w := range want {
		found := false
		for i, s := range said {
			if !used[i] && matches(s, w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("%s: case %q: crd-lsp does not say %q; it says %q", path, c.Name, w, said)
		}
	}
	for i, s := range said {
		if !used[i] {
			t.Errorf("%s: case %q: crd-lsp also says %q, which the case does not expect", path, c.Name, s)
		}
	}
	for _, w := range c.Expect.Infos {
		found := false
		for _, e := range got {
			if e.Severity == severity.Info && matches(words(e), w) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: case %q: crd-lsp does not note %q", path, c.Name, w)
		}
	}
}

// matches says whether a finding "severity path: message" is the one an
// expectation "severity path: text" describes (text a part of message).
func matches(finding, want string) bool {
	wh, wt, _ := strings.Cut(want, ": ")
	fh, ft, _ := strings.Cut(finding, ": ")
	return wh == fh && strings.Contains(ft, wt)
}
