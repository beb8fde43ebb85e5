//go:build linux

package functions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
)

// helperEnv names the wrapper script TestHelperFunctionServer runs.
const helperEnv = "CRD_LSP_TEST_FUNCTION_WRAPPER"

// TestHelperFunctionServer is not a test: TestKilledServerTakesWrappedFunctions
// runs the test binary as a crd-lsp that started a function through a
// wrapper script, and kills it. It prints the wrapper's pid, then waits.
func TestHelperFunctionServer(t *testing.T) {
	wrapper := os.Getenv(helperEnv)
	if wrapper == "" {
		t.Skip("a helper process of TestKilledServerTakesWrappedFunctions")
	}
	r := New(Config{Executables: map[string]Executable{"function-test": {Path: wrapper}}})
	ok := script(t, "compose: []")
	if _, err := r.Run(context.Background(), ok, request(t, ok)); err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("started", pidOf(t, r, "function-test"))
	select {}
}

// TestKilledServerTakesWrappedFunctions: a function started through a
// wrapper script that does not exec (the shell stays, the function is its
// child) goes when crd-lsp is killed (SIGKILL: no chance to stop
// anything), the wrapper's child included: the kernel's parent-death
// signal reaches only the wrapper, the process group's watchdog the rest.
func TestKilledServerTakesWrappedFunctions(t *testing.T) {
	bin := fntest.TestFunction(t)
	wrapper := filepath.Join(t.TempDir(), "function-test.sh")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\n'"+bin+"' \"$@\"\necho \"function exited: $?\" >&2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	server := exec.Command(os.Args[0], "-test.run=^TestHelperFunctionServer$")
	server.Env = append(os.Environ(), helperEnv+"="+wrapper)
	server.Stderr = os.Stderr
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	// A helper that never says it started is killed (its stdout then
	// ends) and the test fails below, rather than reading for ever.
	stuck := time.AfterFunc(2*time.Minute, func() { _ = server.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	shell := 0
	for shell == 0 && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "started" {
			shell, _ = strconv.Atoi(f[1])
		} else if len(f) > 0 && f[0] == "error" {
			t.Fatal(sc.Text())
		}
	}
	if !stuck.Stop() {
		t.Fatalf("the helper server did not start its function within 2 minutes; killed")
	}
	if shell == 0 {
		t.Fatalf("the helper server did not start its function: %v", sc.Err())
	}
	fn := childOf(t, shell)
	fds := map[string]int{}
	for name, pid := range map[string]int{"wrapper": shell, "function": fn} {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("pidfd of the %s %d: %v", name, pid, err)
		}
		defer unix.Close(fd)
		fds[name] = fd
	}
	t.Cleanup(func() { _ = syscall.Kill(fn, syscall.SIGKILL) }) // when the test fails
	if err := server.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	for name, fd := range fds {
		if !exits(t, fd, 10*time.Second) {
			t.Errorf("the %s still runs 10s after crd-lsp was killed", name)
		}
	}
}

// childOf returns the one child of pid (from /proc).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		t.Fatalf("children of the wrapper %d: %q, want the function", pid, f)
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

// exits waits for the process of a pidfd to end.
func exits(t *testing.T, fd int, within time.Duration) bool {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(within)
	for {
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds())))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
}

// An executable that cannot be started is a clear error (the process
// group's watchdog, started first, is let go).
func TestMissingExecutable(t *testing.T) {
	r := New(Config{Executables: map[string]Executable{"function-test": {Path: "/nonexistent/function"}}})
	defer r.Close()
	ok := script(t, "compose: []")
	_, err := r.Run(context.Background(), ok, request(t, ok))
	if err == nil || !strings.Contains(err.Error(), "cannot start /nonexistent/function: ") {
		t.Errorf("err %v, want cannot start /nonexistent/function", err)
	}
}
