package fileuri

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToPath: what a file: URI names, on Windows and on Unix, whatever
// system the test runs on — drive letters in either case and with the
// colon escaped as VS Code sends it, UNC shares, localhost, escapes, and
// names that are not file: URIs.
func TestToPath(t *testing.T) {
	for _, c := range []struct {
		in     string
		os     OS
		want   string
		isFile bool
	}{
		// Windows: VS Code sends the drive's colon escaped, lower case.
		{`file:///c%3A/Users/me/a.yaml`, Windows, `c:\Users\me\a.yaml`, true},
		{`file:///C%3A/Users/me/a.yaml`, Windows, `c:\Users\me\a.yaml`, true},
		// Neovim, Emacs and Helix send it as written: upper case, a plain colon.
		{`file:///C:/Users/me/a.yaml`, Windows, `c:\Users\me\a.yaml`, true},
		{`file:///c:/Users/me/a.yaml`, Windows, `c:\Users\me\a.yaml`, true},
		{`FILE:///C:/x.yaml`, Windows, `c:\x.yaml`, true},
		{`file:///d%3A/Program%20Files/crd%20lsp/%C3%BCber.yaml`, Windows, `d:\Program Files\crd lsp\über.yaml`, true},
		{`file:///c%3A/`, Windows, `c:\`, true},
		// UNC shares: the host is the server.
		{`file://server/share/dir/a.yaml`, Windows, `\\server\share\dir\a.yaml`, true},
		{`file://fileserver.corp/team%20share/x.yaml`, Windows, `\\fileserver.corp\team share\x.yaml`, true},
		{`file://localhost/c:/x.yaml`, Windows, `c:\x.yaml`, true},
		// Unix.
		{`file:///home/me/a.yaml`, Unix, `/home/me/a.yaml`, true},
		{`file:///home/me/a%20b/c.yaml`, Unix, `/home/me/a b/c.yaml`, true},
		{`file:///tmp/%E2%82%AC/%E6%97%A5%E6%9C%AC.yaml`, Unix, `/tmp/€/日本.yaml`, true},
		{`file:///tmp/a%23b%3Fc.yaml`, Unix, `/tmp/a#b?c.yaml`, true},
		{`file:///tmp/x.yaml#L3`, Unix, `/tmp/x.yaml`, true},
		{`file://localhost/etc/x.yaml`, Unix, `/etc/x.yaml`, true},
		{`file://LOCALHOST/etc/x.yaml`, Unix, `/etc/x.yaml`, true},
		{`file:/etc/x.yaml`, Unix, `/etc/x.yaml`, true},
		{`file://server/share/x.yaml`, Unix, `//server/share/x.yaml`, true},
		{`file:///tmp/%zz/%C3.yaml`, Unix, `/tmp/%zz/%C3.yaml`, true},
		// A Windows URI read on Unix keeps VS Code's reading (fsPath).
		{`file:///C:/x.yaml`, Unix, `c:/x.yaml`, true},
		// Not file: URIs.
		{`untitled:Untitled-1`, Unix, ``, false},
		{`crd-lsp-preview:/x.yaml`, Windows, ``, false},
		{`vscode-vfs://github/o/r/x.yaml`, Unix, ``, false},
		{`c:\Users\me\a.yaml`, Windows, ``, false},
		{`c:/Users/me/a.yaml`, Windows, ``, false},
		{`/home/me/a.yaml`, Unix, ``, false},
		{`a.yaml`, Unix, ``, false},
	} {
		got, ok := ToPath(c.in, c.os)
		if got != c.want || ok != c.isFile {
			t.Errorf("ToPath(%q, %v) = %q, %v; want %q, %v", c.in, c.os, got, ok, c.want, c.isFile)
		}
	}
}

// TestFromPath: the URI crd-lsp sends for a path, as VS Code makes it.
func TestFromPath(t *testing.T) {
	for _, c := range []struct {
		in   string
		os   OS
		want string
	}{
		{`C:\Users\me\a.yaml`, Windows, `file:///c%3A/Users/me/a.yaml`},
		{`c:\Users\me\a.yaml`, Windows, `file:///c%3A/Users/me/a.yaml`},
		{`C:/Users/me/a.yaml`, Windows, `file:///c%3A/Users/me/a.yaml`},
		{`D:\Program Files\crd lsp\über.yaml`, Windows, `file:///d%3A/Program%20Files/crd%20lsp/%C3%BCber.yaml`},
		{`\\server\share\dir\a.yaml`, Windows, `file://server/share/dir/a.yaml`},
		{`/home/me/a.yaml`, Unix, `file:///home/me/a.yaml`},
		{`/home/me/a b/c.yaml`, Unix, `file:///home/me/a%20b/c.yaml`},
		{`/tmp/€/日本.yaml`, Unix, `file:///tmp/%E2%82%AC/%E6%97%A5%E6%9C%AC.yaml`},
		{`/tmp/a#b?c@d:e.yaml`, Unix, `file:///tmp/a%23b%3Fc%40d%3Ae.yaml`},
		// A backslash is a file name's character on Unix.
		{`/tmp/a\b.yaml`, Unix, `file:///tmp/a%5Cb.yaml`},
	} {
		if got := FromPath(c.in, c.os); got != c.want {
			t.Errorf("FromPath(%q, %v) = %q; want %q", c.in, c.os, got, c.want)
		}
	}
}

// TestRoundTrip: a path read back from its URI is the same path (on
// Windows with the drive letter lower-cased, as every reading gives it).
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		path string
		os   OS
	}{
		{`c:\Users\me\project\crossplane.yaml`, Windows},
		{`c:\Users\Zoë Ng\Mes documents\compo sition.yaml`, Windows},
		{`c:\a%20b\100%.yaml`, Windows},
		{`\\server\share\deep\x.yaml`, Windows},
		{`/home/me/project/crossplane.yaml`, Unix},
		{`/home/zoë/my project/compo sition.yaml`, Unix},
		{`/tmp/a%20b/100%.yaml`, Unix},
		{`/tmp/日本語/ファイル.yaml`, Unix},
		{`/tmp/a#b/c?d.yaml`, Unix},
	} {
		u := FromPath(c.path, c.os)
		back, ok := ToPath(u, c.os)
		if !ok || back != c.path {
			t.Errorf("%q → %q → %q (%v)", c.path, u, back, ok)
		}
	}
}

// TestHost: on this machine, a real file whose name has spaces and
// non-ASCII letters is found again through its URI.
func TestHost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my project", "zoë")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "compo sition €.yaml")
	if err := os.WriteFile(p, []byte("kind: X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := URI(p)
	if strings.ContainsAny(u, " €ë\\") || !strings.HasPrefix(u, "file:///") {
		t.Errorf("URI(%q) = %q: not escaped", p, u)
	}
	b, err := os.ReadFile(Path(u))
	if err != nil || string(b) != "kind: X\n" {
		t.Errorf("reading %q (from %q): %q, %v", Path(u), u, b, err)
	}
	if Path("untitled:Untitled-1") != "untitled:Untitled-1" || Path(p) != p {
		t.Errorf("Path changed a name that is not a file: URI")
	}
}
