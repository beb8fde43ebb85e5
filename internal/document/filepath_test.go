package document

import (
	"path/filepath"
	"testing"
)

func TestFilePath(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"file:///home/me/proj/x.yaml", "/home/me/proj/x.yaml"},
		{"file:///home/me/my%20proj/x.yaml", "/home/me/my proj/x.yaml"},
		{"file:///home/me/caf%C3%A9/%E6%97%A5%E6%9C%AC.yaml", "/home/me/café/日本.yaml"},
		{"file:///home/me/caf\u00e9/x.yaml", "/home/me/café/x.yaml"}, // unescaped, as some clients send
		{"file:///home/me/a%23b/x.yaml", "/home/me/a#b/x.yaml"},
		{"FILE:///home/me/x.yaml", "/home/me/x.yaml"},
		{"file:///C:/Users/me/my%20proj/x.yaml", "c:/Users/me/my proj/x.yaml"},
		{"file:///c%3A/Users/me/x.yaml", "c:/Users/me/x.yaml"}, // VS Code's escaped drive colon
		{"file://server/share/x.yaml", "//server/share/x.yaml"},
		{"file://localhost/home/me/x.yaml", "/home/me/x.yaml"},
		{"file:///home/me/bad%zz.yaml", "/home/me/bad%zz.yaml"}, // a bad escape: as written
		// Paths (the CLI's and the loader's names) stay as they are.
		{"/home/me/my%20proj/x.yaml", "/home/me/my%20proj/x.yaml"},
		{"examples/x.yaml", "examples/x.yaml"},
		{"c:/Users/me/x.yaml", "c:/Users/me/x.yaml"},
		{"<stdin>", "<stdin>"},
		// Other schemes name no local file.
		{"untitled:Untitled-1", "untitled:Untitled-1"},
		{"vscode-vfs://github/o/r/x.yaml", "vscode-vfs://github/o/r/x.yaml"},
	} {
		want := tc.want
		if tc.name == tc.want || !IsURI(tc.name) {
			want = tc.name // not converted: not even slashes
		} else {
			want = filepath.FromSlash(want)
		}
		if got := FilePath(tc.name); got != want {
			t.Errorf("FilePath(%q) = %q, want %q", tc.name, got, want)
		}
	}
}

func TestIsURI(t *testing.T) {
	for name, want := range map[string]bool{
		"file:///x": true, "untitled:Untitled-1": true, "vscode-vfs://github/o": true, "git+ssh://h/x": true,
		"/x/y.yaml": false, "x.yaml": false, "c:/x": false, `c:\x`: false, "": false, ":x": false, "1a:x": false,
	} {
		if got := IsURI(name); got != want {
			t.Errorf("IsURI(%q) = %v, want %v", name, got, want)
		}
	}
}
