//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestCheckTreeWithFIFOAndSymlinkLoops (issue 35 item 1f): a tree holding a
// FIFO nobody writes to, a directory link back to its parent and a file link
// to itself is walked to the end: the good file is still checked and check
// neither blocks on the pipe nor loops.
func TestCheckTreeWithFIFOAndSymlinkLoops(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(sub, "up")); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, "self.yaml")
	if err := os.Symlink(self, self); err != nil {
		t.Fatal(err)
	}
	bad := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: [1]\n"
	if err := os.WriteFile(filepath.Join(sub, "cm.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "check", dir)
	if code != 1 || !strings.Contains(out, "sub/cm.yaml:4:7: error") || !strings.Contains(out, "1 file checked") ||
		!strings.Contains(errOut, "pipe.yaml reason=\"a named pipe, not a regular file\"") ||
		!strings.Contains(errOut, "self.yaml reason=\"too many levels of symbolic links\"") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
