// This file defines textDocument/references.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

// References lists where a Composition patchSet is used.
func (s *server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	sn, off, ok := s.snapshotAt(params.TextDocument.URI, params.Position)
	out := []protocol.Location{}
	if !ok {
		return out, nil
	}
	for _, l := range analysis.References(ctx, sn.file, off, sn.env(), params.Context.IncludeDeclaration) {
		out = append(out, protocol.Location{URI: sn.locationURI(l.File), Range: toProtocolRange(l.File, l.Span, sn.enc)})
	}
	return out, nil
}
