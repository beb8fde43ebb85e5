package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/fuzztest"
)

// FuzzStream: the framing layer reads any byte stream to its end without
// panicking, yielding at most one message per byte, and only messages
// that are JSON-RPC.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		"Content-Length: 5\r\n\r\n{}{}{" + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		"content-length:  12 \r\nX: y\r\n\r\n{\"a\":[1,2]}\n",
		"Content-Length: 999999999999\r\n\r\n{",
		"Content-Length: 70000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///a\",\"version\":1,\"text\":\"",
		"\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzStream)
}

func fuzzStream(t *testing.T, data []byte) {
	{
		s := newResilientStream(&rwc{Reader: bytes.NewReader(data)}, slog.New(slog.DiscardHandler))
		for n := 0; ; n++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				return
			}
			if msg == nil {
				t.Fatal("nil message without an error")
			}
			if n > len(data) {
				t.Fatalf("more messages (%d) than bytes (%d)", n, len(data))
			}
		}
	}
}

// FuzzScanFrame: the scanner for messages over the frame limit ends on
// any input.
func FuzzScanFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":[{"text":"x\"y"}],"textDocument":{"version":7,"uri":"file:///a.yaml"}}}`))
	f.Add([]byte(`{"id":"a\u0022b","method":"x","params":[[[[[[[]]]]]],{"":""},-1.5e3,true,null]}`))
	f.Fuzz(fuzzScanFrame)
}

func fuzzScanFrame(t *testing.T, data []byte) {
	info := scanFrame(bufio.NewReader(bytes.NewReader(data)))
	if len(info.id) > maxScalar {
		t.Fatalf("id of %d bytes kept", len(info.id))
	}
}

// discardRWC is a server end whose input is fixed and whose output is
// thrown away.
type discardRWC struct {
	io.Reader
	mu sync.Mutex
}

func (d *discardRWC) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardRWC) Close() error                { return nil }

// FuzzServe: the whole dispatch path — framing, lifecycle, cancellation,
// every method's parameter decoding and handler — given an initialize
// request and then any input, never panics the process and ends when the
// input does.
func FuzzServe(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/a.yaml","languageId":"yaml","version":1,"text":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: 1}\n"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.yaml"},"position":{"line":3,"character":9}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///w/a.yaml"},"position":{"line":99,"character":-1}}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"x":1}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.yaml","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"text":"- - - -"}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"crdLsp.render","arguments":["file:///w/a.yaml",0,"/dev/zero"]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`,
	} {
		f.Add([]byte(frame(body)))
	}
	f.Fuzz(fuzzServe)
}

func fuzzServe(t *testing.T, data []byte) {
	{
		init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"capabilities": map[string]any{}, "initializationOptions": map[string]any{"cacheDir": t.TempDir()}}})
		// (Without "initialized" no schemas load, unless the input sends
		// it: many more inputs per second.)
		input := append([]byte(frame(string(init))), data...)
		done := make(chan error, 1)
		go func() { done <- Serve(context.Background(), &discardRWC{Reader: bytes.NewReader(input)}, Options{}) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Serve still running 20s after its input ended:\n%q", data)
		}
	}
}

// TestFuzzMutations runs the fuzz targets on mutations of their corpus
// for a bounded time (see internal/fuzztest).
func TestFuzzMutations(t *testing.T) {
	t.Run("FuzzStream", func(t *testing.T) { fuzztest.Mutate(t, "FuzzStream", fuzzStream) })
	t.Run("FuzzScanFrame", func(t *testing.T) { fuzztest.Mutate(t, "FuzzScanFrame", fuzzScanFrame) })
	t.Run("FuzzServe", func(t *testing.T) { fuzztest.Mutate(t, "FuzzServe", fuzzServe) })
}
