package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
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

// peaks samples the process's goroutines and live heap until stop is
// closed, keeping the highest of each.
type peaks struct {
	goroutines, heap uint64
	done             chan struct{}
}

func samplePeaks(stop <-chan struct{}) *peaks {
	p := &peaks{done: make(chan struct{})}
	s := []metrics.Sample{{Name: "/sched/goroutines:goroutines"}, {Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			p.goroutines = max(p.goroutines, s[0].Value.Uint64())
			p.heap = max(p.heap, s[1].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// signalHandler is a slog handler that closes a channel on the first
// record whose message has a prefix.
type signalHandler struct {
	prefix string
	once   *sync.Once
	ch     chan struct{}
}

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.prefix) {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// A client that sends 1,000 calls (32 KiB each, 32 MiB in all) over real
// pipes without reading a single answer: the server takes at most
// mcp.MaxPending unanswered, then stops reading its input (the pipe's buffer holds the rest, the client's
// writes block), with goroutines and heap bounded; once the client reads,
// every call is answered, in full; once its input ends, Serve returns.
// Before the bound the SDK read every call (its handler queue is an
// unbounded slice) and ran a goroutine per call, each holding its answer.
func TestClientThatSendsWithoutReading(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close(); inR.Close(); outW.Close() })
	stalled := make(chan struct{})
	log := slog.New(signalHandler{prefix: "input paused", once: new(sync.Once), ch: stalled})

	runtime.GC()
	base := samplePeaks(closedChan())
	<-base.done
	stop := make(chan struct{})
	peak := samplePeaks(stop)

	done := make(chan error, 1)
	go func() {
		done <- mcp.Serve(context.Background(), inR, outW, mcp.Options{Root: quickstart, Version: "test", Logger: log})
	}()
	const n, size = 1000, 32 << 10
	pad := strings.Repeat("x", size-200)
	written := make(chan struct{})
	var sent atomic.Int64
	go func() {
		defer close(written)
		w := bufio.NewWriter(inW)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"validate","arguments":{"text":"# %s\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n"}}}`+"\n", i+1, pad)
			if w.Flush() != nil {
				return
			}
			sent.Add(1)
		}
	}()
	select {
	case <-stalled:
		t.Logf("the server paused its input with %d calls sent", sent.Load())
	case <-written:
		close(stop)
		<-peak.done
		t.Fatalf("the server read all %d calls (%d MiB) with none of its answers read: peak %d goroutines (%d before), live heap %d MiB (%d before)", n, n*size>>20, peak.goroutines, base.goroutines, peak.heap>>20, base.heap>>20)
	}
	// Read every answer: the calls waiting in the pipe are taken as the
	// answers go out.
	out := bufio.NewReaderSize(outR, 1<<20)
	seen := make(map[string]bool, n+1)
	var first string
	for len(seen) < n+1 {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(seen), err)
		}
		var a rpcAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("the server wrote %q: %v", line, err)
		}
		if a.ID == nil {
			continue
		}
		if a.Error != nil || a.Result == nil {
			t.Fatalf("call %s: %+v", a.ID, a.Error)
		}
		if string(a.ID) == "1" {
			first = string(a.Result)
		} else if first != "" && string(a.ID) != "0" && string(a.Result) != first {
			t.Fatalf("call %s answered differently from call 1:\n%s\n%s", a.ID, a.Result, first)
		}
		seen[string(a.ID)] = true
	}
	<-written
	close(stop)
	<-peak.done
	t.Logf("%d calls answered; peak %d goroutines (%d before), live heap %d MiB (%d before)", n, peak.goroutines, base.goroutines, peak.heap>>20, base.heap>>20)
	if grew := peak.goroutines - base.goroutines; grew > mcp.MaxPending+32 {
		t.Errorf("goroutines grew by %d with %d calls pending (bound %d)", grew, n, mcp.MaxPending)
	}
	if grew := int64(peak.heap) - int64(base.heap); grew > 64<<20 {
		t.Errorf("live heap grew by %d MiB", grew>>20)
	}
	// The input ends: the server ends.
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not return within 30 s of its input ending")
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// A client that gives every call the same id, sending the next as soon as
// it has read the answer (JSON-RPC allows it: the id is free once
// answered): every call is answered, none taken for a duplicate although
// the server frees an id only once its answer is written.
func TestSameIDReused(t *testing.T) {
	s := serveRaw(t, quickstart)
	s.initialize(t)
	for i := range 500 {
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if a := s.next(t); string(a.ID) != "1" || a.Error != nil {
			t.Fatalf("ping %d: id %s %+v", i, a.ID, a.Error)
		}
	}
}
