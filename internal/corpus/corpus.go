// Package corpus locates the shared corpus of real, verbatim Kubernetes
// and Crossplane files that tests and benchmarks read in place: the
// repository is checked out as <X>/main with <X>/shared beside it, and
// CRD_LSP_CORPUS overrides. Without the corpus a test is skipped, except
// under CI=true, where it fails.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus folder or ends the test.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CRD_LSP_CORPUS")
	if dir == "" {
		dir = filepath.Join(moduleRoot(), "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus not found at %s (set CRD_LSP_CORPUS)", dir)
		}
		t.Skipf("shared corpus not found at %s", dir)
	}
	return dir
}

// File returns the bytes of the corpus file at rel (a path inside the
// corpus folder) or ends the test: a corpus without that file (an older
// copy, or CRD_LSP_CORPUS naming another folder) skips like a missing
// corpus, and fails under CI=true.
func File(t testing.TB, rel string) []byte {
	t.Helper()
	p := filepath.Join(Dir(t), rel)
	b, err := os.ReadFile(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus file: %v", err)
		}
		t.Skipf("shared corpus file: %v", err)
	}
	return b
}

func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
