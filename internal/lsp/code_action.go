// This file defines textDocument/codeAction (quick fixes).

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
)

func (s *server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	f, store, set, enc, _ := s.snapshot(params.TextDocument.URI)
	out := []protocol.CommandOrCodeAction{}
	if f == nil {
		return out, nil
	}
	r := params.Range
	sp, err := f.Mapper.Span(document.Range{
		Start: document.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
		End:   document.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
	}, enc)
	if err != nil {
		return out, nil
	}
	env := analysis.Env{Schemas: store, CrossplaneMajor: s.crossplaneMajor(), ClientKinds: set.Validation.ClientKinds}
	if sev, ok := analysis.ParseSeverity(set.Validation.UnknownKind); ok {
		env.UnknownKind = sev
	}
	kind := protocol.CodeActionKindQuickFix
	for _, fix := range analysis.QuickFixes(ctx, f, sp, env) {
		var edits []protocol.TextEdit
		for _, e := range fix.Edits {
			edits = append(edits, protocol.TextEdit{Range: toProtocolRange(f, e.Span, enc), NewText: e.NewText})
		}
		preferred := fix.Preferred
		out = append(out, &protocol.CodeAction{
			Title:       fix.Title,
			Kind:        &kind,
			Diagnostics: []protocol.Diagnostic{toProtocolDiagnostic(f, fix.Diagnosis, enc)},
			IsPreferred: &preferred,
			Edit:        &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{params.TextDocument.URI: edits}},
		})
	}
	return out, nil
}
