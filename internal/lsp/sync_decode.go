// This file decodes the two messages that carry whole documents —
// didOpen and didChange — with encoding/json: protocol's decoder takes
// about six times a document's size in memory, encoding/json about two.

package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

type wirePosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// syncMessage handles didOpen, didChange and the stream's
// methodOverLimit; handled is false for other methods, and for params
// encoding/json cannot read (protocol's dispatcher then says what is
// wrong).
func (s *server) syncMessage(ctx context.Context, method string, params []byte) (handled bool, err error) {
	switch method {
	case protocol.MethodTextDocumentDidOpen:
		var p struct {
			TextDocument struct {
				URI        uri.URI `json:"uri"`
				LanguageID string  `json:"languageId"`
				Version    int32   `json:"version"`
				Text       string  `json:"text"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(params, &p) != nil {
			return false, nil
		}
		td := p.TextDocument
		return true, s.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: td.URI, LanguageID: protocol.LanguageKind(td.LanguageID), Version: td.Version, Text: td.Text}})
	case protocol.MethodTextDocumentDidChange:
		var p struct {
			TextDocument struct {
				URI     uri.URI `json:"uri"`
				Version int32   `json:"version"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Range *struct {
					Start wirePosition `json:"start"`
					End   wirePosition `json:"end"`
				} `json:"range"`
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		if json.Unmarshal(params, &p) != nil {
			return false, nil
		}
		out := &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: p.TextDocument.URI}, Version: p.TextDocument.Version}}
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				out.ContentChanges = append(out.ContentChanges, &protocol.TextDocumentContentChangeWholeDocument{Text: c.Text})
				continue
			}
			r := protocol.Range{
				Start: protocol.Position{Line: c.Range.Start.Line, Character: c.Range.Start.Character},
				End:   protocol.Position{Line: c.Range.End.Line, Character: c.Range.End.Character},
			}
			out.ContentChanges = append(out.ContentChanges, &protocol.TextDocumentContentChangePartial{Range: r, Text: c.Text})
		}
		return true, s.DidChange(ctx, out)
	case methodOverLimit:
		var p overLimitParams
		if json.Unmarshal(params, &p) != nil || p.URI == "" {
			return true, nil
		}
		u := uri.URI(p.URI)
		if !analysed(u) {
			return true, nil
		}
		f := document.Skipped(p.URI, p.Version, document.LimitHit{Message: true, Have: int(p.Bytes), Limit: int(p.Limit)})
		s.mu.Lock()
		s.setOpenLocked(u, f)
		schemaChanged := s.syncBufferLocked(u, nil)
		s.mu.Unlock()
		s.afterChange(u, schemaChanged)
		return true, nil
	}
	return false, nil
}
