//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileFiles makes, in dir, a named pipe, a link to /dev/zero and a
// sparse 400 MB file, all named *.yaml, plus a link to a good file.
func hostileFiles(t *testing.T, dir string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "huge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(400 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	write(t, filepath.Join(dir, "real", "good.yaml"), "kind: X\n")
	if err := os.Symlink(filepath.Join(dir, "real", "good.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
}

func TestReadFileRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	hostileFiles(t, dir)
	for name, want := range map[string]string{
		"pipe.yaml": "a named pipe, not a regular file",
		"zero.yaml": "a character device, not a regular file",
		"huge.yaml": "400 MiB, over the 10 MiB limit",
	} {
		_, err := ReadFile(filepath.Join(dir, name), DefaultMaxFileSize)
		fe, ok := IsFileError(err)
		if !ok || fe.Reason != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if b, err := ReadFile(filepath.Join(dir, "link.yaml"), 100); err != nil || string(b) != "kind: X\n" {
		t.Errorf("link to a regular file: %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "link.yaml"), 4); err == nil || !strings.Contains(err.Error(), "over the 4 bytes limit") {
		t.Errorf("limit below the size: %v", err)
	}
}

func TestScanReportsHostileFiles(t *testing.T) {
	dir := t.TempDir()
	hostileFiles(t, dir)
	files, skipped, err := Scan(context.Background(), dir, Options{MaxFileSize: DefaultMaxFileSize}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f.Path))
	}
	if strings.Join(got, ",") != "link.yaml,good.yaml" && strings.Join(got, ",") != "good.yaml,link.yaml" {
		t.Errorf("files %v, want good.yaml and the link to it", got)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	for _, name := range []string{"pipe.yaml", "zero.yaml", "huge.yaml"} {
		if reasons[name] == "" {
			t.Errorf("%s not reported as skipped: %v", name, skipped)
		}
	}
}
