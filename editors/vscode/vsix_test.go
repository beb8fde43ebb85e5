package vscode

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkVSIX: a packaged extension ships the repository's LICENSE and
// NOTICE (the Apache-2.0 licence and the attribution of the embedded
// schemas) and none of the Go sources or tests of this folder.
func checkVSIX(t *testing.T, vsix string) {
	t.Helper()
	z, err := zip.OpenReader(vsix)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	found := map[string][]byte{}
	for _, f := range z.File {
		if strings.HasSuffix(f.Name, ".go") {
			t.Errorf("%s ships the Go file %s", vsix, f.Name)
		}
		switch f.Name {
		case "extension/LICENSE", "extension/LICENSE.txt", "extension/NOTICE": // (vsce names the licence LICENSE.txt)
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			found[strings.TrimSuffix(filepath.Base(f.Name), ".txt")] = b
		}
	}
	for _, name := range []string{"LICENSE", "NOTICE"} {
		want, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := found[name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: extension/%s missing or not the repository's (%d bytes, want %d)", vsix, name, len(got), len(want))
		}
	}
}
