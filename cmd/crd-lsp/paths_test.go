package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestCheckWindowsShapedFiles: the quickstart example as a Windows user
// has it — every file with CRLF line endings, in folders whose names have
// spaces and non-ASCII letters — checked by the built binary gives the
// findings it gives with LF endings, on the same lines and columns, under
// the path as given (text and JSON).
func TestCheckWindowsShapedFiles(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	dir := filepath.Join(t.TempDir(), "my project", "zoë €", "quick start")
	src := filepath.Join("..", "..", "examples", "quickstart")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "\r") {
			t.Fatalf("%s already has CR characters", p)
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(strings.ReplaceAll(string(b), "\n", "\r\n")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "check", "--cache-dir", t.TempDir(), dir)
	cmd.Env = append(os.Environ(), "CRD_LSP_SCHEMA_CACHE=off")
	out, err := testfixtures.Output(t, cmd, 5*time.Minute)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("check: %v, want exit 1 (the example's errors)\n%s", err, out)
	}
	res := filepath.Join(dir, "resources.yaml")
	comp := filepath.Join(dir, "composition.yaml")
	for _, want := range []string{
		res + `:6:1: error: missing required field "engine" [required]`,
		res + `:7:3: error: unknown field "engin"; did you mean "engine"? [unknown-field]`,
		res + `:8:14: error: must be of type integer: "string" [type]`,
		res + `:19:1: error: mysql databases are limited to 1000 GiB [cel]`,
		res + `:28:13: error: must be of type integer: "string" [type]`,
		comp + `:25:15: error: spec.selector is required by Deployment, but neither the base nor any patch sets it [render-required]`,
		comp + `:37:35: warning: spec.replica: field "replica" does not exist per the composed resource's schema; did you mean "replicas"? [fieldpath-unknown]`,
		comp + `:50:30: warning: the patch reads a string, but spec.ports[0].port is an integer [patch-type]`,
		"4 files checked: 8 errors, 2 warnings, 1 info",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "\r") {
		t.Errorf("a CR from the files reached the output:\n%q", out)
	}
	js, _ := testfixtures.Output(t, exec.Command(bin, "check", "--cache-dir", t.TempDir(), "--output", "json", dir), 5*time.Minute)
	var parsed struct {
		Files []struct {
			Path        string
			PathEscaped bool
			Diagnostics []struct{ Line, Column int }
		}
	}
	if err := json.Unmarshal(js, &parsed); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js)
	}
	found := false
	for _, f := range parsed.Files {
		if f.Path != res {
			continue
		}
		found = !f.PathEscaped
		at := map[[2]int]bool{}
		for _, d := range f.Diagnostics {
			at[[2]int{d.Line, d.Column}] = true
		}
		if !at[[2]int{7, 3}] || !at[[2]int{28, 13}] {
			t.Errorf("JSON %s: findings at %+v, want 7:3 and 28:13 among them", res, f.Diagnostics)
		}
	}
	if !found {
		t.Errorf("JSON names no file %q unescaped:\n%s", res, js)
	}
}
