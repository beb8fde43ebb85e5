package lsp

import (
	"context"
	"fmt"
	"net"
	"strings"
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

// TestEOFWhileANotificationIsHandled: when the client goes while a
// notification is still being handled on the read loop (a large didOpen
// being parsed) and more of its messages wait behind it, Serve returns
// promptly: the end of input is seen ahead of the handlers, and what
// waits is abandoned.
func TestEOFWhileANotificationIsHandled(t *testing.T) {
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
	if err := conn.Notify(ctx, blockProbeMethod, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-bp.started:
	case <-ctx.Done():
		t.Fatal("the blocking notification never started")
	}
	// More work queued behind it: documents to parse and analyse.
	text := strings.Repeat("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n", 20_000)
	sent := make(chan error, 1)
	go func() {
		for i := range 3 {
			p := map[string]any{"textDocument": map[string]any{"uri": fmt.Sprintf("file:///tmp/big%d.yaml", i), "languageId": "yaml", "version": 1, "text": text}}
			if err := conn.Notify(ctx, "textDocument/didOpen", p); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatalf("sending the documents: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server read none of the documents sent while a notification was handled")
	}
	_ = clientEnd.Close() // the editor dies: stdin closes
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Serve = nil after the client vanished, want io.EOF")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running 5s after the client closed the stream while a notification was handled")
	}
}
