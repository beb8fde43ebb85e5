// This file defines textDocument/documentSymbol.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
)

func (s *server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	sn := s.snapshot(params.TextDocument.URI)
	f, enc := sn.file, sn.enc
	if f == nil {
		return protocol.DocumentSymbolSlice{}, nil
	}
	out := protocol.DocumentSymbolSlice{}
	for _, sym := range analysis.Symbols(f) {
		out = append(out, toDocumentSymbol(f, sym, enc))
	}
	return out, nil
}

func toDocumentSymbol(f *document.File, sym analysis.Symbol, enc document.Encoding) protocol.DocumentSymbol {
	kind := protocol.SymbolKindField
	if sym.Object {
		kind = protocol.SymbolKindObject
	}
	out := protocol.DocumentSymbol{
		Name:           sym.Name,
		Kind:           kind,
		Range:          toProtocolRange(f, sym.Span, enc),
		SelectionRange: toProtocolRange(f, sym.Selection, enc),
	}
	if sym.Detail != "" {
		d := sym.Detail
		out.Detail = &d
	}
	for _, c := range sym.Children {
		out.Children = append(out.Children, toDocumentSymbol(f, c, enc))
	}
	return out
}
