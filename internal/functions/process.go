// This file runs a local function executable (--function-exe, the
// server's crdLsp.functions) as a function server on a free loopback port,
// started on first use and restarted after a crash.

package functions

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// errExited cancels the calls to a process that exited.
var errExited = errors.New("the function process exited")

// processBackend runs a local executable: started on first use with the
// function SDK's flags on a free loopback port, kept warm, started again
// on the next call after it died, stopped on close.
type processBackend struct {
	name string
	ex   Executable
	logf func(string, ...any)

	mu     sync.Mutex
	cur    *proc
	closed bool

	outRate, outBurst float64 // tests: how fast output is read (0: outputRate, outputBurst)

	// pre are arguments before the SDK's flags (a package's entrypoint's
	// own); environ, when set, is the whole environment (a package's
	// image's), instead of crd-lsp's with ex.Env added.
	pre     []string
	environ []string
}

// proc is one run of the executable.
type proc struct {
	cmd    *exec.Cmd
	grp    *group
	target string
	cc     *grpc.ClientConn
	alive  context.Context // cancelled when the process exited
	exited context.CancelFunc
	done   chan struct{} // closed once Wait returned and exit is set
	waited atomic.Bool   // Wait returned: the process is gone
	exit   string
	out    *output
}

func newProcessBackend(name string, ex Executable, _ time.Duration, logf func(string, ...any)) *processBackend {
	return &processBackend{name: name, ex: ex, logf: logf}
}

func (b *processBackend) source() (Source, string) { return SourceExecutable, b.ex.Path }
func (b *processBackend) waitForReady() bool       { return true }

func (b *processBackend) conn(ctx context.Context) (context.Context, func(), *grpc.ClientConn, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, nil, errors.New("the function registry is closed")
	}
	p := b.cur
	if p == nil || p.alive.Err() != nil || p.waited.Load() {
		var err error
		if p, err = b.start(); err != nil {
			b.mu.Unlock()
			return nil, nil, nil, err
		}
		b.cur = p
	}
	b.mu.Unlock()
	cctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(p.alive, func() { cancel(errExited) })
	return cctx, func() { stop(); cancel(nil) }, p.cc, nil
}

// start starts the executable. A process that fails to come up (it
// exits) is noticed by the calls, which end, and replaced by the next.
//
// On unix the process joins a process group led by a watchdog that kills
// the group when crd-lsp stops it, when the process exits, and when
// crd-lsp dies however it dies (see proc_unix.go); on Windows a job
// object that kills its processes when its one handle, crd-lsp's, closes
// (proc_windows.go): what a wrapper script started goes with it. Its
// output is read by an output (output.go).
func (b *processBackend) start() (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("cannot find a free loopback port: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := append(append(append([]string{}, b.pre...), "--insecure", "--address", addr), b.ex.Args...)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", b.ex.Path, err)
	}
	command := func(grp *group) *exec.Cmd {
		cmd := exec.Command(b.ex.Path, args...)
		cmd.Dir = b.ex.Dir
		cmd.Env = append(os.Environ(), b.ex.Env...)
		if b.environ != nil {
			cmd.Env = b.environ
		}
		cmd.Stdout, cmd.Stderr = pw, pw
		grp.join(cmd)
		return cmd
	}
	grp, err := newGroup()
	if err != nil {
		b.log("no watchdog for its process group (%v): what it starts may outlive crd-lsp", err)
	}
	cmd := command(grp)
	cc, err := dial(addr)
	if err != nil {
		pr.Close()
		pw.Close()
		grp.release()
		return nil, err
	}
	err = cmd.Start()
	if err != nil && grp != nil {
		// (A watchdog gone before the process joined its group: start it
		// in a group of its own, as without one.)
		grp.release()
		grp = nil
		cmd = command(nil)
		err = cmd.Start()
	}
	if err != nil {
		cc.Close()
		pr.Close()
		pw.Close()
		grp.release()
		return nil, fmt.Errorf("cannot start %s: %w", b.ex.Path, err)
	}
	grp.started(cmd)
	pw.Close()
	out := newOutput(pr, b.name, b.logf)
	if b.outRate > 0 {
		out.rate, out.burst = b.outRate, b.outBurst
	}
	go out.run()
	b.log("started %s (pid %d) listening on %s", b.ex.Path, cmd.Process.Pid, addr)
	alive, exited := context.WithCancel(context.Background())
	p := &proc{cmd: cmd, grp: grp, target: addr, cc: cc, alive: alive, exited: exited, done: make(chan struct{}), out: out}
	go func() {
		err := cmd.Wait()
		exit := "exit status 0"
		if err != nil {
			exit = err.Error()
		}
		// No new call goes to it (the next starts the executable again),
		// even while the rest of its output is read; calls under way end
		// once the exit can be told (done).
		p.waited.Store(true)
		grp.release() // what it started goes too
		out.finish()
		p.exit = exit
		close(p.done)
		exited()
		cc.Close()
		b.log("%s exited: %s", b.ex.Path, p.exit)
	}()
	return p, nil
}

func (b *processBackend) log(format string, args ...any) {
	if b.logf != nil {
		b.logf("function %s: "+format, append([]any{b.name}, args...)...)
	}
}

// failed waits a moment for a process that a failed call suggests is
// dying (a crash resets the connection before the exit is seen), so that
// the error can say how it ended. A timeout or cancellation says nothing
// of the process (and one caused by its exit comes after the exit is
// seen): no wait.
func (b *processBackend) failed(err error) {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		status.Code(err) == codes.DeadlineExceeded || status.Code(err) == codes.Canceled {
		return
	}
	b.mu.Lock()
	p := b.cur
	b.mu.Unlock()
	if p == nil {
		return
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

func (b *processBackend) state() (string, string) {
	b.mu.Lock()
	p := b.cur
	b.mu.Unlock()
	if p == nil {
		return "", ""
	}
	select {
	case <-p.done:
		return p.exit, p.out.String()
	default:
		return "", ""
	}
}

func (b *processBackend) close() error {
	b.mu.Lock()
	b.closed = true
	p := b.cur
	b.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	default:
	}
	p.grp.kill(p.cmd)
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("function %s: process %d did not exit after being killed", b.name, p.cmd.Process.Pid)
	}
}

// freePort asks the kernel for a free loopback TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
