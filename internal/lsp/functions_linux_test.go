//go:build linux

package lsp_test

import (
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestKilledBinaryTakesItsFunctions: when crd-lsp is killed (SIGKILL: no
// chance to stop anything), the kernel ends the function processes it
// started (their parent-death signal). The test holds a pidfd of the
// function process, opened while crd-lsp runs, and waits for it to report
// the exit.
func TestKilledBinaryTakesItsFunctions(t *testing.T) {
	e, pid := startBinaryRunningFunction(t)
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd of the running function %d: %v", pid, err)
	}
	defer unix.Close(fd)
	if err := syscall.Kill(e.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.WaitExit(10 * time.Second)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds()))) // a negative timeout waits for ever
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("function process %d still runs 10s after crd-lsp was killed", pid)
		}
		return
	}
}
