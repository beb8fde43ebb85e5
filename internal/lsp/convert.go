// This file converts between analysis results (byte spans) and LSP types.
// All position arithmetic goes through document.Mapper.

package lsp

import (
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fileuri"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/severity"
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
		Message:  protocol.String(diagnosticText(d.Message)),
	}
	if d.Code != "" {
		out.Code = protocol.String(d.Code)
	}
	if d.Replace != "" || d.Missing != "" || d.Path != "" {
		if b, err := json.Marshal(fixData{Replace: d.Replace, Missing: d.Missing, Field: d.Path}); err == nil {
			out.Data = b
		}
	}
	return out
}

// fromProtocolRange is the byte span of an LSP range in f.
func fromProtocolRange(f *document.File, r protocol.Range, enc document.Encoding) (document.Span, error) {
	return f.Mapper.Span(document.Range{
		Start: document.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
		End:   document.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
	}, enc)
}

// fixData is what a published diagnostic carries for its quick fix, as
// LSP 3.16 data that the client sends back with textDocument/codeAction,
// and the field path the finding concerns (spec.listeners[2].port).
type fixData struct {
	Replace string `json:"replace,omitempty"`
	Missing string `json:"missing,omitempty"`
	Field   string `json:"field,omitempty"`
}

// fromProtocolDiagnostic reads back a diagnostic crd-lsp published for f
// (false for another source's, or one outside f's text).
func fromProtocolDiagnostic(f *document.File, pd protocol.Diagnostic, enc document.Encoding) (analysis.Diagnostic, bool) {
	if src, ok := pd.Source.Get(); !ok || src != "crd-lsp" {
		return analysis.Diagnostic{}, false
	}
	sp, err := fromProtocolRange(f, pd.Range, enc)
	if err != nil {
		return analysis.Diagnostic{}, false
	}
	d := analysis.Diagnostic{Span: sp, Severity: severity.Severity(pd.Severity), Code: unionText(pd.Code), Message: unionText(pd.Message)}
	var data fixData
	if len(pd.Data) > 0 && json.Unmarshal(pd.Data, &data) == nil {
		d.Replace, d.Missing, d.Path = data.Replace, data.Missing, data.Field
	}
	return d, true
}

// unionText is the text of a string-or-something union value.
func unionText(v any) string {
	switch v := v.(type) {
	case protocol.String:
		return string(v)
	case *protocol.String:
		if v != nil {
			return string(*v)
		}
	case *protocol.MarkupContent:
		if v != nil {
			return v.Value
		}
	}
	return ""
}

// snapshotAt returns the snapshot of u and the byte offset of pos in it; ok is
// false when u is not open or pos lies outside its text.
func (s *server) snapshotAt(u uri.URI, pos protocol.Position) (sn snapshot, off int, ok bool) {
	sn = s.snapshot(u)
	if sn.file == nil {
		return sn, 0, false
	}
	off, err := sn.file.Mapper.Offset(document.Position{Line: int(pos.Line), Character: int(pos.Character)}, sn.enc)
	if err != nil {
		return sn, 0, false
	}
	return sn, off, true
}

// fileURI is the URI of a parsed file: open buffers are parsed under their
// URI, files read from disk under their path.
func fileURI(f *document.File) uri.URI {
	if document.IsURI(f.URI) {
		return uri.URI(f.URI)
	}
	return pathURI(f.URI)
}

// pathURI is the URI the server sends for a local path: internal/fileuri's
// one conversion (VS Code's form: file:///c%3A/… on Windows).
func pathURI(p string) uri.URI { return uri.URI(fileuri.URI(p)) }

// openAt is the open buffer of a local path and the URI the client opened
// it under, whichever form of a file's URI that client writes
// (file:///C:/x and file:///c%3A/x name one file on Windows).
func openAt(open map[uri.URI]*document.File, path string) (uri.URI, *document.File, bool) {
	u := pathURI(path)
	if f, ok := open[u]; ok {
		return u, f, true
	}
	for u, f := range open {
		if filePath(u) == path {
			return u, f, true
		}
	}
	return "", nil, false
}

// diagnosticText is a diagnostic's message as the client gets it: control
// characters of the text it quotes (file names, function results) are
// escaped (\x1b, \r); newlines are kept, as messages may have several
// lines.
func diagnosticText(msg string) string { return functions.Escape(msg, true) }
