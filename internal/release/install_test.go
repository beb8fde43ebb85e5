package release

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// readmeBlock is the fenced block of README.md that follows a line
// containing marker inside it.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	text := string(repoFile(t, "README.md"))
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("README.md has no %q", marker)
	}
	start := strings.LastIndex(text[:i], "```")
	end := strings.Index(text[i:], "\n```")
	if start < 0 || end < 0 {
		t.Fatalf("%q is not inside a fenced block", marker)
	}
	body := text[start : i+end]
	return body[strings.Index(body, "\n")+1:]
}

// TestInstallFromArchiveAsREADMESays: README's install section, run as
// written on this snapshot's Linux archive (VERSION and the platform
// filled in), in a fresh home with a PATH of the system's own folders
// only (no Go, nothing crd-lsp left), with every proxy pointing nowhere:
// the checksum checks, the binary lands on PATH, says its version, and
// checks the example that came in the archive, offline.
func TestInstallFromArchiveAsREADMESays(t *testing.T) {
	s := distDir(t)
	if runtime.GOOS != "linux" {
		t.Skipf("README's commands are for Linux; this is %s", runtime.GOOS)
	}
	script := readmeBlock(t, "# install from a release archive")
	platform := "linux_" + runtime.GOARCH
	script = strings.NewReplacer("VERSION", s.version, "linux_amd64", platform).Replace(script)

	tmp := t.TempDir()
	home, dl := filepath.Join(tmp, "home"), filepath.Join(tmp, "Downloads")
	for _, d := range []string{home, dl} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	archive := s.archive(target{"linux", runtime.GOARCH, ""})
	for _, f := range []string{archive, filepath.Join(s.dir, "checksums.txt")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dl, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("/bin/bash", "-e", "-x", "-c", script)
	cmd.Dir = dl
	nowhere := "http://127.0.0.1:9"
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "TMPDIR=" + tmp,
		"HTTP_PROXY=" + nowhere, "HTTPS_PROXY=" + nowhere, "http_proxy=" + nowhere, "https_proxy=" + nowhere, "NO_PROXY=", "no_proxy="}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := testfixtures.Run(t, cmd, 5*time.Minute)
	if lp, _ := exec.LookPath("/usr/bin/go"); lp != "" {
		t.Logf("note: /usr/bin/go exists; the script did not need it")
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("the install section: %v, want exit status 1 from checking the example (its errors)\n%s\n---\n%s", err, script, out.String())
	}
	for _, want := range []string{
		filepath.Base(archive) + ": OK",
		"crd-lsp " + s.version + "\n",
		fmt.Sprintf("crd-lsp_%s_%s/examples/quickstart/resources.yaml:7:3: error: unknown field \"engin\"", s.version, platform),
		"4 files checked: 8 errors, 2 warnings, 1 info",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the install section's output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "crd-lsp")); err != nil {
		t.Errorf("crd-lsp is not in ~/.local/bin: %v", err)
	}
	t.Logf("%s", out.String())
	if strings.Contains(out.String(), "command not found") {
		t.Errorf("a command of the install section was not found:\n%s", out.String())
	}
}
