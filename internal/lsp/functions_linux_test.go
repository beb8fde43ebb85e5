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

// TestKilledBinaryTakesItsFunctions: when crd-lsp is killed (SIGKILL: no
// chance to stop anything), the kernel ends the function processes it
// started (their parent-death signal). The test holds a pidfd of the
// function process, opened while crd-lsp runs, and waits for it to report
// the exit.
func TestKilledBinaryTakesItsFunctions(t *testing.T) {
	bin := fntest.TestFunction(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	exe := pidWrapper(t, bin, pidFile)
	dir := copyPipeline(t)
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": exe}}})
	e.AwaitSchemas(30 * time.Second)
	text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	e.Open("composition.yaml", string(text))
	want := `32:11: warning: function-test: buckets are composed without a region [function-result]`
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second)); !hasLine(got, want) {
		t.Fatalf("diagnostics lack %q:\n%s", want, strings.Join(got, "\n"))
	}
	started := pids(t, pidFile)
	if len(started) != 1 {
		t.Fatalf("function processes %v, want one", started)
	}
	fd, err := unix.PidfdOpen(started[0], 0)
	if err != nil {
		t.Fatalf("pidfd of the running function %d: %v", started[0], err)
	}
	defer unix.Close(fd)
	if err := syscall.Kill(e.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.WaitExit(10 * time.Second)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("function process %d still runs 10s after crd-lsp was killed", started[0])
		}
		return
	}
}
