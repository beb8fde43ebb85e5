// Package lspclient speaks LSP (JSON-RPC 2.0 with Content-Length framing)
// to any language server started as a child process over stdio, so that
// the benchmarks drive crd-lsp and yaml-language-server alike, as an
// editor does. It knows only the wire format: messages are JSON values
// the caller builds.
//
// A bench tool, not shipped (only internal/lsp may use the LSP libraries;
// this needs none).
package lspclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is one JSON-RPC message as read.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Notification is a server → client notification and when its last byte
// was read.
type Notification struct {
	Method string
	Params json.RawMessage
	At     time.Time
}

// RequestHandler answers a server → client request (workspace/configuration,
// client/registerCapability, ...).
type RequestHandler func(method string, params json.RawMessage) (any, error)

// Conn is a connection to a server.
type Conn struct {
	w       io.Writer
	wmu     sync.Mutex
	nextID  int64
	mu      sync.Mutex
	pending map[string]chan Message
	handler RequestHandler
	notes   chan Notification
	done    chan struct{}
	readErr error
}

// NewConn runs the protocol over r (from the server) and w (to it).
// Notifications go to Notifications(); server requests to handler (nil
// answers every request with null).
func NewConn(r io.Reader, w io.Writer, handler RequestHandler) *Conn {
	c := &Conn{w: w, pending: map[string]chan Message{}, handler: handler, notes: make(chan Notification, 1<<16), done: make(chan struct{})}
	go c.read(bufio.NewReaderSize(r, 1<<20))
	return c
}

// Notifications delivers the server's notifications in wire order.
func (c *Conn) Notifications() <-chan Notification { return c.notes }

// Done is closed when the server's output ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why reading stopped (after Done).
func (c *Conn) Err() error { return c.readErr }

// ReadMessage reads one framed message.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("message without Content-Length")
	}
	b := make([]byte, length)
	_, err := io.ReadFull(r, b)
	return b, err
}

// WriteMessage frames and writes one message.
func WriteMessage(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *Conn) read(r *bufio.Reader) {
	defer close(c.done)
	defer close(c.notes)
	for {
		b, err := ReadMessage(r)
		at := time.Now()
		if err != nil {
			c.readErr = err
			c.mu.Lock()
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			c.readErr = fmt.Errorf("server sent invalid JSON: %w", err)
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			go c.answer(m)
		case m.Method != "":
			c.notes <- Notification{Method: m.Method, Params: m.Params, At: at}
		default:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *Conn) answer(m Message) {
	var result any
	var err error
	if c.handler != nil {
		result, err = c.handler(m.Method, m.Params)
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if err != nil {
		reply["error"] = map[string]any{"code": -32601, "message": err.Error()}
	} else {
		reply["result"] = result
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = WriteMessage(c.w, reply)
}

// Call sends a request and decodes its result into result (if not nil).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	ch := make(chan Message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	err := WriteMessage(c.w, map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	c.wmu.Unlock()
	if err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed: %v", method, c.readErr)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if result != nil && len(m.Result) > 0 {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Notify sends a notification; it returns once the message is written.
func (c *Conn) Notify(method string, params any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteMessage(c.w, map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Server is a language server child process.
type Server struct {
	*Conn
	Cmd     *exec.Cmd
	Started time.Time
	stdin   io.WriteCloser
	waited  chan struct{}
}

// Start starts argv in dir (stderr to stderr, or discarded when nil) and
// connects to its stdio.
func Start(argv []string, dir string, stderr io.Writer, handler RequestHandler) (*Server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Conn: NewConn(out, in, handler), Cmd: cmd, Started: started, stdin: in, waited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.waited) }()
	return s, nil
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.Cmd.Process.Pid }

// Stop sends shutdown and exit and waits for the process (killing it after
// timeout).
func (s *Server) Stop(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_ = s.Call(ctx, "shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	_ = s.stdin.Close()
	select {
	case <-s.waited:
	case <-ctx.Done():
		_ = s.Cmd.Process.Kill()
		<-s.waited
	}
}

// Proc reads a process's resource figures from /proc: CPU time (user+sys)
// and resident memory (VmRSS now, VmHWM the peak), Linux only.
type Proc struct {
	CPU   time.Duration
	RSS   int64 // bytes
	HWM   int64 // bytes
	Valid bool
}

// ReadProc reads /proc/<pid>/stat and status.
func ReadProc(pid int) Proc {
	var p Proc
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		// f[0] is state (field 3); utime is field 14, stime 15.
		if len(f) > 13 {
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			p.CPU = time.Duration(ut+st) * time.Second / clockTicks
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch name {
		case "VmRSS":
			p.RSS = n << 10
		case "VmHWM":
			p.HWM = n << 10
		}
	}
	p.Valid = true
	return p
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100
