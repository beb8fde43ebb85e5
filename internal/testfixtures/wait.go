package testfixtures

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Patience is how long Await and Wait wait for something that takes
// milliseconds when all is well: generous for a loaded two-core CI run,
// short beside go test's 45-minute timeout, which kills every test of the
// package and hides which one was stuck.
const Patience = 2 * time.Minute

// bound shortens limit so that it ends a minute before the test binary's
// own deadline (go test -timeout), when that comes first: the test then
// fails by name, with what it waited for, rather than the whole binary
// being killed.
func bound(t testing.TB, limit time.Duration) time.Duration {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return limit
	}
	if dl, ok := d.Deadline(); ok {
		if left := time.Until(dl) - time.Minute; left < limit {
			limit = max(left, 10*time.Second)
		}
	}
	return limit
}

// Await receives one value from ch, failing the test (naming what it
// waited for) when none comes within Patience.
func Await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return AwaitWithin(t, ch, Patience, what)
}

// AwaitWithin is Await with its own limit.
func AwaitWithin[T any](t testing.TB, ch <-chan T, limit time.Duration, what string) T {
	t.Helper()
	limit = bound(t, limit)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("still waiting for %s after %v", what, limit)
		var zero T
		return zero
	}
}

// Wait calls wait (a sync.WaitGroup's Wait, say) and fails the test,
// naming what it waited for, when that has not returned within Patience.
// The call is left running then: a stuck goroutine cannot be stopped.
func Wait(t testing.TB, wait func(), what string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait()
	}()
	Await(t, done, what)
}

// Run runs cmd like cmd.Run, killing it and failing the test when it is
// still running after limit (shortened by the test's deadline), with the
// command line and the tail of what it wrote to a *bytes.Buffer or
// *strings.Builder given as its Stdout or Stderr. Without a WaitDelay of
// its own, cmd gets ten seconds: a grandchild that kept the output pipe
// open does not keep Run waiting after the kill.
func Run(t testing.TB, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	limit = bound(t, limit)
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 10 * time.Second
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var mu sync.Mutex
	done, killed := false, false
	timer := time.AfterFunc(limit, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			killed = true
			_ = cmd.Process.Kill()
		}
	})
	err := cmd.Wait()
	timer.Stop()
	mu.Lock()
	done = true
	mu.Unlock()
	if killed {
		t.Fatalf("%s still running after %v; killed (%v)%s", commandLine(cmd), limit, err, outputTail(cmd))
	}
	return err
}

// Output is Run with stdout returned, like cmd.Output (stderr is kept
// for the failure message and for an *exec.ExitError's Stderr).
func Output(t testing.TB, cmd *exec.Cmd, limit time.Duration) ([]byte, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout = &out
	var errb *bytes.Buffer
	if cmd.Stderr == nil {
		errb = &bytes.Buffer{}
		cmd.Stderr = errb
	}
	err := Run(t, cmd, limit)
	if ee, ok := err.(*exec.ExitError); ok && errb != nil {
		ee.Stderr = errb.Bytes()
	}
	return out.Bytes(), err
}

// CombinedOutput is Run with stdout and stderr returned together, like
// cmd.CombinedOutput.
func CombinedOutput(t testing.TB, cmd *exec.Cmd, limit time.Duration) ([]byte, error) {
	t.Helper()
	var out LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := Run(t, cmd, limit)
	return out.buf.Bytes(), err
}

// LockedBuffer is a bytes.Buffer several writers (two pipes' copiers, a
// process's output and a test reading it) may use at once.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func commandLine(cmd *exec.Cmd) string {
	return strings.Join(cmd.Args, " ")
}

// outputTail is the last 4,000 bytes the command wrote to each output
// the test can read back (a *bytes.Buffer, a *strings.Builder, anything
// with a String method).
func outputTail(cmd *exec.Cmd) string {
	var b strings.Builder
	last := ""
	for _, o := range []struct {
		name string
		w    any
	}{{"stdout", cmd.Stdout}, {"stderr", cmd.Stderr}} {
		sw, ok := o.w.(fmt.Stringer)
		if !ok {
			continue
		}
		s := sw.String()
		if s == last {
			continue // the same buffer
		}
		last = s
		if len(s) > 4000 {
			s = "…" + s[len(s)-4000:]
		}
		fmt.Fprintf(&b, "\n%s:\n%s", o.name, s)
	}
	return b.String()
}
