package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, strings.NewReader(stdin), &out, &errb) }()
	// A run that never returns fails its test by name (its output is not
	// shown: the stuck run may still be writing it).
	code := testfixtures.AwaitWithin(t, done, 5*time.Minute, "crd-lsp "+strings.Join(args, " ")+" (in process) to return")
	return code, out.String(), errb.String()
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCmd(t, "", "version")
	if code != 0 || !strings.Contains(out, "crd-lsp "+version) || !strings.Contains(out, runtime.Version()) || !strings.Contains(out, "commit: ") {
		t.Errorf("version: code %d, output %q", code, out)
	}
	code, out, _ = runCmd(t, "", "help")
	for _, want := range []string{"serve", "check", "version", "--log-level", "CRD_LSP_LOG", "render", "pull"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q (code %d)", want, code)
		}
	}
	for cmd, flags := range map[string][]string{"check": {"-schemas", "-output", "-composition-mode", "-cache-dir"}, "render": {"-xr", "-schemas"}, "pull": {"-cache-dir", "-insecure"}} {
		code, out, _ = runCmd(t, "", "help", cmd)
		for _, f := range flags {
			if code != 0 || !strings.Contains(out, "crd-lsp "+cmd) || !strings.Contains(out, f) {
				t.Errorf("help %s lacks %s: code %d, %q", cmd, f, code, out)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"check"},
		{"check", "--output", "xml", "x.yaml"},
		{"check", "--unknown-kind", "loud", "x.yaml"},
		{"check", "does/not/exist.yaml"},
		{"check", "--composition-mode", "lax", "x.yaml"},
		{"render"},
		{"render", "does/not/exist.yaml"},
		{"render", "--xr", "does/not/exist.yaml", "../../testdata/render/transforms/composition.yaml"},
		{"render", "--extra-resources", "does/not/exist.yaml", "../../testdata/render/environment/composition.yaml"},
		{"render", "--context", "no-file", "../../testdata/render/environment/composition.yaml"},
		{"serve", "--log-level"},
		{"serve", "--log-level", "chatty"},
		{"--socket=1234"},
	} {
		if code, _, errOut := runCmd(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}
