package lsp

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// rawClient speaks JSON-RPC without the LSP handshake.
func rawClient(t *testing.T) (jsonrpc2.Conn, chan error) {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), serverEnd, Options{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd), jsonrpc2.WithCodec(Codec{}))
	conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	t.Cleanup(func() { _ = conn.Close() })
	return conn, done
}

func TestRequestBeforeInitialize(t *testing.T) {
	conn, _ := rawClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := conn.Call(ctx, "textDocument/hover", map[string]any{}, nil)
	var werr *jsonrpc2.Error
	if err == nil || !asRPC(err, &werr) || werr.Code != codeServerNotInitialized {
		t.Fatalf("hover before initialize: %v, want code %d", err, codeServerNotInitialized)
	}
}

func TestPanicIsRecovered(t *testing.T) {
	panicProbe = true
	defer func() { panicProbe = false }()
	conn, _ := rawClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := conn.Call(ctx, panicProbeMethod, map[string]any{}, nil)
	var werr *jsonrpc2.Error
	if err == nil || !asRPC(err, &werr) || werr.Code != jsonrpc2.InternalError || !strings.Contains(werr.Message, "panic probe") {
		t.Fatalf("panicking request: %v, want InternalError", err)
	}
	// Still alive.
	if _, err := conn.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown after a panic: %v", err)
	}
}

func asRPC(err error, target **jsonrpc2.Error) bool {
	for err != nil {
		if e, ok := err.(*jsonrpc2.Error); ok {
			*target = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestSnippetEscape(t *testing.T) {
	if got := snippetEscape(`a$b}c\d`); got != `a\$b\}c\\d` {
		t.Errorf("snippetEscape = %q", got)
	}
}

// TestCapDiagnosticsKeepsHintsApart: hints (which check does not print)
// are capped apart from the other findings, so a line crowded with hints
// still shows the error check shows there.
func TestCapDiagnosticsKeepsHintsApart(t *testing.T) {
	var in []analysis.Diagnostic
	for range 3 * analysis.MaxPerLine {
		in = append(in, analysis.Diagnostic{Severity: severity.Hint, Code: "hint", Message: "h"})
	}
	in = append(in, analysis.Diagnostic{Span: document.Span{Start: 1, End: 2}, Severity: severity.Error, Code: "err", Message: "e"})
	out := capDiagnostics(in, func(int) int { return 0 })
	errs, hints := 0, 0
	for _, d := range out {
		switch d.Severity {
		case severity.Error:
			errs++
		case severity.Hint:
			hints++
		}
	}
	if errs != 1 || hints != analysis.MaxPerLine+1 {
		t.Errorf("%d errors and %d hints (summary included) published, want 1 and %d", errs, hints, analysis.MaxPerLine+1)
	}
}
