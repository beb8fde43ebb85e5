//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// diagLine is one finding of check's text output; summaryLine its last line.
var (
	diagLine    = regexp.MustCompile(`^[^\x00-\x1f\x7f]+:\d+:\d+: (error|warning|info): [^\x00-\x1f\x7f]* \[[a-z-]+\]( at [^\x00-\x1f\x7f]+)?$`)
	summaryLine = regexp.MustCompile(`^\d+ files? checked: (\d+) errors?, (\d+) warnings?, (\d+) info$`)
)

// oneFindingPerLine checks that every line of check's text output is a
// whole finding or the summary, and that there are as many findings as
// the summary counts: nothing printed can start a line of its own.
func oneFindingPerLine(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	m := summaryLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("last line %q is not the summary:\n%s", lines[len(lines)-1], out)
	}
	n := 0
	for _, c := range m[1:] {
		k, _ := strconv.Atoi(c)
		n += k
	}
	if len(lines)-1 != n {
		t.Errorf("%d lines before the summary, which counts %d findings:\n%s", len(lines)-1, n, out)
	}
	for _, l := range lines[:len(lines)-1] {
		if !diagLine.MatchString(l) {
			t.Errorf("not one whole finding: %q", l)
		}
	}
	return lines
}

// TestOutputCannotBeForged: a file name holding an escape sequence, a
// newline with a forged finding after it and a byte that is not UTF-8,
// and a function result holding the same, reach check's text output
// escaped, one finding per line; in --output json the name stays the
// file's (escaped, not replaced).
func TestOutputCannotBeForged(t *testing.T) {
	dir := t.TempDir()
	name := "evil\x1b[2J\nforged.yaml:1:1: error: gotcha \xff.yaml"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "check", dir)
	if code != 1 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	lines := oneFindingPerLine(t, out)
	escaped := filepath.Join(dir, `evil\x1b[2J\nforged.yaml:1:1: error: gotcha \xff.yaml`)
	if !strings.HasPrefix(lines[0], escaped+":4:7: error: ") {
		t.Errorf("first finding %q, want it on %s", lines[0], escaped)
	}

	code, out, _ = runCmd(t, "", "check", "--output", "json", dir)
	var res struct {
		Files []struct {
			Path        string
			PathEscaped bool
			Diagnostics []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &res); code != 1 || err != nil || len(res.Files) != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	f := res.Files[0]
	back, err := strconv.Unquote(`"` + f.Path + `"`)
	if !f.PathEscaped || err != nil || back != filepath.Join(dir, name) || len(f.Diagnostics) != 1 {
		t.Errorf("json path %q (escaped %v): unquotes to %q (%v), want the file's name", f.Path, f.PathEscaped, back, err)
	}

	// A function's result, in the editor a diagnostic with the newline
	// kept, is one escaped line here.
	bin := fntest.TestFunction(t)
	fdir := t.TempDir()
	for _, f := range []string{"xrd.yaml", "crd.yaml"} {
		b, err := os.ReadFile(filepath.Join(pipelineDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fdir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	comp := testfixtures.Composition{Name: "loud", XRAPIVersion: "example.org/v1", XRKind: "XApp", Steps: `
  - step: loud
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      results:
      - severity: Warning
        message: "\e[31mred\e[0m\r\nforged.yaml:1:1: error: gotcha \u202e"
`}.YAML()
	if err := os.WriteFile(filepath.Join(fdir, "composition.yaml"), []byte(comp), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "", "check", "--function-exe", "function-test="+bin, fdir)
	lines = oneFindingPerLine(t, out)
	want := filepath.Join(fdir, "composition.yaml") + `:11:11: warning: function-test: \x1b[31mred\x1b[0m\r\nforged.yaml:1:1: error: gotcha \u202e [function-result] at spec.pipeline[0].step`
	if code != 0 || len(lines) != 2 || lines[0] != want {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s\nstderr: %s", code, out, want, errOut)
	}
}
