// Package fileuri is the one conversion between file: URIs and local paths,
// both ways, for every front end: editors name buffers and folders with
// URIs, crd-lsp reads the disk with paths, and every URI it sends back (a
// diagnostic's, a definition's, a SARIF artifact's) is made from a path.
//
// The rules are VS Code's (vscode-uri's URI.file and fsPath, as
// go.lsp.dev/uri implements them for either platform), because VS Code is
// what most clients copy:
//   - Windows: C:\Users\me\a.yaml is file:///c%3A/Users/me/a.yaml (drive
//     letter lower-cased, its colon escaped, backslashes as slashes), and
//     file:///C:/Users/me/a.yaml, file:///c:/… and file:///c%3A/… all read
//     back as c:\Users\me\a.yaml; a UNC path \\server\share\x is
//     file://server/share/x, and back.
//   - Unix: /home/me/a b.yaml is file:///home/me/a%20b.yaml; every byte
//     but A–Z a–z 0–9 - . _ ~ and / is percent-escaped (UTF-8 for
//     non-ASCII), and unescaped on the way back.
//   - file://localhost/x is /x (RFC 8089), never a share named localhost.
//
// The conversion is pure string logic parameterised by the OS, so the
// Windows rules are tested on every system; Path and URI apply this
// machine's.
// Invariant: leaf package (go.lsp.dev/uri aside); no IO.
package fileuri

import (
	"runtime"
	"strings"

	"go.lsp.dev/uri"
)

// OS is the path convention a conversion follows.
type OS uint8

const (
	// Unix: slash-separated paths (Linux, macOS).
	Unix OS = iota
	// Windows: drive letters, backslashes, UNC shares.
	Windows
)

// Host is this machine's convention.
func Host() OS {
	if runtime.GOOS == "windows" {
		return Windows
	}
	return Unix
}

func (o OS) platform() uri.Platform {
	if o == Windows {
		return uri.PlatformWindows
	}
	return uri.PlatformPOSIX
}

// Path is the local path a file: URI names on this machine; a name that
// is not a file: URI (a path, untitled:, another scheme) is returned as
// it is.
func Path(name string) string {
	if p, ok := ToPath(name, Host()); ok {
		return p
	}
	return name
}

// URI is the file: URI of a local path of this machine.
func URI(path string) string { return FromPath(path, Host()) }

// IsFile says whether name is a file: URI (the scheme in any case).
func IsFile(name string) bool {
	scheme, ok := Scheme(name)
	return ok && strings.EqualFold(scheme, "file")
}

// ToPath is the path a file: URI names under os's conventions; ok is
// false when name is not a file: URI. Escapes that decode to nothing
// valid (%zz, a lone %C3) are kept as written.
func ToPath(name string, os OS) (string, bool) {
	if !IsFile(name) {
		return "", false
	}
	rest := name[len("file:"):]
	// file://localhost/x names /x on this machine (RFC 8089 §2).
	if len(rest) >= len("//localhost") && strings.EqualFold(rest[:len("//localhost")], "//localhost") &&
		(len(rest) == len("//localhost") || strings.ContainsRune("/?#", rune(rest[len("//localhost")]))) {
		rest = "//" + rest[len("//localhost"):]
	}
	u, err := uri.Parse("file:" + rest)
	if err != nil {
		// Not a URI vscode-uri accepts: the path as written.
		p := strings.TrimPrefix(rest, "//")
		if os == Windows {
			p = strings.ReplaceAll(p, "/", `\`)
		}
		return p, true
	}
	return uri.FsPathFor(u, os.platform(), false), true
}

// FromPath is the file: URI of an absolute path under os's conventions.
func FromPath(path string, os OS) string {
	return string(uri.FileFor(os.platform(), path))
}

// Scheme is a URI's scheme (RFC 3986: a letter, then letters, digits,
// '+', '-' or '.'), of two characters or more, so that c:\x and c:/x are
// Windows paths, not URIs; ok is false for a name without one.
func Scheme(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i >= 2:
			return name[:i], true
		default:
			return "", false
		}
	}
	return "", false
}
