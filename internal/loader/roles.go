// This file says what the workspace's tools make of a file: a Helm
// chart's part, a kuttl or chainsaw assertion, a kustomize or chainsaw
// patch.

package loader

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// chainsawUse is how the workspace's chainsaw Tests use the file at path,
// and the first such Test: a whole object when any applies, creates or
// updates it, else a patch, else an assertion; templated when any use is.
func (w *World) chainsawUse(path string) (workspace.ChainsawUse, string, bool) {
	path = filepath.Clean(path)
	rank := map[string]int{"assert": 1, "error": 1, "patch": 2, "apply": 3, "create": 3, "update": 3}
	var best workspace.ChainsawUse
	test, templated := "", false
	for _, t := range w.index().chainsaw {
		uses := w.files[t].chainsaw
		for _, u := range uses {
			if ok, _ := filepath.Match(u.Pattern, path); !ok && u.Pattern != path {
				continue
			}
			templated = templated || u.Templated
			if rank[u.Op] > rank[best.Op] || rank[u.Op] == rank[best.Op] && t < test {
				best, test = u, t
			}
		}
	}
	best.Templated = templated
	return best, test, test != ""
}

// kuttlAssertion reports whether path is named as kuttl's assert and
// error files are: <step number>-assert.yaml or <step number>-errors.yaml.
func kuttlAssertion(path string) bool {
	name := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
	step, rest, ok := strings.Cut(name, "-")
	if !ok || step == "" || strings.Trim(step, "0123456789") != "" {
		return false
	}
	return rest == "assert" || rest == "errors"
}

// isChartFile reports whether p is a Helm chart's Chart.yaml.
func isChartFile(p string) bool { return filepath.Base(p) == "Chart.yaml" }

// chartPart says why a file of a Helm chart is not a manifest ("" for
// any other file): its Chart.yaml is Helm's metadata, and the files under
// its templates folder are Go templates that only render to YAML.
func (w *World) chartPart(path string) string {
	path = filepath.Clean(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if w.index().charts[dir] {
			rel, _ := filepath.Rel(dir, path)
			switch {
			case rel == "Chart.yaml":
				return "the metadata of the Helm chart " + dir
			case strings.HasPrefix(rel, "templates"+string(filepath.Separator)):
				return "a template of the Helm chart " + dir + " (Go template text, YAML only once rendered)"
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

// role is what the workspace's tools make of the file at path: why it is
// not a manifest at all (a Helm chart's part, a kuttl or chainsaw
// assertion), the file that applies it as a patch (a kustomization, a
// chainsaw Test), and whether its "(…)" values are chainsaw expressions.
func (w *World) role(path string) (skip, patchOf string, expressions bool) {
	skip, patchOf = w.chartPart(path), w.PatchedBy(path)
	if kuttlAssertion(path) {
		skip = "a kuttl assertion (a partial match of what the test step must find)"
	}
	if use, test, ok := w.chainsawUse(path); ok {
		expressions = use.Templated
		switch use.Op {
		case "assert", "error":
			skip = "a chainsaw assertion of " + test + " (a partial match whose keys and values may be expressions)"
		case "patch":
			patchOf = test
		}
	}
	return skip, patchOf, expressions
}

// PatchedBy is the kustomization that applies the file at path as a
// patch ("" when none does; the first by path when several do).
func (w *World) PatchedBy(path string) string {
	by := ""
	for _, k := range w.index().patches {
		ps := w.files[k].patches
		if (by == "" || k < by) && slices.Contains(ps, filepath.Clean(path)) {
			by = k
		}
	}
	return by
}
