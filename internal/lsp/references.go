// This file defines textDocument/references.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

// References lists where a Composition patchSet is used.
func (s *server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	f, off, store, enc := s.at(params.TextDocument.URI, params.Position)
	out := []protocol.Location{}
	if f == nil {
		return out, nil
	}
	for _, l := range analysis.References(ctx, f, off, analysis.Env{Schemas: store}, params.Context.IncludeDeclaration) {
		out = append(out, protocol.Location{URI: s.locationURI(l.File), Range: toProtocolRange(l.File, l.Span, enc)})
	}
	return out, nil
}
