// This file defines textDocument/hover.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
)

func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	f, store, _, enc, _ := s.snapshot(params.TextDocument.URI)
	if f == nil {
		return nil, nil
	}
	off, err := f.Mapper.Offset(document.Position{Line: int(params.Position.Line), Character: int(params.Position.Character)}, enc)
	if err != nil {
		return nil, nil // a position outside the text: nothing to show
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
