// This file defines textDocument/hover.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	f, off, store, enc := s.at(params.TextDocument.URI, params.Position)
	if f == nil {
		return nil, nil
	}
	if md, span, ok := s.packageHover(f, off); ok {
		r := toProtocolRange(f, span, enc)
		return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}, Range: &r}, nil
	}
	h := analysis.Hover(ctx, f, off, analysis.Env{Schemas: store, CrossplaneMajor: s.crossplaneMajor()})
	if h == nil {
		return nil, nil
	}
	r := toProtocolRange(f, h.Span, enc)
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown},
		Range:    &r,
	}, nil
}
