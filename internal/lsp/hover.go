// This file defines textDocument/hover.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	sn, off, ok := s.snapshotAt(params.TextDocument.URI, params.Position)
	if !ok {
		return nil, nil
	}
	f, enc := sn.file, sn.enc
	if md, span, ok := s.packageHover(sn, off); ok {
		r := toProtocolRange(f, span, enc)
		return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}, Range: &r}, nil
	}
	h := analysis.Hover(ctx, f, off, sn.env())
	if h == nil {
		return nil, nil
	}
	r := toProtocolRange(f, h.Span, enc)
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown},
		Range:    &r,
	}, nil
}
