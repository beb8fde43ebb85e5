// This file defines textDocument/hover.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
)

func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	sn, off, ok := s.snapshotAt(params.TextDocument.URI, params.Position)
	if !ok {
		return nil, nil
	}
	f, enc := sn.file, sn.enc
	var h *analysis.HoverResult
	if packages.IsMetaFile(sn.path()) {
		var results []packages.Result
		if sn.world != nil {
			results = sn.world.Results(sn.path())
		}
		h = analysis.DependencyHover(loader.Dependencies(sn.meta(), results), sn.refreshed, off)
	}
	if h == nil {
		h = analysis.Hover(ctx, f, off, sn.env())
	}
	if h == nil {
		return nil, nil
	}
	r := toProtocolRange(f, h.Span, enc)
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown},
		Range:    &r,
	}, nil
}
