package k8srules_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/k8srules"
)

// TestRealManifestsPass applies the rules to every document of a kind they
// cover in the shared corpus and the repository's test data: real
// manifests the API server accepted (the test data's deliberately invalid
// documents are listed with the reason they fail), so any finding there is
// a false positive.
func TestRealManifestsPass(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "..", "shared", "corpus"), filepath.Join("..", "..", "testdata"), filepath.Join("..", "..", "examples"), filepath.Join("..")}
	if _, err := os.Stat(roots[0]); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus not found: %v", err)
		}
		t.Logf("shared corpus not found at %s: only the repository's files are read", roots[0])
		roots = roots[1:]
	}
	// Kubernetes' own manifests (add-ons, e2e and scheduler_perf
	// fixtures), from the module cache when it holds k8s.io/kubernetes.
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		kube := filepath.Join(strings.TrimSpace(string(out)), "k8s.io", "kubernetes@v1.37.2")
		for _, sub := range []string{"cluster/addons", "test/e2e/testing-manifests", "test/e2e/dra", "test/integration/scheduler_perf"} {
			if _, err := os.Stat(filepath.Join(kube, sub)); err == nil {
				roots = append(roots, filepath.Join(kube, sub))
			} else {
				t.Logf("not in the module cache: %s", sub)
			}
		}
	}
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
	if covered < 20 {
		t.Errorf("only %d documents of kinds with rules found", covered)
	}
}
