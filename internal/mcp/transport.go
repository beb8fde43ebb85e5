// This file holds what stands between the client's stream and the SDK's
// transport: the SDK ends the session on the first line that is not a
// JSON-RPC message, and on a line over its buffer (16 MiB) without an
// answer; a client that never reads would keep Serve from returning.

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

// idPrefix is how much of a message too long to read is kept to find its
// id.
const idPrefix = 4 << 10

// lockedWriter serialises whole messages: the SDK writes one message per
// Write, and so does the filter's answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filter reads the client's lines and passes on only JSON-RPC messages
// (requests, notifications, responses) of at most MaxMessage bytes; the
// others are answered on out with a JSON-RPC error naming what was wrong.
// eof is closed when the client's input ends.
type filter struct {
	in  *bufio.Reader
	out io.Writer
	eof chan struct{}
	pr  *io.PipeReader
	pw  *io.PipeWriter
}

func newFilter(in io.Reader, out io.Writer) *filter {
	f := &filter{in: bufio.NewReaderSize(in, 64<<10), out: out, eof: make(chan struct{})}
	f.pr, f.pw = io.Pipe()
	go f.run()
	return f
}

// Reader is what the SDK reads: the messages that passed.
func (f *filter) Reader() io.ReadCloser { return f.pr }

func (f *filter) run() {
	defer close(f.eof)
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
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		f.refuse(idOf(msg), -32600, "invalid request: "+err.Error())
		return
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
	_, _ = f.out.Write(append(b, '\n'))
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
