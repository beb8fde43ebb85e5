package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/rusage"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestCheckHostileTemplates (issue 25): go-templating templates nested
// ~600,000 actions deep (9 MB: text/template's parser used to die of a
// stack overflow no recover() catches, losing every file's result) or
// deeper than the limit in a small file, are refused before parsing with
// a finding on the template, by the real binary, whose peak memory stays
// under 1 GiB; the other file's finding is still reported.
func TestCheckHostileTemplates(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	deep := 600_000
	files := map[string]string{
		"huge.yaml":    lsptest.GoTemplatingComposition(strings.Repeat("{{if 1}}", deep) + "x" + strings.Repeat("{{end}}", deep)),
		"nested.yaml":  lsptest.GoTemplatingComposition(strings.Repeat("{{if 1}}", 201) + "x" + strings.Repeat("{{end}}", 201)),
		"parens.yaml":  lsptest.GoTemplatingComposition("{{ " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + " }}"),
		"elseifs.yaml": lsptest.GoTemplatingComposition("{{if 0}}" + strings.Repeat("{{else if 0}}", 300) + "{{end}}"),
		"other.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 1}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "check", "--cache-dir", t.TempDir(), dir)
	out, err := testfixtures.CombinedOutput(t, cmd, 5*time.Minute)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("check: %v, want exit 1 (the ConfigMap's error)\n%.2000s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"huge.yaml:16:9: warning: the template is 8.6 MiB, over crd-lsp's limit of 1 MiB: it is not checked or rendered [template-limit]",
		"nested.yaml:17:1611: warning: the template nests blocks and parentheses deeper than crd-lsp's limit of 200 here",
		"parens.yaml:17:11: warning: the template nests blocks and parentheses deeper than crd-lsp's limit of 200 here",
		"elseifs.yaml:17:2606: warning: the template nests blocks and parentheses deeper than crd-lsp's limit of 200 here",
		"other.yaml:4:11: error: must be of type string",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%.3000s", want, text)
		}
	}
	if peak, ok := rusage.PeakRSS(cmd.ProcessState); ok {
		if peak > 1<<30 {
			t.Errorf("check peaked at %d MiB", peak>>20)
		}
	}
}
