package lsp

import (
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// The server turns a client's file: URIs into paths with
// document.FilePath, the one rule analysis uses too; it must read them as
// go.lsp.dev/uri (vscode-uri's rules) does, and turn the paths back into
// the same URIs.
func TestFilePathAgreesWithURI(t *testing.T) {
	for _, u := range []string{
		"file:///home/me/proj/x.yaml",
		"file:///home/me/my%20proj/x.yaml",
		"file:///home/me/caf%C3%A9/%E6%97%A5%E6%9C%AC.yaml",
		"file:///home/me/a%23b/x%2By.yaml",
		"file:///C:/Users/me/my%20proj/x.yaml",
		"file:///c%3A/Users/me/x.yaml",
		"file://server/share/x.yaml",
	} {
		want := uri.URI(u).FsPath()
		if got := filePath(uri.URI(u)); got != want {
			t.Errorf("filePath(%s) = %q, go.lsp.dev/uri says %q", u, got, want)
		}
		if got, want := fileURI(&document.File{URI: document.FilePath(u)}), uri.File(want); got != want {
			t.Errorf("fileURI(FilePath(%s)) = %s, want %s", u, got, want)
		}
	}
	for _, u := range []string{"untitled:Untitled-1", "vscode-vfs://github/o/r/x.yaml"} {
		if got := filePath(uri.URI(u)); got != "" {
			t.Errorf("filePath(%s) = %q, want \"\" (not a local file)", u, got)
		}
		if got := fileURI(&document.File{URI: u}); string(got) != u {
			t.Errorf("fileURI of a buffer named %s = %s", u, got)
		}
	}
}

// TestOpenAt: an open buffer is found by its path whichever form of its
// URI the client wrote: escaped as VS Code writes it, or with spaces and
// letters as they are (and, on Windows, file:///C:/x beside
// file:///c%3A/x).
func TestOpenAt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b", "ç")
	p := filepath.Join(dir, "my crd.yaml")
	f := &document.File{}
	for _, u := range []uri.URI{pathURI(p), uri.URI("file://" + filepath.ToSlash(p))} {
		open := map[uri.URI]*document.File{u: f, pathURI(filepath.Join(dir, "other.yaml")): {}}
		got, gotF, ok := openAt(open, p)
		if !ok || got != u || gotF != f {
			t.Errorf("openAt(%s) = %s, %v, %v", p, got, gotF == f, ok)
		}
	}
	if _, _, ok := openAt(map[uri.URI]*document.File{}, p); ok {
		t.Errorf("openAt found a buffer in no open document")
	}
}
