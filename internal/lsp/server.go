// This file defines the server's session state.

package lsp

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// server implements protocol.Server. Methods it does not implement answer
// MethodNotFound through UnimplementedServer.
type server struct {
	protocol.UnimplementedServer

	ctx    context.Context // the connection's lifetime
	cancel context.CancelFunc
	opts   Options
	log    *slog.Logger
	conn   jsonrpc2.Conn
	client protocol.Client

	initialized  atomic.Bool
	shutdownDone atomic.Bool
	exited       atomic.Bool
	exitCh       chan struct{}
	traceLevel   atomic.Value // protocol.TraceValue

	mu       sync.Mutex
	enc      document.Encoding
	caps     clientCaps
	folders  []folder
	settings Settings
	initOpts []byte
	open     map[uri.URI]*document.File
	store    *schemas.Store
	// diskSchemas are the workspace files currently fed to the store from
	// disk (open buffers replace their disk copy while open).
	diskSchemas map[string]bool
	// objects indexes workspace files by the apiVersion/kind of their
	// documents (example composites for rendering).
	objects map[string][]workspace.Header
	// exFiles caches the parsed objects of example files (see objectsIn).
	exMu    sync.Mutex
	exFiles map[string]exampleFile
	scanGen int
	// schemasReady is false until the first load of built-in and workspace
	// schemas finished; until then "unknown kind" is not reported.
	schemasReady bool
	// major is the Crossplane version the workspace targets.
	major int
	// fileProblems are the workspace files that were not read, and why
	// (see file_problems.go).
	fileProblems map[string]fileProblem

	diag *diagnoser
	bg   sync.WaitGroup

	pkgs pkgState
}

type clientCaps struct {
	configuration     bool
	watchedDynamic    bool
	workspaceFolders  bool
	relativePatterns  bool
	diagnosticVersion bool
	snippets          bool
	progress          bool // window/workDoneProgress/create and $/progress
}

type folder struct {
	uri  uri.URI
	path string
}

func newServer(ctx context.Context, opts Options, conn jsonrpc2.Conn) *server {
	ctx, cancel := context.WithCancel(ctx)
	s := &server{
		ctx:         ctx,
		cancel:      cancel,
		opts:        opts,
		log:         opts.Logger,
		conn:        conn,
		client:      protocol.ClientDispatcher(conn),
		enc:         document.UTF16,
		settings:    defaultSettings(),
		open:        map[uri.URI]*document.File{},
		store:       schemas.NewStore(),
		diskSchemas: map[string]bool{},
		exitCh:      make(chan struct{}),
	}
	s.traceLevel.Store(protocol.TraceValueOff)
	s.diag = newDiagnoser(s)
	return s
}

// goBackground runs f on a goroutine that Serve waits for before returning.
func (s *server) goBackground(f func(ctx context.Context)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in background task", "panic", r)
			}
		}()
		f(s.ctx)
	}()
}

// stopBackground cancels background work and waits briefly for it: exit
// must be prompt, and the work holds nothing that needs flushing.
func (s *server) stopBackground() {
	s.cancel()
	done := make(chan struct{})
	go func() { s.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(300 * time.Millisecond):
		s.log.Debug("background work still running at exit")
	}
}

// snapshot returns the file and schema store to analyse uri with; both are
// immutable, so the caller may use them without holding the lock.
func (s *server) snapshot(uri uri.URI) (*document.File, *schemas.Store, Settings, document.Encoding, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open[uri], s.store, s.settings, s.enc, s.schemasReady
}

func (s *server) crossplaneMajor() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.major
}

// trace sends $/logTrace for incoming messages when the client asked for it.
func (s *server) trace(method string, isCall bool) {
	level, _ := s.traceLevel.Load().(protocol.TraceValue)
	if level == protocol.TraceValueOff || level == "" || method == protocol.MethodSetTrace || method == protocol.MethodExit {
		return
	}
	kind := "notification"
	if isCall {
		kind = "request"
	}
	params := &protocol.LogTraceParams{Message: "received " + kind + " " + method}
	if level == protocol.TraceValueVerbose {
		v := "crd-lsp handled " + method
		params.Verbose = &v
	}
	go func() { _ = s.conn.Notify(s.ctx, protocol.MethodLogTrace, params) }()
}

func (s *server) SetTrace(ctx context.Context, params *protocol.SetTraceParams) error {
	s.traceLevel.Store(params.Value)
	return nil
}
