//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAndRenderRefuseDevices: a file named on the command line that
// is a link to /dev/zero is refused at once, not read for ever.
func TestCheckAndRenderRefuseDevices(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", zero}, {"render", zero}, {"check", "--schemas", zero, dir}} {
		code, _, errOut := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "zero.yaml: a character device, not a regular file") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	comp := filepath.Join(dir, "comp.yaml")
	if err := os.WriteFile(comp, []byte("apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}\n  mode: Pipeline\n  pipeline: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "", "render", "--xr", zero, comp); code != 2 || !strings.Contains(errOut, "--xr: "+zero+": a character device") {
		t.Errorf("render --xr /dev/zero: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "", "render", "--functions", zero, comp); code != 2 || !strings.Contains(errOut, zero+": a character device") {
		t.Errorf("render --functions /dev/zero: exit %d, stderr %q", code, errOut)
	}
}
