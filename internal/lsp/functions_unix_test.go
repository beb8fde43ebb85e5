//go:build unix

package lsp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// pidWrapper is an executable that records its pid in pidFile (one line
// per start) and becomes the function binary.
func pidWrapper(t *testing.T, bin, pidFile string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "function-test.sh")
	script := "#!/bin/sh\necho $$ >> '" + pidFile + "'\nexec '" + bin + "' \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func pids(t *testing.T, pidFile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestFunctionProcessesStopAtShutdown: the processes the server started
// for crdLsp.functions (one per registry: the settings changed in
// between) are gone when shutdown has been answered.
func TestFunctionProcessesStopAtShutdown(t *testing.T) {
	e, f := openRunningFunction(t, lsptest.StartInProcess)
	// New settings: a new registry, which starts its own process.
	f.settings["functionTimeout"] = 20
	e.SetSettings(f.settings)
	e.Change("composition.yaml", f.text+"\n")
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 2, 60*time.Second)); !hasLine(got, functionFinding) {
		t.Fatalf("after the settings changed, diagnostics lack %q:\n%s", functionFinding, strings.Join(got, "\n"))
	}
	started := pids(t, f.pidFile)
	if len(started) != 2 {
		t.Fatalf("started %d function processes, want 2 (one per registry): %v", len(started), started)
	}
	if !alive(started[1]) {
		t.Fatalf("the current registry's process %d is not running", started[1])
	}
	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range started {
		if alive(pid) {
			t.Errorf("function process %d still runs after shutdown", pid)
		}
	}
	e.Exit()
	if err := e.ServeResult(5 * time.Second); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// TestBinaryStopsFunctionsWhenTheClientGoes: the crd-lsp binary stops the
// function processes it started when the editor goes away without
// shutdown (stdin closed), and when it is terminated (SIGTERM).
func TestBinaryStopsFunctionsWhenTheClientGoes(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			e, pid := startBinaryRunningFunction(t)
			if how == "SIGTERM" {
				if err := syscall.Kill(e.PID(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			} else {
				e.CloseStdin()
			}
			e.WaitExit(10 * time.Second)
			if alive(pid) {
				t.Errorf("function process %d still runs after crd-lsp exited", pid)
			}
		})
	}
}

// runningFunction is what openRunningFunction set up.
type runningFunction struct {
	pidFile  string         // the function processes' pids, one line per start
	settings map[string]any // the settings the server was started with
	text     string         // composition.yaml as opened
}

// openRunningFunction starts a server with start on the pipeline
// workspace, the test function configured, opens the Composition and
// awaits the function's finding.
func openRunningFunction(t *testing.T, start func(testing.TB, lsptest.Config) *lsptest.Editor) (*lsptest.Editor, runningFunction) {
	t.Helper()
	bin := fntest.TestFunction(t)
	f := runningFunction{pidFile: filepath.Join(t.TempDir(), "pids")}
	exe := pidWrapper(t, bin, f.pidFile)
	dir := copyPipeline(t)
	f.settings = map[string]any{"functions": map[string]any{"function-test": exe}}
	e := start(t, lsptest.Config{Dir: dir, Settings: f.settings})
	e.AwaitSchemas(30 * time.Second)
	text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	f.text = string(text)
	e.Open("composition.yaml", f.text)
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second)); !hasLine(got, functionFinding) {
		t.Fatalf("diagnostics lack %q:\n%s", functionFinding, strings.Join(got, "\n"))
	}
	return e, f
}

// startBinaryRunningFunction is openRunningFunction on the crd-lsp binary,
// returning the pid of its one function process.
func startBinaryRunningFunction(t *testing.T) (*lsptest.Editor, int) {
	t.Helper()
	e, f := openRunningFunction(t, func(t testing.TB, cfg lsptest.Config) *lsptest.Editor { return lsptest.StartBinary(t, cfg) })
	started := pids(t, f.pidFile)
	if len(started) != 1 || !alive(started[0]) {
		t.Fatalf("function processes %v, want one running", started)
	}
	return e, started[0]
}
