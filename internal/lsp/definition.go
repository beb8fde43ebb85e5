// This file defines textDocument/definition.

package lsp

import (
	"context"
	"fmt"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

func (s *server) Definition(ctx context.Context, params *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	sn, off, ok := s.snapshotAt(params.TextDocument.URI, params.Position)
	if !ok {
		return protocol.LocationSlice{}, nil
	}
	f, enc := sn.file, sn.enc
	locs := analysis.Definition(ctx, f, off, sn.env(), sn.readFile)
	out := protocol.LocationSlice{}
	for _, l := range locs {
		out = append(out, protocol.Location{URI: sn.locationURI(l.File), Range: toProtocolRange(l.File, l.Span, enc)})
	}
	return out, nil
}

// readFile returns an open buffer's text, else the file on disk (within
// crdLsp.maxFileSize); a package's pseudo path (xpkg://…) reads its
// package.yaml in the cache. All as of the snapshot.
func (sn snapshot) readFile(path string) ([]byte, error) {
	if file, ok := packageFile(sn.world, path); ok {
		return os.ReadFile(file)
	}
	if _, f, ok := openAt(sn.open, path); ok {
		if hit, skipped := f.NotParsed(); skipped {
			return nil, fmt.Errorf("%s is open but not analysed (%d over the limit of %d)", path, hit.Have, hit.Limit)
		}
		return f.Text, nil
	}
	return workspace.ReadFile(path, sn.settings.MaxFileSize)
}

// locationURI is the URI an editor opens for a location in f: its buffer,
// its file, or for a package's definitions the cached package.yaml.
func (sn snapshot) locationURI(f *document.File) uri.URI {
	if file, ok := packageFile(sn.world, f.URI); ok {
		return pathURI(file)
	}
	return fileURI(f)
}
