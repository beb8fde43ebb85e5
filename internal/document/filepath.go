// This file holds the one rule for what a File's name (File.URI) stands
// for on disk: editors name their buffers with URIs, the CLI and the
// loader name files read from disk with plain paths.

package document

import (
	"net/url"
	"path/filepath"
	"strings"
)

// FilePath is the local path that a file's name stands for: a file: URI's
// path with its escapes decoded (%20, non-ASCII), a drive letter in
// lower case without the slash before it (file:///C:/x is c:/x, as VS
// Code and go.lsp.dev/uri read it) and a host as a UNC share
// (//host/share/x); a name with no scheme (a path) as it is. A URI of
// another scheme (untitled:, vscode-vfs://…) names no local file and is
// returned as it is.
func FilePath(name string) string {
	scheme, ok := uriScheme(name)
	if !ok || !strings.EqualFold(scheme, "file") {
		return name
	}
	u, err := url.Parse(name)
	if err != nil {
		// Bad escapes (%zz): the path as written.
		return filepath.FromSlash(strings.TrimPrefix(name[len(scheme)+1:], "//"))
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && isLetter(p[1]) && p[2] == ':' {
		p = strings.ToLower(p[1:2]) + p[2:]
	} else if u.Host != "" && u.Host != "localhost" {
		p = "//" + u.Host + p
	}
	return filepath.FromSlash(p)
}

// IsURI says whether a file's name is a URI (a scheme of two letters or
// more, then ':') rather than a path: c:\x and c:/x are Windows paths.
func IsURI(name string) bool {
	_, ok := uriScheme(name)
	return ok
}

// uriScheme is the scheme of a URI (RFC 3986: a letter, then letters,
// digits, '+', '-' or '.'), of two characters or more.
func uriScheme(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isLetter(c):
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i >= 2:
			return name[:i], true
		default:
			return "", false
		}
	}
	return "", false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
