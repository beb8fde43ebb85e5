// This file converts between analysis results (byte spans) and LSP types.
// All position arithmetic goes through document.Mapper.

package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

func toProtocolRange(f *document.File, sp document.Span, enc document.Encoding) protocol.Range {
	r, err := f.Mapper.Range(sp, enc)
	if err != nil {
		// Spans come from the same text, so this is a bug; degrade to the
		// start of the file rather than dropping the result.
		return protocol.Range{}
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

func toProtocolDiagnostic(f *document.File, d analysis.Diagnostic, enc document.Encoding) protocol.Diagnostic {
	out := protocol.Diagnostic{
		Range:    toProtocolRange(f, d.Span, enc),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Source:   protocol.NewOptional("crd-lsp"),
		Message:  protocol.String(d.Message),
	}
	if d.Code != "" {
		out.Code = protocol.String(d.Code)
	}
	return out
}

// at returns the snapshot of u and the byte offset of pos in it; f is nil
// when u is not open or pos lies outside its text.
func (s *server) at(u uri.URI, pos protocol.Position) (f *document.File, off int, store *schemas.Store, enc document.Encoding) {
	f, store, _, enc, _ = s.snapshot(u)
	if f == nil {
		return nil, 0, store, enc
	}
	off, err := f.Mapper.Offset(document.Position{Line: int(pos.Line), Character: int(pos.Character)}, enc)
	if err != nil {
		return nil, 0, store, enc
	}
	return f, off, store, enc
}

// fileURI is the URI of a parsed file: open buffers are parsed under their
// URI, files read from disk under their path.
func fileURI(f *document.File) uri.URI {
	if strings.Contains(f.URI, "://") {
		return uri.URI(f.URI)
	}
	return uri.File(f.URI)
}
