// This file holds the LSP layer's limits and how they are reported.

package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// limitHint names the setting that raises a size limit err hit ("" for
// other errors).
func limitHint(err error, setting string) string {
	if fe, ok := workspace.IsFileError(err); ok && fe.TooLarge {
		return " (raise crdLsp." + setting + " to read it)"
	}
	return ""
}

// documentLimits are the limits of the open documents crd-lsp analyses
// (crdLsp.maxFileSize, crdLsp.maxDocuments).
func (set Settings) documentLimits() document.Limits {
	return document.Limits{MaxBytes: int(min(set.MaxFileSize, 1<<40)), MaxDocuments: set.MaxDocuments}
}

// parseBuffer parses an open document's text within the limits, reusing
// the documents of its previous version (prev, or nil).
func (s *server) parseBuffer(u string, version int32, text []byte, prev *document.File) *document.File {
	s.mu.Lock()
	lim := s.settings.documentLimits()
	s.mu.Unlock()
	return document.ParseWithin(u, version, text, lim, prev)
}

// bufferText is the text of an open document for what reads it besides its
// own analysis (schemas, example objects): none when it was not analysed.
func bufferText(f *document.File) []byte {
	if _, skipped := f.NotParsed(); skipped {
		return nil
	}
	return f.Text
}

// notAnalysed is the one diagnostic of an open document over the limits,
// at its start.
func notAnalysed(hit document.LimitHit) analysis.Diagnostic {
	msg := fmt.Sprintf("crd-lsp did not analyse this file: it is %s, over the %s limit (raise crdLsp.maxFileSize to analyse it)",
		workspace.Size(int64(hit.Have)), workspace.Size(int64(hit.Limit)))
	if hit.Message {
		msg = fmt.Sprintf("crd-lsp did not analyse this file: the editor sent it in a message of %s, over the %s limit of one message; close it, and reopen it once it is smaller",
			workspace.Size(int64(hit.Have)), workspace.Size(int64(hit.Limit)))
	}
	if hit.Documents {
		msg = fmt.Sprintf("crd-lsp did not analyse this file: it holds %d YAML documents, over the limit of %d (raise crdLsp.maxDocuments to analyse it)", hit.Have, hit.Limit)
	}
	return analysis.Diagnostic{Severity: severity.Warning, Code: "file-too-large", Message: msg}
}

// reparseOpen parses the open documents again after the limits changed
// (documents already parsed are reused, so this is cheap for them).
func (s *server) reparseOpen(ctx context.Context) {
	s.mu.Lock()
	lim := s.settings.documentLimits()
	open := make(map[uri.URI]*document.File, len(s.open))
	for u, f := range s.open {
		open[u] = f
	}
	s.mu.Unlock()
	for u, f := range open {
		if ctx.Err() != nil {
			return
		}
		nf := document.ParseWithin(f.URI, f.Version, f.Text, lim, f)
		s.mu.Lock()
		if s.open[u] == f {
			s.setOpenLocked(u, nf)
			s.syncBufferLocked(u, bufferText(nf))
		}
		s.mu.Unlock()
	}
	s.diag.scheduleAll()
}
