package flock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHelperHolder is not a test: TestLockExcludesProcesses runs the test
// binary as another process that takes the lock, says so, and releases it
// when its standard input closes.
func TestHelperHolder(t *testing.T) {
	path := os.Getenv("FLOCK_HELPER_PATH")
	if path == "" {
		t.Skip("a helper process of TestLockExcludesProcesses")
	}
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until stdin closes
	unlock()
}

// TestLockExcludesProcesses: while another process holds the lock, Lock
// waits; once it lets go, Lock returns. Run on every system crd-lsp is
// built for (flock on unix, LockFileEx on Windows).
func TestLockExcludesProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$")
	holder.Env = append(os.Environ(), "FLOCK_HELPER_PATH="+path)
	holder.Stderr = os.Stderr
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	// A holder stuck for two minutes is killed: its stdout ends and the
	// test fails below rather than reading (or waiting) for ever.
	stuck := time.AfterFunc(2*time.Minute, func() { _ = holder.Process.Kill() })
	defer stuck.Stop()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v (killed if it said nothing for two minutes)", line, err)
	}
	got := make(chan func(), 1)
	go func() {
		unlock, err := Lock(path)
		if err != nil {
			t.Error(err)
			unlock = func() {}
		}
		got <- unlock
	}()
	// A lock that excludes nothing returns at once: give it that chance.
	select {
	case unlock := <-got:
		unlock()
		t.Fatal("Lock returned while another process held the lock")
	case <-time.After(300 * time.Millisecond):
	}
	stdin.Close() // the holder lets go
	select {
	case unlock := <-got:
		unlock()
	case <-time.After(time.Minute):
		t.Fatal("Lock still waits a minute after the holder let go")
	}
	if err := holder.Wait(); err != nil {
		t.Errorf("holder: %v", err)
	}
}
