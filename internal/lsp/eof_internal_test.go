package lsp

import (
	"context"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// TestEOFWithRequestInFlight: when the client closes the stream while a
// request is still running (one that does not even look at its context),
// Serve returns promptly instead of waiting for it.
func TestEOFWithRequestInFlight(t *testing.T) {
	bp := &struct{ release, started chan struct{} }{make(chan struct{}), make(chan struct{}, 1)}
	blockProbe.Store(bp)
	t.Cleanup(func() { close(bp.release); blockProbe.Store(nil) })

	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), serverEnd, Options{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd), jsonrpc2.WithCodec(Codec{}))
	conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = conn.Call(context.Background(), blockProbeMethod, map[string]any{}, nil) }()
	select {
	case <-bp.started:
	case <-ctx.Done():
		t.Fatal("the blocking request never started")
	}
	_ = clientEnd.Close() // the editor dies: stdin closes
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Serve = nil after the client vanished, want io.EOF")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running 5s after the client closed the stream with a request in flight")
	}
}
