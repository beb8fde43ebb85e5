package lspclient

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// A fake server on pipes: it answers initialize, asks the client for its
// configuration, and publishes what the client answered.
func fakeServer(t *testing.T, r io.Reader, w io.Writer) {
	br := bufio.NewReader(r)
	for {
		b, err := ReadMessage(br)
		if err != nil {
			return
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("client sent invalid JSON %q", b)
			return
		}
		switch m.Method {
		case "initialize":
			_ = WriteMessage(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"capabilities": map[string]any{}}})
			_ = WriteMessage(w, map[string]any{"jsonrpc": "2.0", "id": "cfg", "method": "workspace/configuration", "params": map[string]any{"items": []any{map[string]any{"section": "crdLsp"}}}})
		case "":
			// The client's answer to workspace/configuration.
			_ = WriteMessage(w, map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"message": string(m.Result)}})
		case "boom":
			_ = WriteMessage(w, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32600, "message": "no"}})
		}
	}
}

func TestConn(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go fakeServer(t, sr, sw)
	c := NewConn(cr, cw, func(method string, params json.RawMessage) (any, error) {
		if method != "workspace/configuration" {
			t.Errorf("request %s", method)
		}
		return []any{map[string]any{"unknownKind": "error"}}, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := c.Call(ctx, "initialize", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Capabilities == nil {
		t.Error("result not decoded")
	}
	select {
	case n := <-c.Notifications():
		var p struct{ Message string }
		_ = json.Unmarshal(n.Params, &p)
		if n.Method != "window/logMessage" || p.Message != `[{"unknownKind":"error"}]` {
			t.Errorf("got %s %s, want the configuration answer echoed", n.Method, n.Params)
		}
		if n.At.IsZero() {
			t.Error("no arrival time")
		}
	case <-ctx.Done():
		t.Fatal("no notification")
	}
	if err := c.Call(ctx, "boom", nil, nil); err == nil || err.Error() != "boom: -32600: no" {
		t.Errorf("error = %v", err)
	}
	cw.Close()
	sw.Close()
	testfixtures.Await(t, c.Done(), "the connection to end once both pipes closed")
}

func TestReadProc(t *testing.T) {
	p := ReadProc(os.Getpid())
	if !p.Valid {
		t.Skip("no /proc")
	}
	if p.RSS <= 0 || p.HWM < p.RSS {
		t.Errorf("RSS %d, HWM %d", p.RSS, p.HWM)
	}
}
