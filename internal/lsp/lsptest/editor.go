// This file holds the editor itself: starting the server (in process or as
// the built binary), the session's lifecycle, and what it recorded.

package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

	"github.com/crd-lsp/crd-lsp/internal/fileuri"
	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// Config describes the editor session to start.
type Config struct {
	// Dir is the workspace root: rootUri and the first workspace folder.
	// Relative paths given to the Editor resolve against it. "" starts
	// without a workspace.
	Dir string
	// Folders are extra workspace folders (multi-root).
	Folders []string
	// Settings is the crdLsp object: sent as initializationOptions and
	// returned for workspace/configuration section "crdLsp".
	Settings map[string]any
	// PositionEncodings offered by the client, in order of preference;
	// default ["utf-16"].
	PositionEncodings []string
	// WatchedFiles advertises dynamic registration of
	// workspace/didChangeWatchedFiles.
	WatchedFiles bool
}

// Edit is one incremental change; positions are in the negotiated encoding.
type Edit struct {
	StartLine, StartChar, EndLine, EndChar int
	Text                                   string
}

// RequestTimeout bounds every request and notification the editor sends.
var RequestTimeout = 30 * time.Second

// Editor is a fake LSP client driving a real crd-lsp. Its methods may be
// called from several goroutines; the helpers that wait fail the test (via
// t.Fatalf, so call them from the test goroutine) with a dump of what the
// server sent.
type Editor struct {
	t      testing.TB
	cfg    Config
	conn   jsonrpc2.Conn
	server protocol.Server
	init   *protocol.InitializeResult
	enc    string

	// binary mode
	cmd      *exec.Cmd
	stdin    *lockedWriter
	stderr   *testfixtures.LockedBuffer
	waitDone chan struct{}
	waitErr  error
	exitCode atomic.Int64

	// in-process mode
	serveDone chan struct{}
	serveErr  error
	serverLog *testfixtures.LockedBuffer

	mu            sync.Mutex
	wake          chan struct{} // closed and replaced whenever anything is recorded
	versions      map[uri.URI]int32
	diags         map[uri.URI]publish
	publishes     []publish
	events        []Event
	registrations []protocol.Registration
	logs          []string
	settings      map[string]any
	exited        bool // Exit was sent (or cleanup ran)
	// sent counts the requests and notifications sent to the server;
	// idleAt is the largest count the server said it was idle after
	// handling ($/crd-lsp/idle).
	sent   atomic.Uint64
	idleAt uint64
}

type publish struct {
	uri     uri.URI
	version int32
	hasVer  bool
	diags   []protocol.Diagnostic
	at      time.Time
}

// StartInProcess runs lsp.Serve over an in-memory pipe pair, sends
// initialize and initialized, and shuts the server down in t.Cleanup. The
// server's log is written to the test log if the test fails.
func StartInProcess(t testing.TB, cfg Config) *Editor {
	t.Helper()
	return startInProcess(t, cfg, func(ctx context.Context, rwc io.ReadWriteCloser, logger *slog.Logger) error {
		return lsp.Serve(ctx, rwc, lsp.Options{Logger: logger, Version: "lsptest"})
	})
}

// startInProcess runs serve (lsp.Serve, or a fake in this package's tests)
// on the server end of the pipe pair.
func startInProcess(t testing.TB, cfg Config, serve func(context.Context, io.ReadWriteCloser, *slog.Logger) error) *Editor {
	t.Helper()
	e := newEditor(t, cfg)
	c2s, s2c := newPipe(), newPipe()
	serverEnd := pipeRWC{r: c2s, w: s2c}
	clientEnd := pipeRWC{r: s2c, w: c2s}
	e.serverLog = &testfixtures.LockedBuffer{}
	logger := slog.New(slog.NewTextHandler(e.serverLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.serveDone = make(chan struct{})
	go func() {
		defer close(e.serveDone)
		err := serve(context.Background(), serverEnd, logger)
		_ = serverEnd.Close()
		e.serveErr = err
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("crd-lsp log:\n%s", e.serverLog.String())
		}
	})
	e.connect(clientEnd)
	return e
}

// StartBinary runs the crd-lsp binary (see BuildBinary) with args, default
// "--stdio", sends initialize and initialized, and shuts it down (killing
// it if need be) in t.Cleanup. Its stderr (CRD_LSP_LOG=debug unless args
// say otherwise) goes to the test log if the test fails.
func StartBinary(t testing.TB, cfg Config, args ...string) *Editor {
	t.Helper()
	bin := BuildBinary(t)
	if len(args) == 0 {
		args = []string{"--stdio"}
	}
	e := newEditor(t, cfg)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CRD_LSP_LOG=debug")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e.stderr = &testfixtures.LockedBuffer{}
	cmd.Stderr = e.stderr
	// Wait (and so cleanup's wait after the kill) stops copying stderr ten
	// seconds after the process ended, though a child it started (a
	// function) still holds the pipe.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e.cmd, e.stdin = cmd, &lockedWriter{w: stdin}
	e.waitDone = make(chan struct{})
	go func() {
		err := cmd.Wait()
		e.waitErr = err
		var ee *exec.ExitError
		switch {
		case err == nil:
			e.exitCode.Store(0)
		case errors.As(err, &ee):
			e.exitCode.Store(int64(ee.ExitCode()))
		}
		close(e.waitDone)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("crd-lsp %s stderr:\n%s", strings.Join(args, " "), e.stderr.String())
		}
	})
	e.connect(pipeRWC{r: stdout, w: e.stdin})
	return e
}

func newEditor(t testing.TB, cfg Config) *Editor {
	t.Helper()
	if cfg.Dir != "" {
		abs, err := filepath.Abs(cfg.Dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Dir = abs
	}
	folders := make([]string, 0, len(cfg.Folders))
	for _, f := range cfg.Folders {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		folders = append(folders, abs)
	}
	cfg.Folders = folders
	e := &Editor{
		t:        t,
		cfg:      cfg,
		wake:     make(chan struct{}),
		versions: map[uri.URI]int32{},
		diags:    map[uri.URI]publish{},
		settings: cfg.Settings,
	}
	e.exitCode.Store(-1)
	return e
}

func (e *Editor) connect(rwc io.ReadWriteCloser) {
	t := e.t
	t.Helper()
	raw := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc), jsonrpc2.WithCodec(lsp.Codec{}))
	e.conn = countingConn{Conn: raw, sent: &e.sent}
	e.conn.Go(context.Background(), e.handler())
	e.server = protocol.ServerDispatcher(e.conn)
	go func() {
		<-e.conn.Done()
		e.mu.Lock()
		e.wakeLocked()
		e.mu.Unlock()
	}()
	t.Cleanup(e.cleanup)

	ctx, cancel := e.reqCtx()
	defer cancel()
	res, err := e.server.Initialize(ctx, e.initializeParams())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	e.init = res
	e.enc = string(res.Capabilities.PositionEncoding)
	if e.enc == "" {
		e.enc = UTF16
	}
	if err := e.server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
}

func (e *Editor) initializeParams() *protocol.InitializeParams {
	yes := true
	var encs []protocol.PositionEncodingKind
	for _, s := range e.cfg.PositionEncodings {
		encs = append(encs, protocol.PositionEncodingKind(s))
	}
	if len(encs) == 0 {
		encs = []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}
	}
	watched := e.cfg.WatchedFiles
	p := &protocol.InitializeParams{
		ClientInfo: protocol.ClientInfo{Name: "lsptest"},
		Capabilities: protocol.ClientCapabilities{
			General: &protocol.GeneralClientCapabilities{PositionEncodings: encs},
			Workspace: &protocol.WorkspaceClientCapabilities{
				Configuration:          &yes,
				WorkspaceFolders:       &yes,
				DidChangeConfiguration: &protocol.DidChangeConfigurationClientCapabilities{},
				DidChangeWatchedFiles:  &protocol.DidChangeWatchedFilesClientCapabilities{DynamicRegistration: &watched},
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: &yes},
				Hover:              &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown, protocol.MarkupKindPlainText}},
				Completion: &protocol.CompletionClientCapabilities{CompletionItem: &protocol.ClientCompletionItemOptions{
					DocumentationFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown, protocol.MarkupKindPlainText},
				}},
				Definition: &protocol.DefinitionClientCapabilities{},
			},
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
			// The idle signal tests wait on (internal/lsp/idle.go).
			Experimental: protocol.LSPAny(`{"crdLspIdle":true}`),
		},
	}
	if e.cfg.Settings != nil {
		raw, err := json.Marshal(e.cfg.Settings)
		if err != nil {
			e.t.Fatal(err)
		}
		p.InitializationOptions = raw
	}
	if e.cfg.Dir != "" {
		u := uri.URI(fileuri.URI(e.cfg.Dir))
		p.RootURI = &u
	}
	if folders := e.workspaceFolders(); len(folders) > 0 {
		p.WorkspaceFolders = protocol.NewNullable(folders)
	}
	return p
}

func (e *Editor) folderPaths() []string {
	var out []string
	if e.cfg.Dir != "" {
		out = append(out, e.cfg.Dir)
	}
	return append(out, e.cfg.Folders...)
}

func baseName(p string) string { return filepath.Base(p) }

func (e *Editor) reqCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), RequestTimeout)
}

// cleanup ends the session unless the test did: shutdown+exit, then wait
// for the server (or process) to finish, killing a process that hangs.
func (e *Editor) cleanup() {
	e.mu.Lock()
	exited := e.exited
	e.exited = true
	e.mu.Unlock()
	if !exited {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = e.server.Shutdown(ctx)
		_ = e.server.Exit(ctx)
		cancel()
	}
	if e.cmd != nil {
		select {
		case <-e.waitDone:
		case <-time.After(5 * time.Second):
			_ = e.cmd.Process.Kill()
			<-e.waitDone
			e.t.Errorf("crd-lsp did not exit within 5s of exit; killed")
		}
	}
	_ = e.conn.Close()
	if e.serveDone != nil {
		select {
		case <-e.serveDone:
		case <-time.After(5 * time.Second):
			e.t.Errorf("lsp.Serve did not return within 5s of exit")
		}
	}
}

// wakeLocked wakes every waiter; e.mu must be held.
func (e *Editor) wakeLocked() {
	close(e.wake)
	e.wake = make(chan struct{})
}

func (e *Editor) addLog(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, s)
	e.wakeLocked()
}

// waitFor waits until cond (called with e.mu held) is true, the timeout
// passes, or the connection closes. It reports whether cond held.
func (e *Editor) waitFor(timeout time.Duration, cond func() bool) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		ok := cond()
		wake := e.wake
		e.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-wake:
		case <-timer.C:
			e.mu.Lock()
			defer e.mu.Unlock()
			return cond()
		case <-e.conn.Done():
			// Whatever arrived before the close is recorded by now.
			e.mu.Lock()
			defer e.mu.Unlock()
			return cond()
		}
	}
}

// InitializeResult is the server's answer to initialize.
func (e *Editor) InitializeResult() *protocol.InitializeResult { return e.init }

// Encoding is the negotiated position encoding: "utf-8", "utf-16" or "utf-32".
func (e *Editor) Encoding() string { return e.enc }

// Server is the typed dispatcher, for requests the helpers do not cover.
func (e *Editor) Server() protocol.Server { return e.server }

// Shutdown sends the shutdown request.
func (e *Editor) Shutdown() error {
	ctx, cancel := e.reqCtx()
	defer cancel()
	return e.server.Shutdown(ctx)
}

// Exit sends exit. For a binary it then waits (up to 5s, else it kills
// it and fails) for the process to end and records ExitCode; in-process,
// ServeResult gives Serve's return value.
func (e *Editor) Exit() {
	e.t.Helper()
	e.mu.Lock()
	e.exited = true
	e.mu.Unlock()
	ctx, cancel := e.reqCtx()
	defer cancel()
	if err := e.server.Exit(ctx); err != nil {
		e.t.Logf("sending exit: %v", err)
	}
	if e.cmd == nil {
		return
	}
	select {
	case <-e.waitDone:
		var ee *exec.ExitError
		if e.waitErr != nil && !errors.As(e.waitErr, &ee) {
			e.t.Fatalf("waiting for crd-lsp: %v", e.waitErr)
		}
	case <-time.After(5 * time.Second):
		_ = e.cmd.Process.Kill()
		e.t.Fatalf("crd-lsp did not exit within 5s of exit")
	}
}

// PID is the binary's process id (0 in process mode), for tests that
// look at the process itself (its memory).
func (e *Editor) PID() int {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0
	}
	return e.cmd.Process.Pid
}

// ExitCode is the process's exit status once it ended (-1 before, and in
// process mode).
func (e *Editor) ExitCode() int { return int(e.exitCode.Load()) }

// WaitExit waits for the binary to end by itself (after Exit or after
// CloseStdin) and returns its exit code.
func (e *Editor) WaitExit(timeout time.Duration) int {
	e.t.Helper()
	if e.cmd == nil {
		e.t.Fatal("WaitExit needs a binary started with StartBinary")
	}
	select {
	case <-e.waitDone:
		return e.ExitCode()
	case <-time.After(timeout):
		e.t.Fatalf("crd-lsp still running after %v", timeout)
		return -1
	}
}

// ServeResult waits for an in-process lsp.Serve to return and gives its error.
func (e *Editor) ServeResult(timeout time.Duration) error {
	e.t.Helper()
	if e.serveDone == nil {
		e.t.Fatal("ServeResult needs an editor started with StartInProcess")
	}
	select {
	case <-e.serveDone:
		return e.serveErr
	case <-time.After(timeout):
		e.t.Fatalf("lsp.Serve did not return within %v", timeout)
		return nil
	}
}

// WriteRaw writes bytes straight to the binary's stdin (binary mode
// only), for robustness tests. Do not call it while a request is being
// written.
func (e *Editor) WriteRaw(b []byte) {
	e.t.Helper()
	if e.stdin == nil {
		e.t.Fatal("WriteRaw needs a binary started with StartBinary")
	}
	if _, err := e.stdin.Write(b); err != nil {
		e.t.Fatalf("writing raw bytes: %v", err)
	}
}

// CloseStdin closes the binary's stdin, as an editor that dies does.
func (e *Editor) CloseStdin() {
	e.t.Helper()
	if e.stdin == nil {
		e.t.Fatal("CloseStdin needs a binary started with StartBinary")
	}
	e.mu.Lock()
	e.exited = true
	e.mu.Unlock()
	_ = e.stdin.Close()
}

// Stderr is what the binary wrote to stderr so far (binary mode); in
// process mode, the server's log.
func (e *Editor) Stderr() string {
	switch {
	case e.stderr != nil:
		return e.stderr.String()
	case e.serverLog != nil:
		return e.serverLog.String()
	}
	return ""
}

func (e *Editor) connState() string {
	select {
	case <-e.conn.Done():
		return fmt.Sprintf(" (connection closed: %v)", e.conn.Err())
	default:
		return ""
	}
}

// Dump renders everything the server sent so far, for failure messages
// (diagnostic positions as sent: 0-based line:character).
func (e *Editor) Dump() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	pubs := 0
	for _, ev := range e.events {
		ts := ev.Time.Format("15:04:05.000")
		if ev.Method == protocol.MethodTextDocumentPublishDiagnostics && pubs < len(e.publishes) {
			p := e.publishes[pubs]
			pubs++
			ver := "-"
			if p.hasVer {
				ver = fmt.Sprint(p.version)
			}
			fmt.Fprintf(&b, "  %s publishDiagnostics %s version %s: %d\n", ts, p.uri, ver, len(p.diags))
			for _, d := range p.diags {
				fmt.Fprintf(&b, "      %d:%d %s [%s] %s\n", d.Range.Start.Line, d.Range.Start.Character, SeverityName(d.Severity), Code(d), Message(d))
			}
			continue
		}
		params := string(ev.Params)
		if len(params) > 300 {
			params = params[:300] + "…"
		}
		fmt.Fprintf(&b, "  %s %s %s\n", ts, ev.Method, params)
	}
	if b.Len() == 0 {
		return "  (nothing)\n"
	}
	return b.String()
}

// countingConn counts the requests and notifications sent to the server,
// for AwaitIdle.
type countingConn struct {
	jsonrpc2.Conn
	sent *atomic.Uint64
}

func (c countingConn) Call(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
	c.sent.Add(1)
	return c.Conn.Call(ctx, method, params, result)
}

func (c countingConn) Notify(ctx context.Context, method string, params any) error {
	c.sent.Add(1)
	return c.Conn.Notify(ctx, method, params)
}
