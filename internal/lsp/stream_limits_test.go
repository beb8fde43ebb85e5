package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestOversizeFrames: messages over the frame limit are not read into
// memory, yet not dropped without a word: a didOpen (whatever the order
// of its fields) becomes a note that the document is open and too large,
// a request gets an error response, anything else is skipped.
func TestOversizeFrames(t *testing.T) {
	text := strings.Repeat("k: v\n", 1000)
	input := strings.Join([]string{
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"` + strings.ReplaceAll(text, "\n", `\n`) + `","uri":"file:///big.yaml","languageId":"yaml","version":3}}}`),
		frame(`{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`),
		frame(`{"jsonrpc":"2.0","method":"crd-lsp/whatever","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`),
		frame(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`),
	}, "")
	out := &rwc{Reader: strings.NewReader(input)}
	s := newResilientStream(out, slog.New(slog.DiscardHandler))
	s.maxFrame = 1024
	msg, _, err := s.Read(context.Background())
	n, ok := msg.(*jsonrpc2.Notification)
	if err != nil || !ok || n.Method() != methodOverLimit {
		t.Fatalf("oversize didOpen read as %#v, %v", msg, err)
	}
	var p overLimitParams
	if err := json.Unmarshal(n.Params(), &p); err != nil || p.URI != "file:///big.yaml" || p.Version != 3 || p.Limit != 1024 || p.Bytes < 5000 {
		t.Errorf("params %+v (%v)", p, err)
	}
	msg, _, err = s.Read(context.Background())
	if c, ok := msg.(*jsonrpc2.Call); err != nil || !ok || c.Method() != "shutdown" {
		t.Fatalf("after the oversize request and notification: %#v, %v", msg, err)
	}
	if got := out.out.String(); !strings.Contains(got, `"id":7`) || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "over the 1024 byte message limit") {
		t.Errorf("response to the oversize request: %q", got)
	}
}

// TestOversizeDidOpenIsReported: through the server, a document the
// editor opened in a message over the limit gets the diagnostic that it
// was not analysed.
func TestOversizeDidOpenIsReported(t *testing.T) {
	serverEnd, clientEnd := net.Pipe()
	go func() { _ = Serve(context.Background(), serverEnd, Options{maxFrame: 4096}) }()
	var mu sync.Mutex
	var published []protocol.PublishDiagnosticsParams
	got := make(chan struct{}, 16)
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd), jsonrpc2.WithCodec(Codec{}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := protocol.Unmarshal(req.Params(), &p); err == nil {
				mu.Lock()
				published = append(published, p)
				mu.Unlock()
				got <- struct{}{}
			}
		}
		return nil, nil
	})
	t.Cleanup(func() { _ = conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	_ = conn.Notify(ctx, "initialized", map[string]any{})
	if err := conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///big.yaml", "languageId": "yaml", "version": 1, "text": strings.Repeat("k: v\n", 2000)}}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatalf("no diagnostics for the oversize document: %+v", published)
		}
		mu.Lock()
		last := published[len(published)-1]
		mu.Unlock()
		if last.URI != "file:///big.yaml" || len(last.Diagnostics) != 1 {
			continue
		}
		if m := string(last.Diagnostics[0].Message.(protocol.String)); !strings.Contains(m, "the editor sent it in a message of 11.9 KiB, over the 4096 bytes limit of one message") {
			t.Errorf("diagnostic %q", m)
		}
		return
	}
}
