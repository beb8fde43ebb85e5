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

// handWritten are kubectl-validate test cases whose expected failure comes
// from validation the API server hand-writes in Go for built-in types
// (k8s.io/kubernetes/pkg/apis/core/validation and the like), which no
// OpenAPI document carries: crd-lsp, like every checker that reads the
// published schemas, misses them. docs/known-limits.md lists them.
var handWritten = map[string]string{
	"error_missing_image.yaml#0": "a container needs an image (ValidatePodSpec)",
	"error_enum_invalid.yaml#0":  "a port's protocol is TCP, UDP or SCTP (validateContainerPorts; the OpenAPI document states no enum)",
}

// TestKubectlValidateCases runs kubectl-validate's own test cases (copied
// verbatim into testdata/kubectl-validate, see its NOTICE): each document
// starts with the metav1.Status the API server answers for it. crd-lsp
// must reject exactly the documents that fail and name the fields the
// server's causes name; only the hand-written rules above are exempt, and
// each of those must really be missed (so the list cannot go stale).
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

	cases, matched := 0, 0
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
			if why, limit := handWritten[name]; limit {
				if problem == "" {
					t.Errorf("%s: listed as a known limit (%s), but crd-lsp now matches the API server: remove it from the list and docs/known-limits.md", name, why)
				}
				continue
			}
			if problem != "" {
				t.Errorf("%s: %s\n  crd-lsp: %q", name, problem, errs)
				continue
			}
			matched++
		}
	}
	t.Logf("%d of %d documents match kubectl-validate's expected outcome; %d are known limits", matched, cases, len(handWritten))
	if cases < 30 {
		t.Errorf("only %d test documents found", cases)
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
