// This file defines the transport: LSP base-protocol framing over a byte
// stream that survives garbage instead of dying on it.

package lsp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// maxFrame bounds one message body. Larger frames are not buffered: they
// are scanned as they stream past for what they are (see
// stream_limits.go). Decoding a message costs a few times its size, so
// this keeps a message well below 1 GiB of memory. (Tests set a smaller
// resilientStream.maxFrame.)
const maxFrame = 64 << 20

// resilientStream is a jsonrpc2.Stream with Content-Length framing whose
// reader logs and skips malformed input (a header line without a colon, a
// missing or non-numeric Content-Length, a body that is not JSON or not a
// JSON-RPC message) and resynchronises on the next header, where the stock
// framer would end the connection. Writes are delegated to jsonrpc2's own
// header framer, which serialises concurrent writers.
type resilientStream struct {
	in     *bufio.Reader
	out    jsonrpc2.Stream
	closer io.Closer
	log    *slog.Logger

	closeOnce sync.Once
	maxFrame  int // maxFrame, or less in tests
	// token is this stream's secret, carried by the messages it makes
	// itself (methodOverLimit): a client cannot guess it, so an internal
	// method that comes from the wire is told apart and refused.
	token string
	// ended is closed once Read fails for good (end of input, a read
	// error): the client is gone, whatever requests are still running.
	ended     chan struct{}
	endedOnce sync.Once

	// Messages are read ahead of the handlers (see readAhead), so that
	// the end of input is seen at once even while a handler runs.
	aheadOnce sync.Once
	ahead     chan readResult
	aheadMu   sync.Mutex
	aheadCond *sync.Cond
	queued    int64 // bytes of the messages read ahead and not yet taken
	closed    bool
	done      chan struct{} // closed by Close
}

// readResult is one message read ahead (or the error that ended reading).
type readResult struct {
	msg jsonrpc2.Message
	n   int64
	err error
}

func newResilientStream(rwc io.ReadWriteCloser, log *slog.Logger) *resilientStream {
	return &resilientStream{
		in:       bufio.NewReaderSize(rwc, 64<<10),
		out:      jsonrpc2.NewHeaderStream(writeOnly{rwc}),
		closer:   rwc,
		log:      log,
		ended:    make(chan struct{}),
		maxFrame: maxFrame,
		token:    rand.Text(),
		ahead:    make(chan readResult, 1024),
		done:     make(chan struct{}),
	}
}

// writeOnly hides the reader of the wrapped stream from the write framer, so
// that only resilientStream ever reads.
type writeOnly struct{ w io.WriteCloser }

func (w writeOnly) Read([]byte) (int, error)    { return 0, io.EOF }
func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w writeOnly) Close() error                { return nil }
func (s *resilientStream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.aheadMu.Lock()
		s.closed = true
		if s.aheadCond != nil {
			s.aheadCond.Broadcast()
		}
		s.aheadMu.Unlock()
		close(s.done)
		err = s.closer.Close()
	})
	return err
}

func (s *resilientStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.out.Write(ctx, msg)
}

// Read returns the next well-formed JSON-RPC message. It only fails when the
// underlying stream fails (io.EOF at a frame boundary, io.ErrUnexpectedEOF
// inside one, or a read error).
//
// Messages are read ahead of the handlers, up to readAheadBytes, so that
// ended is closed as soon as the client goes, even while a notification
// handler runs on the read loop (a large didOpen being parsed): the
// session is then abandoned at once instead of after the queue.
func (s *resilientStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	s.aheadOnce.Do(func() {
		s.aheadCond = sync.NewCond(&s.aheadMu)
		go s.readAhead()
	})
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	select {
	case r := <-s.ahead:
		s.aheadMu.Lock()
		s.queued -= r.n
		s.aheadCond.Broadcast()
		s.aheadMu.Unlock()
		if r.err != nil {
			s.ahead <- r // every later Read fails the same way
		}
		return r.msg, r.n, r.err
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-s.done:
		return nil, 0, io.ErrClosedPipe
	}
}

// readAheadBytes bounds the messages read ahead and not yet handled.
func (s *resilientStream) readAheadBytes() int64 { return 2 * int64(s.maxFrame) }

// readAhead reads messages into s.ahead until the input ends, or the
// stream is closed; the error that ends it is the last result.
func (s *resilientStream) readAhead() {
	for {
		msg, n, err := s.readMessage()
		s.aheadMu.Lock()
		for !s.closed && s.queued > 0 && s.queued+n > s.readAheadBytes() {
			s.aheadCond.Wait()
		}
		if s.closed && err == nil {
			msg, n, err = nil, 0, io.ErrClosedPipe
		}
		s.queued += n
		s.aheadMu.Unlock()
		if err != nil {
			s.endedOnce.Do(func() { close(s.ended) })
		}
		select {
		case s.ahead <- readResult{msg: msg, n: n, err: err}:
		case <-s.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// readMessage reads the next well-formed JSON-RPC message from the input,
// skipping (and logging) what is not one.
func (s *resilientStream) readMessage() (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.readFrame()
		if err != nil {
			var bad *badFrameError
			var syn *synthesized
			if errors.As(err, &syn) {
				return syn.msg, n, nil
			}
			if errors.As(err, &bad) {
				s.log.Warn("skipping malformed LSP input", "reason", bad.reason)
				continue
			}
			return nil, 0, err
		}
		if reason := notJSONRPC(body); reason != "" {
			s.log.Warn("skipping LSP frame that is not a JSON-RPC message", "reason", reason, "bytes", len(body))
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.log.Warn("skipping LSP frame that is not a JSON-RPC message", "error", err, "bytes", len(body))
			continue
		}
		return msg, n, nil
	}
}

// notJSONRPC says why body is not a single JSON-RPC 2.0 request,
// notification or response ("" when it is one). LSP never sends batches.
func notJSONRPC(body []byte) string {
	var probe struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return "invalid JSON object: " + err.Error()
	}
	switch {
	case probe.JSONRPC != "2.0":
		return `missing "jsonrpc": "2.0"`
	case probe.Method != nil && *probe.Method == "":
		return "empty method"
	case probe.Method == nil && (len(probe.ID) == 0 || (len(probe.Result) == 0 && len(probe.Error) == 0)):
		return "neither a request nor a response"
	}
	return ""
}

type badFrameError struct{ reason string }

func (e *badFrameError) Error() string { return e.reason }

// readFrame reads one header block and its body. Malformed frames come back
// as *badFrameError after the reader has moved past them.
func (s *resilientStream) readFrame() ([]byte, int64, error) {
	length := -1
	var consumed int64
	var problem string
	sawHeader := false
	for {
		line, err := s.in.ReadBytes('\n')
		consumed += int64(len(line))
		if err != nil {
			if err == io.EOF && len(line) == 0 && !sawHeader {
				return nil, 0, io.EOF
			}
			if err == io.EOF {
				return nil, 0, io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		sawHeader = true
		name, value, ok := bytes.Cut(trimmed, []byte(":"))
		if !ok {
			problem = fmt.Sprintf("header line without ':' (%q)", clip(trimmed))
			continue
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n <= 0 {
				problem = fmt.Sprintf("invalid Content-Length %q", clip(value))
				length = -1
				continue
			}
			length = n
		}
	}
	if length < 0 {
		if problem == "" {
			problem = "header without Content-Length"
		}
		return nil, 0, &badFrameError{problem}
	}
	if length > s.maxFrame {
		msg, err := s.oversizeFrame(int64(length))
		if err != nil {
			return nil, 0, err
		}
		if msg != nil {
			return nil, consumed + int64(length), &synthesized{msg}
		}
		return nil, 0, &badFrameError{fmt.Sprintf("frame of %d bytes exceeds the %d byte limit", length, s.maxFrame)}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, 0, io.ErrUnexpectedEOF
	}
	if problem != "" {
		s.log.Warn("ignored malformed header line", "reason", problem)
	}
	return body, consumed + int64(length), nil
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// Codec marshals payloads with protocol's union-aware encoder, as
// protocol.NewServer's private codec does, so that a plain jsonrpc2.Conn can
// carry LSP with a handler chain of our own (ordering, panic recovery). The
// test harness uses it for the client side too.
type Codec struct{}

func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (Codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
