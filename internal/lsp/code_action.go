// This file defines textDocument/codeAction (quick fixes).

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
)

// CodeAction offers the quick fixes of crd-lsp's diagnostics in the range:
// those the client sent, as published (the fix comes from the data each
// carries, or for a client that drops data from the finding published
// with the same range, code and message), else those published for the
// range. A version whose findings are not published yet is diagnosed
// with the snapshot its diagnosis reads.
func (s *server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	u := params.TextDocument.URI
	sn := s.snapshot(u)
	f, enc := sn.file, sn.enc
	out := []protocol.CommandOrCodeAction{}
	if f == nil {
		return out, nil
	}
	sp, err := fromProtocolRange(f, params.Range, enc)
	if err != nil {
		return out, nil
	}
	published, ok := s.diag.publishedFor(u, f)
	if !ok {
		// Asked before this version's findings were published: find them
		// now, as the diagnosis will (the same snapshot and Env, less the
		// function pipeline: a code action never waits for a function).
		published = analysis.Diagnose(ctx, f, sn.env())
	}
	var diags []analysis.Diagnostic
	sent := map[analysis.Diagnostic]protocol.Diagnostic{}
	for _, pd := range params.Context.Diagnostics {
		d, ok := fromProtocolDiagnostic(f, pd, enc)
		if !ok {
			continue
		}
		if len(pd.Data) == 0 {
			for _, p := range published {
				if p.Span == d.Span && p.Code == d.Code && p.Message == d.Message {
					d.Replace, d.Missing, d.Path = p.Replace, p.Missing, p.Path
					break
				}
			}
		}
		diags = append(diags, d)
		sent[d] = pd
	}
	if len(diags) == 0 {
		diags = published
	}
	kind := protocol.CodeActionKindQuickFix
	for _, fix := range analysis.QuickFixes(f, sp, diags, sn.env()) {
		var edits []protocol.TextEdit
		for _, e := range fix.Edits {
			edits = append(edits, protocol.TextEdit{Range: toProtocolRange(f, e.Span, enc), NewText: e.NewText})
		}
		pd, ok := sent[fix.Fixes]
		if !ok {
			pd = toProtocolDiagnostic(f, fix.Fixes, enc)
		}
		preferred := fix.Preferred
		out = append(out, &protocol.CodeAction{
			Title:       printable(fix.Title),
			Kind:        &kind,
			Diagnostics: []protocol.Diagnostic{pd},
			IsPreferred: &preferred,
			Edit:        &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{u: edits}},
		})
	}
	return out, nil
}
