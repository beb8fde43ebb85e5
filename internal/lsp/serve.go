// Package lsp is crd-lsp's Language Server Protocol layer: the only package
// that knows LSP and JSON-RPC types. It owns the session (open files,
// workspace folders, settings, the schema snapshot), turns protocol requests
// into calls on internal/analysis, converts the plain results back, and
// publishes diagnostics.
//
// One file per LSP method family; conversions between byte spans and LSP
// positions go through document.Mapper with the negotiated encoding only.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Options configure a server.
type Options struct {
	// Logger receives the server's log; nil discards it. The server never
	// writes logs to the LSP stream.
	Logger *slog.Logger
	// Version is reported in serverInfo.
	Version string
	// DiagnosticsDelay is how long the server waits after the last change
	// before it computes diagnostics (later edits cancel earlier work).
	// Zero means the default, 15ms.
	DiagnosticsDelay time.Duration

	maxFrame int // tests: a smaller message limit
}

// exitGrace is how long Serve waits for running requests once the session
// is over (exit, stdin closed, or the context cancelled).
const exitGrace = 200 * time.Millisecond

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// before shutdown; the process should then exit with status 1.
var ErrExitWithoutShutdown = errors.New("exit received before shutdown")

const (
	codeServerNotInitialized = -32002
	codeInvalidRequest       = -32600
)

// Serve speaks LSP over rwc until the client sends exit or closes the
// stream. It returns nil after shutdown+exit, ErrExitWithoutShutdown for an
// exit without shutdown, and the stream's error (io.EOF included) when the
// peer went away.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DiagnosticsDelay <= 0 {
		opts.DiagnosticsDelay = 15 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	stream := newResilientStream(rwc, opts.Logger)
	if opts.maxFrame > 0 {
		stream.maxFrame = opts.maxFrame
	}
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(Codec{}))
	s := newServer(ctx, opts, conn)
	s.streamToken = stream.token
	conn.Go(ctx, s.cancellation(s.handle(protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler))))

	select {
	case <-conn.Done():
	case <-stream.ended:
		// The client is gone (stdin closed; the stream reads ahead of the
		// handlers, so this is seen at once). What it sent last is handled
		// if that is quick (shutdown and exit, then the end of input);
		// requests still running, documents still being parsed and
		// analyses are abandoned after exitGrace: nobody is left to read
		// their answers.
		select {
		case <-conn.Done():
		case <-s.exitCh:
		case <-time.After(exitGrace):
		}
		cancel()
		select {
		case <-conn.Done():
		case <-time.After(exitGrace):
			s.log.Info("requests still running when the client went away; not waiting for them")
		}
	case <-s.exitCh:
		// A blocked read of stdin cannot be interrupted on every platform;
		// after exit, give the connection a moment to wind down, no more.
		select {
		case <-conn.Done():
		case <-time.After(exitGrace):
		}
	case <-ctx.Done():
		go func() { _ = conn.Close() }() // Close waits for running requests
		select {
		case <-conn.Done():
		case <-time.After(exitGrace):
		}
	}
	s.stopBackground()
	s.fns.close() // (after an exit without shutdown, or the client gone)
	switch {
	case s.exited.Load() && s.shutdownDone.Load():
		return nil
	case s.exited.Load():
		return ErrExitWithoutShutdown
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return io.EOF
}

// panicProbe lets this package's tests prove that a panicking handler is
// recovered; it is never set outside tests.
var panicProbe = false

const panicProbeMethod = "crd-lsp/test/panic"

// blockProbe, when set by this package's tests, makes blockProbeMethod
// block until release is closed, whatever its context says (started is
// signalled first): a request that is still running when the client goes.
var blockProbe atomic.Pointer[struct{ release, started chan struct{} }]

const blockProbeMethod = "crd-lsp/test/block"

// Notifications are handled in wire order on the read goroutine, so that
// document state changes in the order the client sent it; their handlers
// never call the client synchronously (that would wait on the very reader
// they block).

// handle wraps the protocol dispatcher with the lifecycle rules, request
// ordering and panic recovery.
func (s *server) handle(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := req.Method()
		if req.IsCall() {
			// Every request runs detached from the read loop: the client
			// waits for the answers that order matters for (initialize,
			// shutdown). Notifications run in wire order.
			jsonrpc2.Async(ctx)
		}
		method = strings.Clone(method)
		s.workStart(true)
		defer s.workDone()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in LSP handler", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "crd-lsp: internal error while handling %s: %v", method, r)
			}
		}()
		s.trace(method, req.IsCall())
		if panicProbe && method == panicProbeMethod {
			panic("panic probe")
		}
		if bp := blockProbe.Load(); bp != nil && method == blockProbeMethod {
			bp.started <- struct{}{}
			<-bp.release // ignores ctx on purpose: a request that never ends
			return nil, nil
		}
		if method != protocol.MethodInitialize && method != protocol.MethodExit && !s.initialized.Load() {
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(codeServerNotInitialized, "crd-lsp: %s before initialize", method)
			}
			return nil, nil
		}
		if s.shutdownDone.Load() && method != protocol.MethodExit && req.IsCall() {
			return nil, jsonrpc2.Errorf(codeInvalidRequest, "crd-lsp: %s after shutdown", method)
		}
		if !req.IsCall() && strings.HasPrefix(method, "$/") && method != protocol.MethodCancelRequest && method != protocol.MethodSetTrace {
			return nil, nil // optional notifications may be ignored
		}
		if strings.HasPrefix(method, internalPrefix) && !s.internal(req) {
			s.log.Warn("refusing a client message with one of the server's internal methods", "method", method)
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "crd-lsp: method not found: %s", method)
			}
			return nil, nil
		}
		if handled, err := s.syncMessage(ctx, method, req.Params()); handled {
			if err != nil {
				s.log.Warn("notification failed", "method", method, "error", err)
			}
			return nil, nil
		}
		result, err = next(ctx, req)
		err = invalidParams(method, err)
		if err != nil && !req.IsCall() {
			// Notifications get no reply; an unknown one is simply ignored.
			if !errors.Is(err, jsonrpc2.ErrMethodNotFound) {
				s.log.Warn("notification failed", "method", method, "error", err)
			}
			return nil, nil
		}
		return result, err
	}
}

// internal reports whether req is a notification the server's stream made
// itself (it carries the stream's token), not one from the client.
func (s *server) internal(req *jsonrpc2.Request) bool {
	var p struct {
		Token string `json:"token"`
	}
	return !req.IsCall() && s.streamToken != "" && json.Unmarshal(req.Params(), &p) == nil && p.Token == s.streamToken
}
