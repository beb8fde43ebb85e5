// This file holds what a File's name (File.URI) stands for on disk:
// editors name their buffers with URIs, the CLI and the loader name files
// read from disk with plain paths. The conversion itself is
// internal/fileuri's, the one for every front end.

package document

import "github.com/crd-lsp/crd-lsp/internal/fileuri"

// FilePath is the local path that a file's name stands for: a file: URI
// read by fileuri.Path (escapes decoded, drive letters and UNC shares as
// VS Code reads them on this machine); a name with no scheme (a path) as
// it is. A URI of another scheme (untitled:, vscode-vfs://…) names no
// local file and is returned as it is.
func FilePath(name string) string { return fileuri.Path(name) }

// IsURI says whether a file's name is a URI (a scheme of two letters or
// more, then ':') rather than a path: c:\x and c:/x are Windows paths.
func IsURI(name string) bool {
	_, ok := fileuri.Scheme(name)
	return ok
}
