package k8srules_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/k8srules"
	"github.com/crd-lsp/crd-lsp/internal/k8srules/internal/extract"
)

// TestRealManifestsPass applies the rules to every document of a kind they
// cover in the repository's test data, the shared corpus and Kubernetes'
// own manifests (add-ons, e2e and scheduler_perf fixtures of
// k8s.io/kubernetes, fetched through the module proxy like the generator
// does): real manifests the API server accepted (the test data's
// deliberately invalid documents are listed with the reason they fail), so
// any finding there is a false positive. Each source is a subtest: without
// the corpus or the module (offline) it is skipped with the reason, and
// under CI=true it fails.
func TestRealManifestsPass(t *testing.T) {
	t.Run("repository", func(t *testing.T) {
		checkManifests(t, 3, filepath.Join("..", "..", "testdata"), filepath.Join("..", "..", "examples"), filepath.Join(".."))
	})
	t.Run("corpus", func(t *testing.T) {
		checkManifests(t, 20, corpus.Dir(t))
	})
	t.Run("kubernetes", func(t *testing.T) {
		kube, err := extract.ModuleDir(extract.KubeModule)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skipf("Kubernetes' manifests: %v", err)
		}
		var roots []string
		for _, sub := range []string{"cluster/addons", "test/e2e/testing-manifests", "test/e2e/dra", "test/integration/scheduler_perf"} {
			roots = append(roots, filepath.Join(kube, filepath.FromSlash(sub)))
		}
		checkManifests(t, 20, roots...)
	})
}

// checkManifests checks every document under roots (at least least of them
// of kinds with rules).
func checkManifests(t *testing.T, least int, roots ...string) {
	docs, covered := 0, 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); n == "node_modules" || n == "provider-aws-full" || n == ".git" || (strings.HasPrefix(n, ".") && n != "." && n != "..") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			if filepath.Base(filepath.Dir(p)) == "testdata" && strings.HasPrefix(filepath.Base(p), "invalid") && strings.Contains(p, "k8srules") {
				return nil // this package's own invalid examples
			}
			text, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f := document.Parse(p, 0, text)
			for _, doc := range f.Docs {
				v, err := doc.Object()
				m, ok := v.(map[string]any)
				if err != nil || !ok {
					continue
				}
				docs++
				av, _ := m["apiVersion"].(string)
				kind, _ := m["kind"].(string)
				g := gvk.Parse(av, kind)
				if len(k8srules.Rules(g.Group, g.Version, g.Kind)) == 0 {
					continue
				}
				covered++
				for _, fd := range k8srules.Check(g.Group, g.Version, g.Kind, m) {
					t.Errorf("%s (document %d): %s", p, doc.Index, fd.Message)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d documents read, %d of kinds with declarative rules", docs, covered)
	if covered < least {
		t.Errorf("only %d documents of kinds with rules found", covered)
	}
}
