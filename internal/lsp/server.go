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

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
)

// server implements protocol.Server. Methods it does not implement answer
// MethodNotFound through UnimplementedServer.
type server struct {
	protocol.UnimplementedServer

	// kubeNote is the last note on the Kubernetes minor shown (under mu;
	// kubernetes_version.go).
	kubeNote string

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
	// streamToken marks the messages the stream makes itself (see
	// internalPrefix).
	streamToken string

	mu       sync.Mutex
	enc      document.Encoding
	caps     clientCaps
	folders  []folder
	settings Settings
	// open are the open documents. The map is replaced, never written
	// (setOpenLocked), so that snapshots share it.
	open map[uri.URI]*document.File
	// world is the workspace as analysis sees it (internal/loader): the
	// schema stores of each Crossplane major in use, package metadata and
	// dependency outcomes, objects by kind and example composites, with
	// open buffers in place of their disk copies. nil until the first
	// load; immutable, replaced on every change.
	world *loader.World
	// seq numbers the states snapshots read: it grows with every change
	// to the world, the settings or an open document.
	seq     uint64
	scanGen int
	reloads reloads
	watched watched
	// fileProblems are the workspace files that were not read, and why
	// (see file_problems.go).
	fileProblems map[string]fileProblem

	diag *diagnoser
	bg   sync.WaitGroup
	// fns owns the composition functions the server runs (functions.go).
	fns  fnRuntime
	work work // see idle.go

	pkgs pkgState
	srcs sourceRuns // the schema sources' refresher (sources.go)
	// symbols caches what workspace/symbol found in files on disk
	// (symbol_cache.go); handlers reach it through their snapshot.
	symbols *symbolCache
}

type clientCaps struct {
	configuration  bool
	watchedDynamic bool
	snippets       bool
	progress       bool // window/workDoneProgress/create and $/progress
}

type folder struct {
	uri  uri.URI
	path string
}

func newServer(ctx context.Context, opts Options, conn jsonrpc2.Conn) *server {
	ctx, cancel := context.WithCancel(ctx)
	s := &server{
		ctx:      ctx,
		cancel:   cancel,
		opts:     opts,
		log:      opts.Logger,
		conn:     conn,
		client:   protocol.ClientDispatcher(conn),
		enc:      document.UTF16,
		settings: defaultSettings(),
		open:     map[uri.URI]*document.File{},
		exitCh:   make(chan struct{}),
		symbols:  newSymbolCache(),
	}
	s.traceLevel.Store(protocol.TraceValueOff)
	s.diag = newDiagnoser(s)
	s.fns.s = s
	s.pkgs.index = loader.NewPackageIndex(func(path string) {
		if hook := testIndexHook.Load(); hook != nil {
			(*hook)(path)
		}
	})
	return s
}

// goBackground runs f on a goroutine that Serve waits for before returning.
func (s *server) goBackground(f func(ctx context.Context)) {
	s.bg.Add(1)
	s.workStart(false)
	go func() {
		defer s.bg.Done()
		defer s.workDone()
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

// snapshot is what a request or a diagnosis of one document reads: its
// parsed version, the world, the settings, the position encoding, the
// other open documents, the workspace folders and whether the registries
// were asked for the packages, as of one state of the session (seq).
// Everything in it is immutable, so it is read without holding the
// session's lock. It is a handler's only door to the session's state: a
// handler reads sn, never the server's fields.
type snapshot struct {
	seq      uint64
	file     *document.File // nil when the document is not open
	world    *loader.World  // nil until the workspace is loaded
	settings Settings
	enc      document.Encoding
	caps     clientCaps
	// open are the open documents (shared with the session, which
	// replaces the map on every change: never written).
	open map[uri.URI]*document.File
	// roots are the workspace folders' paths.
	roots []string
	// refreshed: the registries were asked for the packages since the
	// last load (until then, "not in the cache" is not news).
	refreshed bool
	// pipeline runs Composition pipelines with real functions; only
	// snapshotWithFunctions sets it (diagnostics, crdLsp.render): other
	// requests never wait for a function.
	pipeline analysis.Pipeline
	// symbols is the server's cache of workspace/symbol's files on disk
	// (not session state: its entries are checked against the disk).
	symbols *symbolCache
}

// snapshot takes the session's current state for u.
func (s *server) snapshot(u uri.URI) snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	roots := make([]string, len(s.folders))
	for i, f := range s.folders {
		roots[i] = f.path
	}
	return snapshot{seq: s.seq, file: s.open[u], world: s.world, settings: s.settings, enc: s.enc, caps: s.caps, open: s.open, roots: roots, refreshed: s.pkgs.refreshed, symbols: s.symbols}
}

// setOpenLocked records f as the open document u (nil: closed) in a new
// map: snapshots keep the one they took. s.mu is held.
func (s *server) setOpenLocked(u uri.URI, f *document.File) {
	open := make(map[uri.URI]*document.File, len(s.open)+1)
	for k, v := range s.open {
		if k != u {
			open[k] = v
		}
	}
	if f != nil {
		open[u] = f
	}
	s.open = open
}

// ready reports whether the workspace (its schemas and cached packages)
// is loaded: until then nothing that depends on it is published.
func (sn snapshot) ready() bool { return sn.world != nil }

// path is the file path of the snapshot's document.
func (sn snapshot) path() string {
	if sn.file == nil {
		return ""
	}
	return document.FilePath(sn.file.URI)
}

// env is the one builder of the server's analysis.Env: the world's
// stores, Crossplane version and example composites for the document's
// path, with the settings' analysis options, and the function pipeline
// when the snapshot carries one (snapshotWithFunctions). Before the workspace is
// loaded it is empty: analysis then reports only what depends on nothing
// (syntax, apiVersion/kind, a CRD's own rules).
func (sn snapshot) env() analysis.Env { return sn.envFor(sn.path()) }

// envFor is env for another file of the workspace (one read from disk).
func (sn snapshot) envFor(path string) analysis.Env {
	if sn.world == nil {
		return analysis.Env{}
	}
	a := sn.settings.analysis()
	a.Pipeline = sn.pipeline
	return sn.world.EnvWith(path, a)
}

// changedLocked records a change of the session's state. s.mu is held.
func (s *server) changedLocked() { s.seq++ }

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
	params := &protocol.LogTraceParams{Message: printable("received " + kind + " " + method)}
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
