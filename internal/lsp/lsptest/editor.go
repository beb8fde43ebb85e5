package lsptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
)

// Config describes the editor session to start.
type Config struct {
	// Dir is the workspace root (rootUri and the first workspace folder);
	// "" starts without a workspace.
	Dir string
	// Folders are extra workspace folders.
	Folders []string
	// Settings is the crdLsp object, sent as initializationOptions and
	// returned for workspace/configuration.
	Settings map[string]any
	// PositionEncodings offered by the client; default utf-16 only.
	PositionEncodings []string
	// WatchedFiles advertises dynamic registration of file watchers.
	WatchedFiles bool
}

// Edit is one incremental change, in the negotiated position encoding.
type Edit struct {
	StartLine, StartChar, EndLine, EndChar int
	Text                                   string
}

// Editor is a fake LSP client.
type Editor struct {
	t      testing.TB
	cfg    Config
	conn   jsonrpc2.Conn
	server protocol.Server
	init   *protocol.InitializeResult

	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stderr   *lockedBuffer
	waitErr  chan error
	exitCode int
	serveErr chan error
	served   atomic.Bool
	logDone  *atomic.Bool

	mu            sync.Mutex
	changed       *sync.Cond
	versions      map[string]int32
	diags         map[uri.URI]publish
	publishes     []publish
	registrations []protocol.Registration
	logs          []string
	settings      map[string]any
	closed        bool
}

type publish struct {
	uri     uri.URI
	version int32
	hasVer  bool
	diags   []protocol.Diagnostic
}

// StartInProcess runs lsp.Serve on one end of an in-memory pipe and
// initializes it.
func StartInProcess(t testing.TB, cfg Config) *Editor {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	e := newEditor(t, cfg)
	e.serveErr = make(chan error, 1)
	e.logDone = new(atomic.Bool)
	logger := slog.New(slog.NewTextHandler(testWriter{t, e.logDone}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	go func() {
		e.serveErr <- lsp.Serve(context.Background(), serverEnd, lsp.Options{Logger: logger, Version: "test"})
	}()
	e.connect(clientEnd)
	return e
}

// StartBinary runs the built crd-lsp binary with args (default --stdio)
// and initializes it.
func StartBinary(t testing.TB, cfg Config, args ...string) *Editor {
	t.Helper()
	bin := BuildBinary(t)
	if len(args) == 0 {
		args = []string{"--stdio"}
	}
	e := newEditor(t, cfg)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CRD_LSP_LOG=info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e.stderr = &lockedBuffer{}
	cmd.Stderr = e.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e.cmd, e.stdin = cmd, stdin
	e.waitErr = make(chan error, 1)
	go func() { e.waitErr <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("crd-lsp stderr:\n%s", e.stderr.String())
		}
	})
	e.connect(pipeRWC{stdout, stdin})
	return e
}

func newEditor(t testing.TB, cfg Config) *Editor {
	if cfg.Dir != "" {
		abs, err := filepath.Abs(cfg.Dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Dir = abs
	}
	e := &Editor{t: t, cfg: cfg, versions: map[string]int32{}, diags: map[uri.URI]publish{}, settings: cfg.Settings, exitCode: -1}
	e.changed = sync.NewCond(&e.mu)
	return e
}

func (e *Editor) connect(rwc io.ReadWriteCloser) {
	t := e.t
	t.Helper()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc), jsonrpc2.WithCodec(lsp.Codec{}))
	// Handled synchronously, in wire order, so "latest" means latest.
	e.conn.Go(context.Background(), protocol.ClientHandler(&client{e: e}, jsonrpc2.MethodNotFoundHandler))
	e.server = protocol.ServerDispatcher(e.conn)

	t.Cleanup(e.cleanup)
	res, err := e.server.Initialize(e.ctx(), e.initializeParams())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	e.init = res
	if err := e.server.Initialized(e.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
}

func (e *Editor) initializeParams() *protocol.InitializeParams {
	yes := true
	encs := []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}
	if len(e.cfg.PositionEncodings) > 0 {
		encs = nil
		for _, s := range e.cfg.PositionEncodings {
			encs = append(encs, protocol.PositionEncodingKind(s))
		}
	}
	p := &protocol.InitializeParams{
		ClientInfo: protocol.ClientInfo{Name: "lsptest"},
		Capabilities: protocol.ClientCapabilities{
			General: &protocol.GeneralClientCapabilities{PositionEncodings: encs},
			Workspace: &protocol.WorkspaceClientCapabilities{
				Configuration:         &yes,
				WorkspaceFolders:      &yes,
				DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesClientCapabilities{DynamicRegistration: &e.cfg.WatchedFiles},
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: &yes},
			},
		},
	}
	if e.cfg.Settings != nil {
		raw, err := protocol.Marshal(e.cfg.Settings)
		if err != nil {
			e.t.Fatal(err)
		}
		p.InitializationOptions = raw
	}
	var folders []protocol.WorkspaceFolder
	if e.cfg.Dir != "" {
		u := uri.File(e.cfg.Dir)
		p.RootURI = &u
		folders = append(folders, protocol.WorkspaceFolder{URI: u, Name: filepath.Base(e.cfg.Dir)})
	}
	for _, f := range e.cfg.Folders {
		abs, _ := filepath.Abs(f)
		folders = append(folders, protocol.WorkspaceFolder{URI: uri.File(abs), Name: filepath.Base(abs)})
	}
	if len(folders) > 0 {
		p.WorkspaceFolders = protocol.NewNullable(folders)
	}
	return p
}

func (e *Editor) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

func (e *Editor) cleanup() {
	e.mu.Lock()
	closed := e.closed
	e.closed = true
	e.mu.Unlock()
	if closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.server.Shutdown(ctx)
	_ = e.server.Exit(ctx)
	_ = e.conn.Close()
	if e.cmd != nil {
		select {
		case <-e.waitErr:
		case <-time.After(5 * time.Second):
			_ = e.cmd.Process.Kill()
		}
	}
	if e.serveErr != nil && !e.served.Load() {
		select {
		case <-e.serveErr:
		case <-time.After(5 * time.Second):
		}
	}
	if e.logDone != nil {
		e.logDone.Store(true)
	}
}

// InitializeResult is the server's answer to initialize.
func (e *Editor) InitializeResult() *protocol.InitializeResult { return e.init }

// Server is the typed dispatcher, for requests the helpers do not cover.
func (e *Editor) Server() protocol.Server { return e.server }

// Path resolves a path relative to the workspace root.
func (e *Editor) Path(p string) string {
	if filepath.IsAbs(p) || e.cfg.Dir == "" {
		abs, _ := filepath.Abs(p)
		return abs
	}
	return filepath.Join(e.cfg.Dir, p)
}

// URI of a path relative to the workspace root.
func (e *Editor) URI(p string) uri.URI { return uri.File(e.Path(p)) }

// Open sends didOpen with version 1 and returns the document's URI.
func (e *Editor) Open(path, text string) uri.URI {
	e.t.Helper()
	u := e.URI(path)
	e.mu.Lock()
	e.versions[string(u)] = 1
	e.mu.Unlock()
	err := e.server.DidOpen(e.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "yaml", Version: 1, Text: text}})
	if err != nil {
		e.t.Fatalf("didOpen %s: %v", path, err)
	}
	return u
}

func (e *Editor) nextVersion(u uri.URI) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.versions[string(u)]++
	return e.versions[string(u)]
}

// Version is the document's current version.
func (e *Editor) Version(path string) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.versions[string(e.URI(path))]
}

// Change replaces the whole text (full sync).
func (e *Editor) Change(path, text string) {
	e.t.Helper()
	u := e.URI(path)
	v := e.nextVersion(u)
	err := e.server.DidChange(e.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	})
	if err != nil {
		e.t.Fatalf("didChange %s: %v", path, err)
	}
}

// Edit applies incremental changes.
func (e *Editor) Edit(path string, edits ...Edit) {
	e.t.Helper()
	u := e.URI(path)
	v := e.nextVersion(u)
	var changes []protocol.TextDocumentContentChangeEvent
	for _, ed := range edits {
		changes = append(changes, &protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(ed.StartLine), Character: uint32(ed.StartChar)},
				End:   protocol.Position{Line: uint32(ed.EndLine), Character: uint32(ed.EndChar)},
			},
			Text: ed.Text,
		})
	}
	err := e.server.DidChange(e.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: changes,
	})
	if err != nil {
		e.t.Fatalf("didChange %s: %v", path, err)
	}
}

// Save sends didSave.
func (e *Editor) Save(path string) {
	e.t.Helper()
	if err := e.server.DidSave(e.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI(path)}}); err != nil {
		e.t.Fatalf("didSave: %v", err)
	}
}

// Close sends didClose.
func (e *Editor) Close(path string) {
	e.t.Helper()
	if err := e.server.DidClose(e.ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI(path)}}); err != nil {
		e.t.Fatalf("didClose: %v", err)
	}
}

// WriteFile writes path on disk and reports it as created or changed.
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

// RemoveFile deletes path and reports it.
func (e *Editor) RemoveFile(path string) {
	e.t.Helper()
	p := e.Path(path)
	if err := os.Remove(p); err != nil {
		e.t.Fatal(err)
	}
	e.notifyWatched(p, protocol.FileChangeTypeDeleted)
}

func (e *Editor) notifyWatched(p string, typ protocol.FileChangeType) {
	err := e.server.DidChangeWatchedFiles(e.ctx(), &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uri.File(p), Type: typ}}})
	if err != nil {
		e.t.Fatalf("didChangeWatchedFiles: %v", err)
	}
}

// SetSettings changes what workspace/configuration answers and notifies.
func (e *Editor) SetSettings(s map[string]any) {
	e.t.Helper()
	e.mu.Lock()
	e.settings = s
	e.mu.Unlock()
	if err := e.server.DidChangeConfiguration(e.ctx(), &protocol.DidChangeConfigurationParams{Settings: []byte("null")}); err != nil {
		e.t.Fatalf("didChangeConfiguration: %v", err)
	}
}

// AwaitDiagnostics waits until diagnostics for path at version (0: any) or
// later have been published, and returns them.
func (e *Editor) AwaitDiagnostics(path string, version int32, timeout time.Duration) []protocol.Diagnostic {
	e.t.Helper()
	u := e.URI(path)
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		e.mu.Lock()
		e.changed.Broadcast()
		e.mu.Unlock()
	})
	defer timer.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if p, ok := e.diags[u]; ok && (version == 0 || (p.hasVer && p.version >= version)) {
			return p.diags
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no diagnostics for %s at version %d within %v; received:\n%s", path, version, timeout, e.dumpLocked())
		}
		e.changed.Wait()
	}
}

// AwaitSettled waits until path's diagnostics at its current version have
// been published and no new publish arrived for quiet.
func (e *Editor) AwaitSettled(path string, quiet, timeout time.Duration) []protocol.Diagnostic {
	e.t.Helper()
	v := e.Version(path)
	deadline := time.Now().Add(timeout)
	for {
		e.AwaitDiagnostics(path, v, time.Until(deadline))
		e.mu.Lock()
		n := len(e.publishes)
		e.mu.Unlock()
		time.Sleep(quiet)
		e.mu.Lock()
		m := len(e.publishes)
		p := e.diags[e.URI(path)]
		e.mu.Unlock()
		if m == n {
			return p.diags
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("diagnostics for %s never settled within %v", path, timeout)
		}
	}
}

// Diagnostics returns the latest published set for path.
func (e *Editor) Diagnostics(path string) []protocol.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.diags[e.URI(path)].diags
}

// PublishedVersions lists the versions of every publish for path, in order.
func (e *Editor) PublishedVersions(path string) []int32 {
	u := e.URI(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []int32
	for _, p := range e.publishes {
		if p.uri == u {
			out = append(out, p.version)
		}
	}
	return out
}

// Hover requests textDocument/hover.
func (e *Editor) Hover(path string, line, char int) (*protocol.Hover, error) {
	return e.server.Hover(e.ctx(), &protocol.HoverParams{TextDocumentPositionParams: e.pos(path, line, char)})
}

func (e *Editor) pos(path string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.URI(path)},
		Position:     protocol.Position{Line: uint32(line), Character: uint32(char)},
	}
}

// Call sends any request.
func (e *Editor) Call(method string, params, result any) error {
	_, err := e.conn.Call(e.ctx(), method, params, result)
	return err
}

// Notify sends any notification.
func (e *Editor) Notify(method string, params any) error {
	return e.conn.Notify(e.ctx(), method, params)
}

// Registrations lists what the server registered dynamically.
func (e *Editor) Registrations() []protocol.Registration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Registration(nil), e.registrations...)
}

// AwaitRegistration waits for a dynamic registration of method.
func (e *Editor) AwaitRegistration(method string, timeout time.Duration) protocol.Registration {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, r := range e.Registrations() {
			if r.Method == method {
				return r
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("no registration of %s within %v", method, timeout)
	return protocol.Registration{}
}

// Log returns window/logMessage and window/showMessage texts received.
func (e *Editor) Log() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.logs...)
}

// Shutdown sends shutdown.
func (e *Editor) Shutdown() error { return e.server.Shutdown(e.ctx()) }

// Exit sends exit and, for a binary, waits (up to 5s) for the process to
// end, recording its exit code; for in-process servers it waits for Serve.
func (e *Editor) Exit() {
	e.t.Helper()
	_ = e.server.Exit(e.ctx())
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	if e.cmd != nil {
		select {
		case err := <-e.waitErr:
			var ee *exec.ExitError
			switch {
			case err == nil:
				e.exitCode = 0
			case errors.As(err, &ee):
				e.exitCode = ee.ExitCode()
			default:
				e.t.Fatalf("waiting for crd-lsp: %v", err)
			}
		case <-time.After(5 * time.Second):
			_ = e.cmd.Process.Kill()
			e.t.Fatalf("crd-lsp did not exit within 5s of exit")
		}
	}
	_ = e.conn.Close()
}

// ExitCode is the binary's exit status after Exit (-1 before).
func (e *Editor) ExitCode() int { return e.exitCode }

// ServeResult waits for an in-process Serve to return.
func (e *Editor) ServeResult(timeout time.Duration) error {
	e.t.Helper()
	select {
	case err := <-e.serveErr:
		e.served.Store(true)
		return err
	case <-time.After(timeout):
		e.t.Fatalf("Serve did not return within %v", timeout)
		return nil
	}
}

// WriteRaw writes bytes straight to the binary's stdin.
func (e *Editor) WriteRaw(b []byte) {
	e.t.Helper()
	if e.stdin == nil {
		e.t.Fatal("WriteRaw needs a binary started with StartBinary")
	}
	if _, err := e.stdin.Write(b); err != nil {
		e.t.Fatalf("writing raw bytes: %v", err)
	}
}

// Stderr is what the binary logged so far.
func (e *Editor) Stderr() string {
	if e.stderr == nil {
		return ""
	}
	return e.stderr.String()
}

func (e *Editor) dumpLocked() string {
	var b strings.Builder
	for _, p := range e.publishes {
		fmt.Fprintf(&b, "  %s v%d: %d diagnostics\n", p.uri, p.version, len(p.diags))
		for _, d := range p.diags {
			fmt.Fprintf(&b, "    %d:%d %v\n", d.Range.Start.Line, d.Range.Start.Character, d.Message)
		}
	}
	for _, l := range e.logs {
		fmt.Fprintf(&b, "  log: %s\n", l)
	}
	if b.Len() == 0 {
		return "  (nothing)\n"
	}
	return b.String()
}

// AwaitLog waits for a window/logMessage or showMessage containing substr.
func (e *Editor) AwaitLog(substr string, timeout time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, l := range e.Log() {
			if strings.Contains(l, substr) {
				return l
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("no log message containing %q within %v; got %q", substr, timeout, e.Log())
	return ""
}

// AwaitSchemas waits until the server reports that its schemas are loaded.
func (e *Editor) AwaitSchemas(timeout time.Duration) {
	e.t.Helper()
	e.AwaitLog("schemas loaded", timeout)
}
