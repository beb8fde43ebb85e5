package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestPreCommitHook runs the repository's .pre-commit-hooks.yaml through
// the real pre-commit (Debian's, installed by .ci/run): `pre-commit
// try-repo` installs the hook from this repository (go install, as for any
// user) and runs it on a repository holding the quickstart's files, which
// it fails with check's findings. Missing pre-commit skips, and fails
// under CI=true.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook's environment")
	}
	if _, err := exec.LookPath("pre-commit"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pre-commit not found")
		}
		t.Skip("pre-commit not installed")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	work := t.TempDir()
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	env := append(os.Environ(), "PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit"),
		"GOMODCACHE="+strings.TrimSpace(string(modcache)), // the modules this build already has
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	sh := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = work, env
		out, err := testfixtures.CombinedOutput(t, cmd, 10*time.Minute) // pre-commit installs the hook: a go build
		return string(out), err
	}
	for _, f := range []string{"crd.yaml", "resources.yaml"} {
		b, err := os.ReadFile(filepath.Join(quickstart, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, f), string(b))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
		if out, err := sh("git", args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := sh("pre-commit", "try-repo", repo, "crd-lsp", "--all-files")
	if err == nil || !strings.Contains(out, "- exit code: 1") || !strings.Contains(out, `resources.yaml:7:3: error: unknown field "engin"`) || !strings.Contains(out, "2 files checked") {
		t.Fatalf("pre-commit try-repo: %v\n%s", err, out)
	}
	// Fixed, the hook passes.
	writeFile(t, filepath.Join(work, "resources.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
	if out, err := sh("pre-commit", "try-repo", repo, "crd-lsp", "--all-files"); err != nil || !strings.Contains(out, "Passed") {
		t.Errorf("pre-commit on valid files: %v\n%s", err, out)
	}
}
