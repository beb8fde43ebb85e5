package testfixtures

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf records the message and ends the
// calling goroutine, as the real one does, without failing the test.
type recorder struct {
	testing.TB
	mu    sync.Mutex
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// fatalOf runs f with a recorder on its own goroutine and returns what
// it failed with ("" when it returned).
func fatalOf(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	Await(t, done, "the helper under test to return or fail")
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}

// TestAwaitFailsByName: a channel that never delivers fails the test with
// what it waited for instead of hanging; one that does delivers its value.
func TestAwaitFailsByName(t *testing.T) {
	never := make(chan int)
	msg := fatalOf(t, func(tb testing.TB) { AwaitWithin(tb, never, 10*time.Millisecond, "the never channel") })
	if !strings.Contains(msg, "still waiting for the never channel after 10ms") {
		t.Errorf("failed with %q", msg)
	}
	ready := make(chan int, 1)
	ready <- 7
	var got int
	if msg := fatalOf(t, func(tb testing.TB) { got = Await(tb, ready, "ready") }); msg != "" || got != 7 {
		t.Errorf("a ready channel: %d, failed with %q", got, msg)
	}
}

// TestWaitReturns: Wait returns once the call does.
func TestWaitReturns(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go wg.Done()
	if msg := fatalOf(t, func(tb testing.TB) { Wait(tb, wg.Wait, "the group") }); msg != "" {
		t.Errorf("failed with %q", msg)
	}
}

// TestHangingChild is the child process of TestRunKillsAHangingChild:
// it says it started, then hangs (it is meant to be killed).
func TestHangingChild(t *testing.T) {
	switch os.Getenv("TESTFIXTURES_HANG") {
	case "1":
	case "2": // a grandchild, given our stdout, outlives us
		g := exec.Command(os.Args[0], "-test.run=^TestHangingChild$")
		g.Env = append(os.Environ(), "TESTFIXTURES_HANG=1")
		g.Stdout = os.Stdout
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("grandchild %d\n", g.Process.Pid)
	default:
		t.Skip("the child process of TestRunKillsAHangingChild")
	}
	fmt.Println("child started, now hanging")
	time.Sleep(time.Hour) // the hang under test
}

// TestRunKillsAHangingChild: a child process that never ends is killed
// after the limit and the test fails naming the command, with the tail of
// its output; one that ends is waited for and its output returned.
func TestRunKillsAHangingChild(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangingChild$", "-test.v")
	cmd.Env = append(os.Environ(), "TESTFIXTURES_HANG=1")
	start := time.Now()
	msg := fatalOf(t, func(tb testing.TB) { _, _ = CombinedOutput(tb, cmd, 2*time.Second) })
	if !strings.Contains(msg, "-test.run=^TestHangingChild$ -test.v still running after 2s; killed") || !strings.Contains(msg, "child started, now hanging") {
		t.Errorf("failed with %q", msg)
	}
	if el := time.Since(start); el > time.Minute {
		t.Errorf("the kill took %v", el)
	}

	// A grandchild holding the output pipe does not keep Run waiting
	// once the child is killed (WaitDelay).
	cmd = exec.Command(os.Args[0], "-test.run=^TestHangingChild$")
	cmd.Env = append(os.Environ(), "TESTFIXTURES_HANG=2")
	start = time.Now()
	msg = fatalOf(t, func(tb testing.TB) { _, _ = CombinedOutput(tb, cmd, 2*time.Second) })
	var grandchild int
	if i := strings.Index(msg, "grandchild "); i >= 0 {
		fmt.Sscanf(msg[i:], "grandchild %d", &grandchild)
	}
	if grandchild > 0 {
		if p, err := os.FindProcess(grandchild); err == nil {
			_ = p.Kill()
		}
	}
	if !strings.Contains(msg, "still running after 2s; killed") || grandchild == 0 {
		t.Errorf("with a grandchild: failed with %q", msg)
	}
	if el := time.Since(start); el > time.Minute {
		t.Errorf("with a grandchild holding the pipe, the kill took %v", el)
	}

	out, err := CombinedOutput(t, exec.Command(os.Args[0], "-test.run=^TestHangingChild$", "-test.v"), Patience)
	if err != nil || !strings.Contains(string(out), "SKIP: TestHangingChild") {
		t.Errorf("a child that ends: %v\n%s", err, out)
	}
}
