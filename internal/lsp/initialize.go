// This file defines the lifecycle methods: initialize, initialized,
// shutdown and exit.

package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if s.initialized.Load() {
		return nil, jsonrpc2.Errorf(codeInvalidRequest, "crd-lsp: initialize sent twice")
	}
	s.mu.Lock()
	caps := params.Capabilities
	// Negotiate the position encoding: UTF-8 when the client offers it
	// (no conversion needed), else the mandatory UTF-16.
	s.enc = document.UTF16
	encName := protocol.PositionEncodingKindUTF16
	if caps.General != nil {
		for _, e := range caps.General.PositionEncodings {
			if e == protocol.PositionEncodingKindUTF8 {
				s.enc, encName = document.UTF8, e
				break
			}
		}
	}
	s.work.mu.Lock()
	s.work.notify = wantsIdle(caps)
	s.work.mu.Unlock()
	if w := caps.Workspace; w != nil {
		s.caps.configuration = w.Configuration != nil && *w.Configuration
		if w.DidChangeWatchedFiles != nil {
			s.caps.watchedDynamic = w.DidChangeWatchedFiles.DynamicRegistration != nil && *w.DidChangeWatchedFiles.DynamicRegistration
		}
	}
	if w := caps.Window; w != nil {
		s.caps.progress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
	}
	if td := caps.TextDocument; td != nil && td.Completion != nil && td.Completion.CompletionItem != nil {
		s.caps.snippets = td.Completion.CompletionItem.SnippetSupport != nil && *td.Completion.CompletionItem.SnippetSupport
	}

	if folders, ok := params.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		for _, f := range folders {
			s.addFolderLocked(f.URI)
		}
	} else if params.RootURI != nil && *params.RootURI != "" {
		s.addFolderLocked(*params.RootURI)
	} else if p, ok := params.RootPath.Get(); ok && p != "" {
		s.addFolderLocked(pathURI(p))
	}

	if len(params.InitializationOptions) > 0 {
		set, err := parseSettings(params.InitializationOptions)
		if err != nil {
			s.log.Warn("ignoring initializationOptions", "error", err)
		} else {
			s.commitLocked(commit{settings: &set})
		}
	}
	if params.Trace != "" {
		s.traceLevel.Store(params.Trace)
	}
	s.mu.Unlock()
	s.initialized.Store(true)
	s.log.Info("initialize", "client", params.ClientInfo.Name, "positionEncoding", encName, "folders", len(s.folders))

	// Load built-in schemas and scan the workspace in the background:
	// requests answer from whatever is loaded meanwhile.
	s.requestReload()

	open, change := true, protocol.TextDocumentSyncKindIncremental
	includeText := false
	supported := true
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: encName,
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &open,
				Change:    &change,
				Save:      &protocol.SaveOptions{IncludeText: &includeText},
			},
			HoverProvider:           protocol.Boolean(true),
			DocumentSymbolProvider:  protocol.Boolean(true),
			DefinitionProvider:      protocol.Boolean(true),
			ReferencesProvider:      protocol.Boolean(true),
			CodeLensProvider:        &protocol.CodeLensOptions{},
			ExecuteCommandProvider:  protocol.ExecuteCommandOptions{Commands: serverCommands},
			WorkspaceSymbolProvider: protocol.Boolean(true),
			CodeActionProvider:      &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}},
			CompletionProvider:      &protocol.CompletionOptions{TriggerCharacters: []string{":", " ", "-", "."}},
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
					Supported:           &supported,
					ChangeNotifications: protocol.Boolean(true),
				},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "crd-lsp", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// addFolderLocked adds a workspace folder, unless crd-lsp cannot or must
// not scan it: a folder that is not a file: URI (vscode-vfs://, http://:
// its path names nothing on this machine) or the filesystem's root (every
// YAML file of the machine) is ignored, and the client is told. s.mu is
// held.
func (s *server) addFolderLocked(u uri.URI) {
	for _, f := range s.folders {
		if f.uri == u {
			return
		}
	}
	p, why := folderPath(u)
	if why != "" {
		s.log.Warn("ignoring workspace folder", "folder", string(u), "reason", why)
		s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("ignoring workspace folder %s: %s", clipText(string(u), 200), why))
		return
	}
	s.folders = append(s.folders, folder{uri: u, path: p})
}

// folderPath is the directory a workspace folder's URI names, or why
// crd-lsp does not scan it.
func folderPath(u uri.URI) (string, string) {
	p := filePath(u)
	switch {
	case p == "":
		return "", "crd-lsp reads only folders on this machine (file: URIs)"
	case filepath.Dir(filepath.Clean(p)) == filepath.Clean(p):
		return "", "it is the root of the filesystem; open a project folder instead"
	}
	return p, ""
}

// filePath is the file path of a file: URI (document.FilePath), "" for
// any other scheme: the server reads only local files.
func filePath(u uri.URI) string {
	if !strings.EqualFold(u.Scheme(), "file") {
		return ""
	}
	return document.FilePath(string(u))
}

// clipText cuts s to at most n bytes (at a rune boundary), marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// probeConfigurationTimeout bounds the workspace/configuration request
// sent to a client that did not say it answers it.
const probeConfigurationTimeout = 10 * time.Second

func (s *server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.mu.Lock()
	watch, pull := s.caps.watchedDynamic, s.caps.configuration
	s.mu.Unlock()
	// Talking to the client must not happen on the read goroutine.
	s.goBackground(func(ctx context.Context) {
		if watch {
			s.registerWatchers(ctx)
		}
		if pull {
			s.pullConfiguration(ctx, false)
			return
		}
		// A client that does not advertise workspace/configuration may
		// answer it all the same: Neovim 0.7 answers from its `settings`
		// but neither says so nor sends them otherwise. Ask once, briefly;
		// an error or no answer keeps initializationOptions.
		ctx, cancel := context.WithTimeout(ctx, probeConfigurationTimeout)
		defer cancel()
		s.pullConfiguration(ctx, true)
	})
	return nil
}

func (s *server) Shutdown(ctx context.Context) error {
	s.shutdownDone.Store(true)
	s.diag.cancelAll()
	s.fns.close() // the function processes are gone when shutdown answers
	s.log.Info("shutdown")
	return nil
}

func (s *server) Exit(ctx context.Context) error {
	if s.exited.Swap(true) {
		return nil
	}
	close(s.exitCh)
	s.log.Info("exit", "afterShutdown", s.shutdownDone.Load())
	s.cancel()
	// Close from outside this handler: Close waits for in-flight handlers,
	// this one included.
	go func() { _ = s.conn.Close() }()
	return nil
}

// Request answers every method the server does not implement.
func (s *server) Request(ctx context.Context, method string, params any) (any, error) {
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "crd-lsp: method not found: %s", method)
}
