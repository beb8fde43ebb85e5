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
	locs := analysis.Definition(ctx, f, off, sn.env(), s.readFile)
	out := protocol.LocationSlice{}
	for _, l := range locs {
		out = append(out, protocol.Location{URI: s.locationURI(l.File), Range: toProtocolRange(l.File, l.Span, enc)})
	}
	return out, nil
}

// readFile returns an open buffer's text, else the file on disk; a
// package's pseudo path (xpkg://…) reads its package.yaml in the cache.
func (s *server) readFile(path string) ([]byte, error) {
	if file, ok := s.packageFile(path); ok {
		return os.ReadFile(file)
	}
	s.mu.Lock()
	f, ok := s.open[uri.File(path)]
	limit := s.settings.MaxFileSize
	s.mu.Unlock()
	if ok {
		if hit, skipped := f.NotParsed(); skipped {
			return nil, fmt.Errorf("%s is open but not analysed (%d over the limit of %d)", path, hit.Have, hit.Limit)
		}
		return f.Text, nil
	}
	return workspace.ReadFile(path, limit)
}

// locationURI is the URI an editor opens for a location in f: its buffer,
// its file, or for a package's definitions the cached package.yaml.
func (s *server) locationURI(f *document.File) uri.URI {
	if file, ok := s.packageFile(f.URI); ok {
		return uri.File(file)
	}
	return fileURI(f)
}
