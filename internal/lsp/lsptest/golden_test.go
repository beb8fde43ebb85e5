package lsptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

const syntaxDir = "testdata/golden/syntax"

func TestRunGolden(t *testing.T) {
	lsptest.RunGolden(t, syntaxDir)
}

// The same inputs and golden files hold when the server counts UTF-8.
func TestRunGoldenUTF8(t *testing.T) {
	if lsptest.Update() {
		t.Skip("goldens are written by TestRunGolden")
	}
	lsptest.RunGoldenConfig(t, lsptest.Config{Dir: syntaxDir, PositionEncodings: []string{"utf-8", "utf-16"}})
}

// TestCheckerFailsOnWrongMarkers proves the checker the other way round:
// variants of a passing file whose markers do not describe what the
// server publishes are reported, each with the expected complaint.
func TestCheckerFailsOnWrongMarkers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(syntaxDir, "three-docs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(src)
	const marker = "#^ diag error yaml-syntax \".\"\n"
	if !strings.Contains(good, marker) {
		t.Fatalf("three-docs.yaml lacks %q", marker)
	}
	variants := []struct {
		name, text string
		want       []string // substrings, each of some problem
	}{
		{"good", good, nil},
		{"no-marker", strings.Replace(good, marker, "", 1),
			[]string{"unexpected diagnostic (no diag marker): 14:2 error [yaml-syntax] did not find expected key"}},
		{"wrong-column", strings.Replace(good, marker, "# ^ diag error yaml-syntax \".\"\n", 1),
			[]string{"14:3: no error [yaml-syntax] diagnostic", "unexpected diagnostic"}},
		{"wrong-severity", strings.Replace(good, marker, "#^ diag warning yaml-syntax \".\"\n", 1),
			[]string{"no warning [yaml-syntax]", "unexpected diagnostic"}},
		{"wrong-code", strings.Replace(good, marker, "#^ diag error unknown-field \".\"\n", 1),
			[]string{"no error [unknown-field]"}},
		{"any-code", strings.Replace(good, marker, "#^ diag error - \"expected key\"\n", 1), nil},
		{"wrong-message", strings.Replace(good, marker, "#^ diag error yaml-syntax \"^tab\"\n", 1),
			[]string{`matching "^tab"`}},
		{"nodiag-on-error", strings.Replace(good, marker, marker+"# ^ nodiag\n", 1),
			[]string{"14: diagnostic on a nodiag line"}},
		{"diag-on-clean-line", strings.Replace(good, "  name: third\n", "  name: third\n# ^ diag error - \".\"\n", 1),
			[]string{"21:3: no error [-] diagnostic"}},
		{"bad-marker", good + "# ^ dig error - \".\"\n", []string{`unknown marker verb "dig"`}},
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	for _, v := range variants {
		e.Open(v.name+".yaml", v.text)
	}
	for _, v := range variants {
		e.AwaitDiagnostics(v.name+".yaml", 1, 10*time.Second)
	}
	for _, v := range variants {
		problems, golden := e.CheckFile(v.name+".yaml", v.text)
		all := strings.Join(problems, "\n")
		if len(v.want) == 0 && len(problems) > 0 {
			t.Errorf("%s: unexpected problems:\n%s", v.name, all)
		}
		if len(v.want) > 0 && len(problems) == 0 {
			t.Errorf("%s: the checker found nothing wrong", v.name)
		}
		for _, w := range v.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no problem mentions %q; got:\n%s", v.name, w, all)
			}
		}
		if v.name == "good" && golden != "14:2 error [yaml-syntax] did not find expected key\n" {
			t.Errorf("golden text = %q", golden)
		}
	}
}
