// This file holds what stands between the client's stream and the SDK's
// transport: the SDK ends the session on the first line that is not a
// JSON-RPC message, and on a line over its buffer (16 MiB) without an
// answer; a client that never reads would keep Serve from returning; and
// the SDK reads every call it is sent into an unbounded queue
// (go-sdk v1.8.0 internal/jsonrpc2/conn.go acceptRequest: "We enqueue
// requests that have not been preempted to an unbounded slice"), then
// runs each in a goroutine of its own (mcp/server.go handle calls
// jsonrpc2.Async for every call), each holding its answer until the
// client reads it: a client that sends without reading held one
// goroutine and one answer per call sent.

package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxMessage bounds one message from the client (a line of
// newline-delimited JSON-RPC). Past it, the rest of a message is skipped
// as it streams past, never buffered, and its request answered with an
// error.
const MaxMessage = 16 << 20

// MaxPending bounds the calls passed to the SDK and not yet answered
// (their answers not yet written whole to the client). With that many
// pending, or MaxPendingBytes of them, the filter stops reading the
// client's input until one is answered: a client that sends without
// reading finds its writes blocking once the pipe between them is full,
// and the server holds at most MaxPending calls, their goroutines and
// answers. No call is refused for it: a client that reads gets every
// answer.
const MaxPending = 16

// MaxPendingBytes bounds the bytes of the calls pending (one call of up
// to MaxMessage is always taken).
const MaxPendingBytes = 32 << 20

// lookahead is how much of the client's input is read ahead of the filter
// while it waits, so that the input's end is seen (and Serve ends) even
// when the calls before it are not taken: more than a pipe holds.
const lookahead = 256 << 10

// idPrefix is how much of a message too long to read is kept to find its
// id.
const idPrefix = 4 << 10

// lockedWriter serialises whole messages: the SDK writes one message per
// Write, and so does the filter's answers. An answer of the SDK's written
// (or failed) frees its call's place in the gate.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	gate *gate
}

// Write writes a message of the SDK's.
func (l *lockedWriter) Write(p []byte) (int, error) {
	n, err := l.write(p)
	if id, ok := answerID(p); ok {
		l.gate.answered(id)
	}
	if err != nil {
		l.gate.fail()
	}
	return n, err
}

func (l *lockedWriter) write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// gate counts the calls passed to the SDK and not yet answered, by id.
type gate struct {
	mu      sync.Mutex
	room    sync.Cond
	pending map[any]int // id → the call's size
	bytes   int
	broken  bool // the client's output failed: nothing waits any more
	log     func(pending, bytes int)
}

func newGate(log func(pending, bytes int)) *gate {
	g := &gate{pending: map[any]int{}, log: log}
	g.room.L = &g.mu
	return g
}

// admit waits for room for a call of size bytes, and for a call of the
// same id to be answered (the client may use an id again once it has the
// answer, which can be before the write returns here), then counts it.
func (g *gate) admit(id any, size int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	logged := false
	for !g.broken {
		_, dup := g.pending[id]
		if !dup && (len(g.pending) == 0 || len(g.pending) < MaxPending && g.bytes+size <= MaxPendingBytes) {
			break
		}
		if !logged && !dup && g.log != nil {
			g.log(len(g.pending), g.bytes)
			logged = true
		}
		g.room.Wait()
	}
	if _, dup := g.pending[id]; !dup {
		g.pending[id] = size
		g.bytes += size
	}
}

func (g *gate) answered(id any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if size, ok := g.pending[id]; ok {
		delete(g.pending, id)
		g.bytes -= size
		g.room.Broadcast()
	}
}

func (g *gate) fail() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.broken = true
	g.room.Broadcast()
}

// answerID is the id of a response (a message with a result or an error
// and no method), as jsonrpc.MakeID makes it. The SDK writes the id before
// the result, so a big answer is not decoded.
func answerID(msg []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var id any
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch k {
		case "method":
			return nil, false
		case "result", "error":
			if id == nil {
				return nil, false
			}
			return id, true
		case "id":
			var v any
			if dec.Decode(&v) != nil {
				return nil, false
			}
			made, err := jsonrpc.MakeID(v)
			if err != nil {
				return nil, false
			}
			id = made.Raw()
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
		}
	}
	return nil, false
}

// prefetch reads the client's input ahead of the filter, into a ring of
// lookahead bytes; ended is closed when the input ends.
type prefetch struct {
	mu       sync.Mutex
	cond     sync.Cond // data, room or the end
	buf      []byte
	start, n int
	err      error
	ended    chan struct{}
}

func newPrefetch(r io.Reader) *prefetch {
	p := &prefetch{buf: make([]byte, lookahead), ended: make(chan struct{})}
	p.cond.L = &p.mu
	go p.run(r)
	return p
}

func (p *prefetch) run(r io.Reader) {
	tmp := make([]byte, 32<<10)
	for {
		p.mu.Lock()
		for p.n == len(p.buf) {
			p.cond.Wait()
		}
		room := min(len(p.buf)-p.n, len(tmp))
		p.mu.Unlock()
		k, err := r.Read(tmp[:room])
		p.mu.Lock()
		end := (p.start + p.n) % len(p.buf)
		c := copy(p.buf[end:], tmp[:k])
		copy(p.buf, tmp[c:k])
		p.n += k
		if err != nil {
			p.err = err
			close(p.ended)
		}
		p.cond.Broadcast()
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (p *prefetch) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.n == 0 && p.err == nil {
		p.cond.Wait()
	}
	if p.n == 0 {
		return 0, p.err
	}
	k := copy(b[:min(len(b), p.n)], p.buf[p.start:min(len(p.buf), p.start+p.n)])
	p.start = (p.start + k) % len(p.buf)
	p.n -= k
	p.cond.Broadcast()
	return k, nil
}

// filter reads the client's lines and passes on only JSON-RPC messages
// (requests, notifications, responses) of at most MaxMessage bytes; the
// others are answered on out with a JSON-RPC error naming what was wrong.
// Calls wait at the gate for room before they are passed. ended is closed
// when the client's input ends, although calls before its end may still
// wait.
type filter struct {
	in    *bufio.Reader
	out   *lockedWriter
	gate  *gate
	ended chan struct{}
	pr    *io.PipeReader
	pw    *io.PipeWriter
}

func newFilter(in io.Reader, out *lockedWriter) *filter {
	pre := newPrefetch(in)
	f := &filter{in: bufio.NewReaderSize(pre, 64<<10), out: out, gate: out.gate, ended: pre.ended}
	f.pr, f.pw = io.Pipe()
	go f.run()
	return f
}

// Reader is what the SDK reads: the messages that passed.
func (f *filter) Reader() io.ReadCloser { return f.pr }

func (f *filter) run() {
	var line []byte
	for {
		chunk, err := f.in.ReadSlice('\n')
		over := len(line)+len(chunk) > MaxMessage
		if over {
			// Keep the start (for the id), drop the rest up to the newline.
			if len(line) < idPrefix {
				line = append(line, chunk[:min(len(chunk), idPrefix-len(line))]...)
			}
			for err == bufio.ErrBufferFull {
				chunk, err = f.in.ReadSlice('\n')
			}
			f.refuse(idOf(line), -32600, fmt.Sprintf("the message is over %d MiB, crd-lsp mcp's limit for one message: it was not read (validate a file by its path instead of its text)", MaxMessage>>20))
			line = nil
		} else {
			if len(line)+len(chunk) > cap(line) {
				// Doubling: a message of n bytes allocates about 2n
				// (append grows big slices by a quarter: about 5n).
				grown := make([]byte, len(line), min(max(2*cap(line), len(line)+len(chunk), 4<<10), MaxMessage))
				copy(grown, line)
				line = grown
			}
			line = append(line, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if msg := bytes.TrimSpace(line); len(msg) > 0 {
				f.pass(msg)
			}
			line = line[:0]
			if cap(line) > 1<<20 {
				line = nil // a big message's buffer is not kept
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			f.pw.Close()
			return
		}
	}
}

// pass hands a message on to the SDK, or answers it with an error when it
// is not one the SDK can read without ending the session.
func (f *filter) pass(msg []byte) {
	if msg[0] == '[' {
		f.refuse(nil, -32600, "JSON-RPC batches are not supported: send one message per line")
		return
	}
	if !json.Valid(msg) {
		f.refuse(idOf(msg), -32700, "parse error: the line is not JSON")
		return
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		f.refuse(idOf(msg), -32600, "invalid request: "+err.Error())
		return
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
		f.gate.admit(req.ID.Raw(), len(msg))
	}
	if _, err := f.pw.Write(append(msg, '\n')); err != nil {
		return // the SDK stopped reading
	}
}

// refuse answers a message that is not passed on; a notification (no id
// found) is answered with a null id, as JSON-RPC answers what it cannot
// read.
func (f *filter) refuse(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, "crd-lsp mcp: " + message}})
	if err != nil {
		return
	}
	_, _ = f.out.write(append(b, '\n'))
}

// idOf finds the top-level "id" of a message, whole or its start: a number
// or a string, or nil.
func idOf(msg []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var v any
		if dec.Decode(&v) != nil {
			return nil
		}
		switch v := v.(type) {
		case string, float64:
			b, _ := json.Marshal(v)
			return b
		}
		return nil
	}
	return nil
}
