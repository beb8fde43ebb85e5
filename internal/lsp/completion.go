// This file defines textDocument/completion.

package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

func (s *server) Completion(ctx context.Context, params *protocol.CompletionParams) (protocol.CompletionResult, error) {
	sn, off, ok := s.snapshotAt(params.TextDocument.URI, params.Position)
	if !ok {
		return protocol.CompletionItemSlice{}, nil
	}
	f, enc := sn.file, sn.enc
	items := analysis.Complete(ctx, f, off, sn.env())
	snippets := sn.caps.snippets
	out := make(protocol.CompletionItemSlice, 0, len(items))
	for _, c := range items {
		kind := protocol.CompletionItemKindField
		switch c.Kind {
		case analysis.CompleteValue:
			kind = protocol.CompletionItemKindValue
		case analysis.CompleteKind:
			kind = protocol.CompletionItemKindClass
		case analysis.CompleteAPIVersion:
			kind = protocol.CompletionItemKindModule
		}
		text := c.InsertText
		item := protocol.CompletionItem{
			Label:    c.Label,
			Kind:     kind,
			SortText: protocol.NewOptional(c.SortText),
		}
		if snippets && c.Kind == analysis.CompleteField {
			// Put the cursor where the value goes.
			text = snippetEscape(text) + "$0"
			item.InsertTextFormat = protocol.InsertTextFormatSnippet
		}
		item.TextEdit = &protocol.TextEdit{Range: toProtocolRange(f, c.Replace, enc), NewText: text}
		if c.Detail != "" {
			item.Detail = protocol.NewOptional(c.Detail)
		}
		if c.Documentation != "" {
			item.Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: c.Documentation}
		}
		out = append(out, item)
	}
	return out, nil
}

// snippetEscape quotes the characters snippet syntax gives meaning to.
func snippetEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`).Replace(s)
}
