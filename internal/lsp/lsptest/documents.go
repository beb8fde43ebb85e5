// This file holds what the editor does to documents and files: open,
// change, save, close, files written on disk, settings.

package lsptest

import (
	"encoding/json"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/fileuri"
)

// Path resolves p: absolute paths stay, relative ones are relative to
// Config.Dir (to the working directory when there is none).
func (e *Editor) Path(p string) string {
	if filepath.IsAbs(p) || e.cfg.Dir == "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			e.t.Fatal(err)
		}
		return abs
	}
	return filepath.Join(e.cfg.Dir, p)
}

// URI of a path (see Path).
func (e *Editor) URI(p string) uri.URI { return uri.URI(fileuri.URI(e.Path(p))) }

func docID(u uri.URI) protocol.TextDocumentIdentifier { return protocol.TextDocumentIdentifier{URI: u} }

// Open sends didOpen (languageId yaml, version 1) and returns the URI.
func (e *Editor) Open(path, text string) string {
	e.t.Helper()
	u := e.URI(path)
	e.mu.Lock()
	e.versions[u] = 1
	e.mu.Unlock()
	ctx, cancel := e.reqCtx()
	defer cancel()
	err := e.server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "yaml", Version: 1, Text: text}})
	if err != nil {
		e.t.Fatalf("didOpen %s: %v", path, err)
	}
	return string(u)
}

func (e *Editor) nextVersion(u uri.URI) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.versions[u]++
	return e.versions[u]
}

// Version is the document's current version (0 if never opened).
func (e *Editor) Version(path string) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.versions[e.URI(path)]
}

// Change replaces the whole text (full sync) as the next version.
func (e *Editor) Change(path, text string) {
	e.t.Helper()
	e.didChange(path, &protocol.TextDocumentContentChangeWholeDocument{Text: text})
}

// Edit sends incremental changes, applied in order, as the next version.
func (e *Editor) Edit(path string, edits ...Edit) {
	e.t.Helper()
	changes := make([]protocol.TextDocumentContentChangeEvent, 0, len(edits))
	for _, ed := range edits {
		changes = append(changes, &protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(ed.StartLine), Character: uint32(ed.StartChar)},
				End:   protocol.Position{Line: uint32(ed.EndLine), Character: uint32(ed.EndChar)},
			},
			Text: ed.Text,
		})
	}
	e.didChange(path, changes...)
}

func (e *Editor) didChange(path string, changes ...protocol.TextDocumentContentChangeEvent) {
	e.t.Helper()
	u := e.URI(path)
	v := e.nextVersion(u)
	ctx, cancel := e.reqCtx()
	defer cancel()
	err := e.server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: docID(u), Version: v},
		ContentChanges: changes,
	})
	if err != nil {
		e.t.Fatalf("didChange %s: %v", path, err)
	}
}

// Save sends didSave.
func (e *Editor) Save(path string) {
	e.t.Helper()
	ctx, cancel := e.reqCtx()
	defer cancel()
	if err := e.server.DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: docID(e.URI(path))}); err != nil {
		e.t.Fatalf("didSave %s: %v", path, err)
	}
}

// Close sends didClose.
func (e *Editor) Close(path string) {
	e.t.Helper()
	u := e.URI(path)
	e.mu.Lock()
	delete(e.versions, u)
	e.mu.Unlock()
	ctx, cancel := e.reqCtx()
	defer cancel()
	if err := e.server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: docID(u)}); err != nil {
		e.t.Fatalf("didClose %s: %v", path, err)
	}
}

// WriteFile writes path on disk (creating folders) and sends
// workspace/didChangeWatchedFiles with Created or Changed.
func (e *Editor) WriteFile(path, text string) {
	e.t.Helper()
	p := e.Path(path)
	typ := protocol.FileChangeTypeChanged
	if _, err := os.Stat(p); err != nil {
		typ = protocol.FileChangeTypeCreated
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.notifyWatched(p, typ)
}

// RemoveFile deletes path from disk and sends didChangeWatchedFiles (Deleted).
func (e *Editor) RemoveFile(path string) {
	e.t.Helper()
	p := e.Path(path)
	if err := os.Remove(p); err != nil {
		e.t.Fatal(err)
	}
	e.notifyWatched(p, protocol.FileChangeTypeDeleted)
}

func (e *Editor) notifyWatched(p string, typ protocol.FileChangeType) {
	e.t.Helper()
	ctx, cancel := e.reqCtx()
	defer cancel()
	err := e.server.DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uri.URI(fileuri.URI(p)), Type: typ}}})
	if err != nil {
		e.t.Fatalf("didChangeWatchedFiles: %v", err)
	}
}

// SetSettings changes what workspace/configuration answers and sends
// workspace/didChangeConfiguration carrying {"crdLsp": s}.
func (e *Editor) SetSettings(s map[string]any) {
	e.t.Helper()
	e.mu.Lock()
	e.settings = s
	e.mu.Unlock()
	raw, err := json.Marshal(map[string]any{SettingsSection: s})
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := e.reqCtx()
	defer cancel()
	if err := e.server.DidChangeConfiguration(ctx, &protocol.DidChangeConfigurationParams{Settings: raw}); err != nil {
		e.t.Fatalf("didChangeConfiguration: %v", err)
	}
}
