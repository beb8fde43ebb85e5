package rusage

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestPeakRSS: a child that holds 64 MiB resident reports at least that
// where the system says (Linux, macOS), and nothing is invented elsewhere.
func TestPeakRSS(t *testing.T) {
	if os.Getenv("RUSAGE_CHILD") == "1" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(i)
		}
		runtime.KeepAlive(b)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestPeakRSS$")
	cmd.Env = append(os.Environ(), "RUSAGE_CHILD=1")
	if out, err := testfixtures.CombinedOutput(t, cmd, testfixtures.Patience); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	peak, ok := PeakRSS(cmd.ProcessState)
	switch runtime.GOOS {
	case "linux", "darwin":
		if !ok || peak < 64<<20 || peak > 4<<30 {
			t.Errorf("peak RSS %d bytes (ok %v), want between 64 MiB and 4 GiB", peak, ok)
		}
	case "windows":
		if ok {
			t.Errorf("peak RSS %d on Windows, which does not report it", peak)
		}
	}
}

// TestSelfCPU: spinning for 50 ms of wall time adds CPU time.
func TestSelfCPU(t *testing.T) {
	before, ok := SelfCPU()
	if !ok {
		t.Skipf("no CPU time on %s", runtime.GOOS)
	}
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
	}
	after, _ := SelfCPU()
	if after <= before {
		t.Errorf("CPU time %v then %v after spinning", before, after)
	}
}
