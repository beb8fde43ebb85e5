package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootNotice: the repository's NOTICE (shipped in the .vsix and
// release archives) carries this package's attribution verbatim.
func TestRootNotice(t *testing.T) {
	ours, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join("..", "..", "..", "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(root), string(ours)) {
		t.Error("NOTICE at the repository root does not end with internal/schemas/builtin/NOTICE: copy it there again")
	}
}
