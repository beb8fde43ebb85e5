//go:build linux

package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestKilledBinaryTakesWrappedFunctions: a function configured as a
// wrapper script that does not exec (the shell stays and runs the function
// as its child, as many wrappers do) goes with a SIGKILLed crd-lsp, child
// included: the parent-death signal reaches only the shell, the function's
// process group goes with its watchdog.
func TestKilledBinaryTakesWrappedFunctions(t *testing.T) {
	bin := fntest.TestFunction(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	wrapper := filepath.Join(t.TempDir(), "function-test.sh")
	script := "#!/bin/sh\n'" + bin + "' \"$@\" &\necho $! >> '" + pidFile + "'\nwait $!\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := copyPipeline(t)
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": wrapper}}})
	e.AwaitSchemas(30 * time.Second)
	text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	e.Open("composition.yaml", string(text))
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second)); !hasLine(got, functionFinding) {
		t.Fatalf("diagnostics lack %q:\n%s", functionFinding, strings.Join(got, "\n"))
	}
	started := pids(t, pidFile)
	if len(started) != 1 || !alive(started[0]) {
		t.Fatalf("function processes %v, want one running", started)
	}
	fd, err := unix.PidfdOpen(started[0], 0)
	if err != nil {
		t.Fatalf("pidfd of the running function %d: %v", started[0], err)
	}
	defer unix.Close(fd)
	t.Cleanup(func() { _ = syscall.Kill(started[0], syscall.SIGKILL) }) // should the test fail
	if err := syscall.Kill(e.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.WaitExit(10 * time.Second)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds())))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("the wrapper's function process %d still runs 10s after crd-lsp was killed", started[0])
		}
		return
	}
}
