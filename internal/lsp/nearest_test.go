package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// Two versions of one configuration in a folder whose name the client
// escapes in its URIs (a space, non-ASCII): each version's example is
// validated against its own CRD, the nearest in the folder tree, as check
// does with the same files.
func TestNearestDefinitionInEscapedFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my café proj")
	for v, crd := range map[string]string{
		"v1": dbCRD,
		"v2": strings.Replace(dbCRD, "[postgres, mysql]", "[postgres, mysql, oracle]", 1),
	} {
		if err := os.MkdirAll(filepath.Join(dir, v), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v, "crd.yaml"), []byte(crd), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	if u := string(e.URI("v2/db.yaml")); !strings.Contains(u, "my%20caf%C3%A9%20proj") {
		t.Fatalf("the client does not escape the folder: %s", u)
	}
	e.AwaitSchemas(30 * time.Second)
	e.Open("v2/db.yaml", dbObject)
	e.Open("v1/db.yaml", dbObject)
	if got := codes(e.AwaitSettled("v2/db.yaml", 20*time.Second)); got != "" {
		t.Errorf("v2/db.yaml: %q, want no finding (v2's CRD allows oracle)", got)
	}
	if got := codes(e.AwaitSettled("v1/db.yaml", 20*time.Second)); got != "enum" {
		t.Errorf("v1/db.yaml: %q, want v1's enum error", got)
	}
}
