// This file defines the lifecycle methods: initialize, initialized,
// shutdown and exit.

package lsp

import (
	"context"
	"time"

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
			s.folders = appendFolder(s.folders, f.URI)
		}
	} else if params.RootURI != nil && *params.RootURI != "" {
		s.folders = appendFolder(s.folders, *params.RootURI)
	} else if p, ok := params.RootPath.Get(); ok && p != "" {
		s.folders = appendFolder(s.folders, uri.File(p))
	}

	if len(params.InitializationOptions) > 0 {
		set, err := parseSettings(params.InitializationOptions)
		if err != nil {
			s.log.Warn("ignoring initializationOptions", "error", err)
		} else {
			s.settings = set
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
	s.goBackground(func(ctx context.Context) { s.reloadSchemas(ctx) })

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
			CompletionProvider:      &protocol.CompletionOptions{TriggerCharacters: []string{":", " ", "-"}},
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

func appendFolder(fs []folder, u uri.URI) []folder {
	for _, f := range fs {
		if f.uri == u {
			return fs
		}
	}
	p := u.FsPath()
	if p == "" {
		return fs
	}
	return append(fs, folder{uri: u, path: p})
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
