package testfixtures

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Need is the program name on PATH, or the test's end: skipped with the
// reason outside CI, failed under CI=true (where .ci/run installs it).
func Need(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is needed and not installed: %v", name, err)
	}
	t.Skipf("%s is not installed: %v", name, err)
	return ""
}

// Tree writes files (slash paths → text) under a new folder and returns
// it.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// GitRepo is a real git repository in a new folder holding files (slash
// paths → text) in one commit on its default branch, for tests that fetch
// it over file://. The test needs git (Need).
func GitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	git := Need(t, "git")
	dir := Tree(t, files)
	for _, args := range [][]string{
		{"init", "--quiet"},
		{"add", "."},
		{"-c", "user.name=crd-lsp test", "-c", "user.email=test@crd-lsp.invalid", "-c", "commit.gpgsign=false", "commit", "--quiet", "-m", "base"},
	} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := CombinedOutput(t, cmd, Patience); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
