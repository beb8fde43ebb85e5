// Package neovim holds crd-lsp's end-to-end test through a real editor
// client: headless Neovim, as Debian ships it, driving the built binary.
package neovim

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

type result struct {
	Client      bool
	Error       string
	Diagnostics []struct {
		Line, Col int
		Message   string
		Source    string
		Severity  int
	}
	Hover string
}

// TestNeovim opens a corpus Deployment-like file with injected errors in
// headless Neovim, waits for vim.diagnostic.get to settle, checks each
// diagnostic's line and message, and requests hover.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvim not found: .ci/run installs neovim with apt-get")
		}
		t.Skip("nvim not installed")
	}
	c := corpus.Dir(t)
	bin := lsptest.BuildBinary(t)
	dir := t.TempDir()
	// A real XR example from the corpus with its XRD beside it, plus
	// injected errors.
	src := filepath.Join(c, "compositions", "upbound-configuration-aws-database", "v0.15.0")
	xrd, err := os.ReadFile(filepath.Join(src, "apis", "definition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "definition.yaml"), xrd, 0o644); err != nil {
		t.Fatal(err)
	}
	claim, err := os.ReadFile(filepath.Join(src, "examples", "mariadb-claim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Inject two errors into the real claim.
	doc := strings.Replace(string(claim), "storageGB: 5", "storageGB: five", 1)
	doc = strings.Replace(doc, "    region:", "    regoin:", 1)
	lines := strings.Split(doc, "\n")
	lineOf := func(sub string) (int, int) {
		for i, l := range lines {
			if c := strings.Index(l, sub); c >= 0 {
				return i, c
			}
		}
		t.Fatalf("%q not in the claim", sub)
		return 0, 0
	}
	file := filepath.Join(dir, "claim.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.json")
	script, _ := filepath.Abs("e2e.lua")
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "CRD_LSP_BIN="+bin, "CRD_LSP_FILE="+file, "CRD_LSP_OUT="+outFile, "CRD_LSP_HOVER="+hoverAt(lineOf("storageGB")), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	b, err := cmd.CombinedOutput()
	raw, rerr := os.ReadFile(outFile)
	if rerr != nil {
		t.Fatalf("nvim wrote no result (%v): %v\n%s", err, rerr, b)
	}
	var res result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if res.Error != "" || !res.Client {
		t.Fatalf("nvim script failed: %s\n%s", res.Error, b)
	}
	regoinLine, regoinCol := lineOf("regoin")
	paramsLine, paramsCol := lineOf("parameters")
	fiveLine, fiveCol := lineOf("five")
	want := []struct {
		line, col int
		msg       string
	}{
		{paramsLine, paramsCol, `missing required field "region"`},
		{regoinLine, regoinCol, `unknown field "regoin"; did you mean "region"?`},
		{fiveLine, fiveCol, `must be of type integer`},
	}
	if len(res.Diagnostics) != len(want) {
		t.Fatalf("diagnostics = %+v, want %d", res.Diagnostics, len(want))
	}
	for i, w := range want {
		d := res.Diagnostics[i]
		if d.Line != w.line || d.Col != w.col || !strings.Contains(d.Message, w.msg) || d.Source != "crd-lsp" {
			t.Errorf("diagnostic %d = %+v, want %d:%d %q", i, d, w.line, w.col, w.msg)
		}
	}
	if !strings.Contains(res.Hover, "**storageGB** `integer` — required") {
		t.Errorf("hover = %q", res.Hover)
	}
}

func hoverAt(line, col int) string { return strconv.Itoa(line) + "," + strconv.Itoa(col+1) }

// TestNeovimPreviewRendered: in the real editor, a Composition gets
// "Preview rendered" code lenses, and running one returns the YAML of the
// composed resource.
func TestNeovimPreviewRendered(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvim not found: .ci/run installs neovim with apt-get")
		}
		t.Skip("nvim not installed")
	}
	bin := lsptest.BuildBinary(t)
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "golden", "compositions-v1")
	for _, name := range []string{"classic.yaml", "definition.yaml", "crossplane.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outFile := filepath.Join(dir, "out.json")
	script, _ := filepath.Abs("e2e.lua")
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "CRD_LSP_BIN="+bin, "CRD_LSP_FILE="+filepath.Join(dir, "classic.yaml"), "CRD_LSP_OUT="+outFile, "CRD_LSP_LENS=1", "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CACHE_HOME="+dir)
	b, err := cmd.CombinedOutput()
	raw, rerr := os.ReadFile(outFile)
	if rerr != nil {
		t.Fatalf("nvim wrote no result (%v): %v\n%s", err, rerr, b)
	}
	var res struct {
		Error     string   `json:"error"`
		Lenses    []string `json:"lenses"`
		Rendered  string   `json:"rendered"`
		RenderErr string   `json:"render_error"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if res.Error != "" {
		t.Fatalf("nvim script failed: %s\n%s", res.Error, b)
	}
	if len(res.Lenses) != 2 || res.Lenses[0] != "Preview rendered (all resources)" || res.Lenses[1] != "Preview rendered" {
		t.Errorf("lenses = %q", res.Lenses)
	}
	for _, want := range []string{"\nkind: Instance", "crossplane.io/composition-resource-name: rdsinstance", "generateName: example-xr-"} {
		if !strings.Contains(res.Rendered, want) {
			t.Errorf("rendered lacks %q (error %q):\n%s", want, res.RenderErr, res.Rendered)
		}
	}
}
