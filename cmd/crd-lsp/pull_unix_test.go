//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// An interrupted pull says so and exits 130; the dependency it was
// pulling is reported cancelled, not failed.
func TestPullInterrupted(t *testing.T) {
	faults, host, layer, dir := faultyRegistry(t)
	faults.Set(layer, xpkgtest.Stall())
	go func() {
		<-faults.Hits() // the layer is under way
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	code, out, errOut := runCmd(t, "", "pull", "--quiet", "--cache-dir", t.TempDir(), "--insecure", host, dir)
	if code != 130 || !strings.Contains(errOut, "crd-lsp pull: interrupted") || !strings.Contains(out, host+"/x/p:v1.0.0 was cancelled") || !strings.Contains(out, "[package-canceled]") {
		t.Errorf("exit %d, want 130, the dependency cancelled and the interruption said:\n%s\n%s", code, out, errOut)
	}
}
