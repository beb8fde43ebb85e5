// This file defines the document synchronisation notifications.

package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// analysed reports whether a document is one crd-lsp analyses: a file or
// an untitled buffer. Other schemes are views of something else (crd-lsp's
// own rendered previews, crd-lsp-preview:, a diff's git: side, an
// extension's virtual document): diagnosing them would list their findings
// as if they were files of their own.
func analysed(u uri.URI) bool {
	scheme, _, _ := strings.Cut(string(u), ":")
	switch strings.ToLower(scheme) {
	case "file", "untitled":
		return true
	}
	return false
}

func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	if !analysed(td.URI) {
		return nil
	}
	f := s.parseBuffer(string(td.URI), td.Version, []byte(td.Text), nil)
	s.mu.Lock()
	s.setOpenLocked(td.URI, f)
	schemaChanged := s.syncBufferLocked(td.URI, bufferText(f))
	s.mu.Unlock()
	s.afterChange(td.URI, schemaChanged)
	return nil
}

func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	td := params.TextDocument
	if !analysed(td.URI) {
		return nil
	}
	s.mu.Lock()
	old, ok := s.open[td.URI]
	enc := s.enc
	s.mu.Unlock()
	if !ok {
		s.log.Warn("didChange for a document that is not open", "uri", td.URI)
		return nil
	}
	if td.Version <= old.Version {
		s.log.Warn("didChange with a version that is not newer; ignored", "uri", td.URI, "have", old.Version, "got", td.Version)
		return nil
	}
	changes := make([]document.Change, 0, len(params.ContentChanges))
	for _, c := range params.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			r := document.Range{
				Start: document.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)},
				End:   document.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)},
			}
			changes = append(changes, document.Change{Range: &r, Text: c.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, document.Change{Text: c.Text})
		}
	}
	text, err := document.ApplyChanges(old.Text, changes, enc)
	if err != nil {
		// The client and server disagree about the text; there is no way
		// to recover a correct buffer, so say so loudly.
		s.log.Error("cannot apply didChange; document is out of sync", "uri", td.URI, "error", err)
		s.showMessage(protocol.MessageTypeError, "crd-lsp: lost track of "+string(td.URI)+" ("+err.Error()+"); close and reopen the file")
		return nil
	}
	s.diag.holds.noteEdit(td.URI, td.Version, changes)
	f := s.parseBuffer(string(td.URI), td.Version, text, old)
	s.mu.Lock()
	if cur, ok := s.open[td.URI]; !ok || cur != old {
		s.mu.Unlock()
		return nil // closed or changed meanwhile (cannot happen: sync methods are ordered)
	}
	s.setOpenLocked(td.URI, f)
	schemaChanged := s.syncBufferLocked(td.URI, bufferText(f))
	s.mu.Unlock()
	s.afterChange(td.URI, schemaChanged)
	return nil
}

func (s *server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	// The buffer already is the truth for analysis; a saved crossplane.yaml
	// may change the targeted Crossplane version and the dependencies.
	if packages.IsMetaFile(filePath(params.TextDocument.URI)) {
		s.mu.Lock()
		s.sourcesDueLocked(loader.MetaChanged)
		s.mu.Unlock()
	}
	return nil
}

func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	u := params.TextDocument.URI
	if !analysed(u) {
		return nil
	}
	s.mu.Lock()
	s.setOpenLocked(u, nil)
	p := filePath(u)
	inWorkspace := p != "" && s.inWorkspaceLocked(p)
	limit := s.settings.Schemas.MaxFileSize
	s.mu.Unlock()
	// The disk copy takes over again (none for a file outside the
	// workspace); it is read as the scan reads it, without holding the
	// session.
	var content []byte
	if inWorkspace {
		if b, err := workspace.ReadFile(p, limit); err == nil {
			content = b
		}
	}
	s.mu.Lock()
	schemaChanged := false
	if _, reopened := s.open[u]; !reopened {
		schemaChanged = s.syncBufferLocked(u, content)
	}
	s.mu.Unlock()
	s.diag.forget(u)
	if schemaChanged {
		s.diag.scheduleAll()
	}
	return nil
}

// afterChange schedules diagnostics for u, or for every open file when the
// change altered the schemas others depend on.
func (s *server) afterChange(u uri.URI, schemaChanged bool) {
	if schemaChanged {
		s.diag.scheduleAll()
		return
	}
	s.diag.schedule(u)
}

// syncBufferLocked puts an open buffer's text (nil: none) in the world in
// place of its disk copy: its CRDs and XRDs, its package metadata, its
// objects. It reports whether the schemas (or Functions) others see
// changed. Before the
// workspace is loaded there is nothing to update: the load takes the open
// buffers in.
func (s *server) syncBufferLocked(u uri.URI, text []byte) bool {
	p := filePath(u)
	if p == "" || !workspace.IsYAML(p) || s.world == nil {
		s.changedLocked()
		return false
	}
	before := s.world
	s.commitLocked(commit{world: before.WithFile(p, text)})
	if s.world.SchemaGen() != before.SchemaGen() || s.world.KindsChanged(before, p) {
		s.sourcesDueLocked(loader.KindsChanged)
	}
	// A Function object changed: Compositions run other functions now.
	return s.world.SchemaGen() != before.SchemaGen() || functionsChanged(before, s.world)
}

func (s *server) inWorkspaceLocked(p string) bool {
	for _, f := range s.folders {
		if workspace.IsUnder(f.path, p) {
			return true
		}
	}
	return false
}

func (s *server) showMessage(t protocol.MessageType, msg string) {
	msg = printable(msg)
	go func() {
		_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: t, Message: msg})
	}()
}

// logMessage writes to the client's log (the editor's output panel).
func (s *server) logMessage(t protocol.MessageType, msg string) {
	msg = printable(msg)
	go func() {
		_ = s.client.LogMessage(s.ctx, &protocol.LogMessageParams{Type: t, Message: "crd-lsp: " + msg})
	}()
}

// printable is text for window/showMessage, window/logMessage and
// progress messages, which quote what the server did not write (file
// names, settings, registry and function text): control characters,
// newlines included, are escaped (\x1b, \n) as check's text output
// escapes them, so no message recolours the editor's output panel or
// forges a line.
func printable(msg string) string { return functions.Escape(msg, false) }
