package main

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// `crd-lsp pull` gives up on a registry trickling a layer below the
// throughput floor (1 KiB/s over each --timeout of waiting) long before
// the pull deadline, naming the registry.
func TestPullTrickleBelowFloor(t *testing.T) {
	faults, host, layer, dir := faultyRegistry(t)
	faults.Set(layer, xpkgtest.Trickle(10*time.Millisecond)) // 100 bytes a second
	code, out, errOut := runCmd(t, "", "pull", "--quiet", "--cache-dir", t.TempDir(), "--insecure", host, "--timeout", "300ms", dir)
	want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(dir, "crossplane.yaml")+":9:16: error: registry "+host+" sent layer "+layer+" of "+host+"/x/p:v1.0.0 too slowly: ") +
		`\d+ bytes in 300ms, below the floor of 1 KiB/s \(at \d+ of \d+ bytes\) \[package-network\]$`)
	if code != 1 || !want.MatchString(out) {
		t.Errorf("exit %d, want 1 and a line matching %s:\n%s\n%s", code, want, out, errOut)
	}
}
