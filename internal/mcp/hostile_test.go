package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/mcp"
)

// rawSession is an MCP client speaking newline-delimited JSON-RPC to
// mcp.Serve over pipes, as an agent's stdio does, so tests can send what
// the SDK's client never would.
type rawSession struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	outR *io.PipeReader
}

func serveRaw(t *testing.T, root string) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1), outR: outR}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		s.done <- mcp.Serve(ctx, inR, outW, mcp.Options{Root: root, Version: "test"})
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return s
}

func (s *rawSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("writing to the server: %v", err)
	}
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next reads the server's next answer (notifications skipped).
func (s *rawSession) next(t *testing.T) rpcAnswer {
	t.Helper()
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading the server's answer: %v (server: %v)", err, s.ended())
		}
		var a rpcAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("the server wrote %q: %v", line, err)
		}
		if a.ID == nil {
			continue
		}
		return a
	}
}

func (s *rawSession) ended() error {
	select {
	case err := <-s.done:
		return fmt.Errorf("the server stopped: %v", err)
	default:
		return nil
	}
}

func (s *rawSession) initialize(t *testing.T) {
	t.Helper()
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`)
	if a := s.next(t); a.Error != nil {
		t.Fatalf("initialize: %+v", a.Error)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
}

const validateCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"validate","arguments":{"text":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n"}}}`

// A line that is not a JSON-RPC message is answered with an error (with
// its id when one can be read) and the session goes on: the SDK alone
// ended the session on the first one, answering nothing.
func TestMalformedJSONRPC(t *testing.T) {
	s := serveRaw(t, quickstart)
	s.initialize(t)
	go func() { // io.Pipe has no buffer: the answers are read meanwhile
		for _, line := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `not json at all`, `[]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "\x00\xff", `{"jsonrpc":"1.0","id":"two","method":"tools/list"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"validate","arguments":"x"}}`, fmt.Sprintf(validateCall, 7)} {
			if _, err := io.WriteString(s.in, line+"\n"); err != nil {
				return
			}
		}
	}()
	var ids []string
	for {
		a := s.next(t)
		if string(a.ID) == "7" {
			if a.Error != nil || a.Result == nil {
				t.Fatalf("the call after the malformed lines failed: %+v", a.Error)
			}
			break
		}
		if string(a.ID) == "3" {
			if !strings.Contains(string(a.Result), `"isError":true`) && a.Error == nil {
				t.Errorf("a validate call with arguments \"x\" succeeded: %s", a.Result)
			}
		} else if a.Error == nil {
			t.Errorf("malformed message %s answered without an error: %s", a.ID, a.Result)
		} else if !strings.Contains(a.Error.Message, "crd-lsp mcp:") && string(a.ID) != "3" {
			t.Errorf("answer to %s does not name crd-lsp: %q", a.ID, a.Error.Message)
		}
		ids = append(ids, string(a.ID))
	}
	if got, want := strings.Join(ids, " "), `1 null null null null "two" 3`; got != want {
		t.Errorf("answered %s, want %s", got, want)
	}
}

// A tool call of 200 MB (the YAML text of a validate) is refused with a
// message as it streams past, never buffered (the SDK alone buffered
// 16 MiB then ended the session without an answer); the next call is
// answered.
func TestHugeToolArgument(t *testing.T) {
	s := serveRaw(t, quickstart)
	s.initialize(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const size = 200 << 20
	answered := make(chan struct{})
	go func() {
		if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"validate","arguments":{"text":"`); err != nil {
			return
		}
		chunk := []byte(strings.Repeat(`k: v\n`, (1<<20)/6))
		for n := 0; n < size; n += len(chunk) {
			if _, err := s.in.Write(chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(s.in, "\"}}}\n")
		<-answered
		_, _ = io.WriteString(s.in, fmt.Sprintf(validateCall, 10)+"\n")
	}()
	a := s.next(t)
	if string(a.ID) != "9" || a.Error == nil || !strings.Contains(a.Error.Message, "over 16 MiB, crd-lsp mcp's limit for one message") {
		t.Fatalf("answer to the 200 MB call: id %s %+v", a.ID, a.Error)
	}
	runtime.ReadMemStats(&after)
	close(answered)
	if a := s.next(t); string(a.ID) != "10" || a.Error != nil {
		t.Fatalf("the call after the 200 MB one: id %s %+v", a.ID, a.Error)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a 200 MB message allocated %d MiB", grew>>20)
	}
}

// Thirty-two calls sent at once are all answered, each as if alone.
func TestConcurrentCalls(t *testing.T) {
	s := serveRaw(t, quickstart)
	s.initialize(t)
	const n = 32
	go func() {
		for i := range n {
			if _, err := io.WriteString(s.in, fmt.Sprintf(validateCall, 100+i)+"\n"); err != nil {
				return
			}
		}
	}()
	seen := map[string]string{}
	for range n {
		a := s.next(t)
		if a.Error != nil {
			t.Fatalf("call %s: %+v", a.ID, a.Error)
		}
		seen[string(a.ID)] = string(a.Result)
	}
	for i := range n {
		id := fmt.Sprint(100 + i)
		if r, ok := seen[id]; !ok {
			t.Errorf("call %s not answered", id)
		} else if r != seen["100"] {
			t.Errorf("call %s answered differently:\n%s\nwant\n%s", id, r, seen["100"])
		}
	}
}

// A client that sends calls and never reads the answers: once its input
// ends, Serve returns within its grace (it used to wait for ever on calls
// blocked writing their answers), and the calls held little memory.
func TestClientThatNeverReads(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // never read
	t.Cleanup(func() { outR.Close() })
	done := make(chan error, 1)
	go func() {
		done <- mcp.Serve(context.Background(), inR, outW, mcp.Options{Root: quickstart, Version: "test"})
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n")
		for i := range 200 {
			if _, err := io.WriteString(inW, fmt.Sprintf(validateCall, 1+i)+"\n"); err != nil {
				break
			}
		}
		inW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the server did not return within 30 s of its input ending, its answers unread")
	}
	runtime.ReadMemStats(&after)
	if after.HeapInuse > before.HeapInuse+256<<20 {
		t.Errorf("heap grew from %d to %d MiB", before.HeapInuse>>20, after.HeapInuse>>20)
	}
	_ = sync.Mutex{}
}
