package referee

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// serverAnswers are kubectl-validate test cases whose recorded outcome is
// kubectl-validate's own, not what kube-apiserver answers: TestKubeReferee
// sends these files to kube-apiserver at go.mod's version, which answers
// as listed here, and crd-lsp must answer as kube-apiserver does. Fields
// lists the fields of the server's causes ("" when it accepts).
var serverAnswers = map[string]struct{ fields, why string }{
	"configmap.yaml#0": {"metadata.finalizers[0]",
		"kube-apiserver refuses a finalizer that is neither a standard name nor fully qualified (core validation's validateKubeFinalizerName, run for every core kind's metadata); kubectl-validate records success"},
	"error_x_list_map_duplicate_key.yaml#0": {"",
		"kube-apiserver accepts a container port listed twice (it warns: duplicate port definition); kubectl-validate judges the OpenAPI list-map keys and records a failure"},
}

// TestKubectlValidateCases runs kubectl-validate's own test cases (copied
// verbatim into testdata/kubectl-validate, see its NOTICE): each document
// starts with the metav1.Status kubectl-validate expects for it. crd-lsp
// must reject exactly the documents that fail and name the fields the
// status's causes name; where kube-apiserver itself answers otherwise
// (serverAnswers), crd-lsp must give kube-apiserver's answer, and
// kubectl-validate's record must really differ from it (so the list
// cannot go stale).
func TestKubectlValidateCases(t *testing.T) {
	dir := filepath.Join("testdata", "kubectl-validate")
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	var crds []schemas.FileInput
	for _, p := range yamlFiles(t, filepath.Join(dir, "crds")) {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		crds = append(crds, schemas.FileInput{Source: schemas.Source{Kind: schemas.SourceWorkspace, Name: p, File: p}, Path: p, Content: text})
	}
	env := analysis.Env{Workspace: analysis.Workspace{Schemas: st.WithFiles(crds), CrossplaneMajor: 2}, Options: analysis.Options{UnknownKind: severity.Warning}}

	cases, matched, answered := 0, 0, 0
	for _, p := range yamlFiles(t, filepath.Join(dir, "manifests")) {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := document.Parse(p, 0, text)
		diags := analysis.Diagnose(context.Background(), f, env)
		for _, d := range f.Docs {
			name := filepath.Base(p) + "#" + itoa(d.Index)
			want, ok := expectation(t, name, text[d.Span.Start:d.Span.End])
			if !ok {
				continue
			}
			cases++
			var errs, fields []string
			for _, dg := range diags {
				if dg.Severity == severity.Error && dg.Span.Start >= d.Span.Start && dg.Span.Start < d.Span.End {
					errs = append(errs, dg.Path+": "+dg.Message+" ["+dg.Code+"]")
					fields = append(fields, dg.Path)
				}
			}
			failure := want.Status != "Success"
			if server, listed := serverAnswers[name]; listed {
				var causes []string
				for _, c := range want.Details.Causes {
					causes = append(causes, c.Field)
				}
				switch {
				case failure == (server.fields != "") && strings.Join(causes, ",") == server.fields:
					t.Errorf("%s: listed as answered otherwise by kube-apiserver (%s), but kubectl-validate records the same answer: remove it from serverAnswers", name, server.why)
				case strings.Join(fields, ",") != server.fields:
					t.Errorf("%s: kube-apiserver names %q (%s), crd-lsp %q", name, server.fields, server.why, errs)
				default:
					answered++
				}
				continue
			}
			problem := ""
			switch {
			case failure && len(errs) == 0:
				problem = "the API server rejects it (" + want.Message + "), crd-lsp accepts it"
			case !failure && len(errs) > 0:
				problem = "the API server accepts it, crd-lsp rejects it"
			case failure:
				for _, c := range want.Details.Causes {
					if c.Field != "" && c.Field != "<nil>" && !slices.ContainsFunc(fields, func(l string) bool { return related(c.Field, l) }) {
						problem += "crd-lsp does not name " + c.Field + " (" + c.Message + "); "
					}
				}
			}
			if problem != "" {
				t.Errorf("%s: %s\n  crd-lsp: %q", name, problem, errs)
				continue
			}
			matched++
		}
	}
	t.Logf("%d of %d documents: %d as kubectl-validate records, %d as kube-apiserver answers where kubectl-validate records otherwise", matched+answered, cases, matched, answered)
	if cases < 33 || matched+answered != cases {
		t.Errorf("%d of %d test documents answered as expected", matched+answered, cases)
	}
}

// expectation reads a document's leading comment, as kubectl-validate's
// own test does; an empty document succeeds, a non-empty one must state
// its outcome.
func expectation(t *testing.T, name string, doc []byte) (status, bool) {
	var comment strings.Builder
	empty := true
	for _, line := range strings.Split(string(doc), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "---" || trimmed == "" && comment.Len() == 0 {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			if trimmed != "" {
				empty = false
			}
			if comment.Len() > 0 {
				break
			}
			continue
		}
		comment.WriteString(line[1:] + "\n")
	}
	var s status
	if comment.Len() == 0 || !json.Valid([]byte(comment.String())) {
		if empty {
			return status{Status: "Success"}, true
		}
		t.Errorf("%s: no expected outcome in its leading comment", name)
		return s, false
	}
	if err := json.Unmarshal([]byte(comment.String()), &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s, true
}
