// Package neovim holds crd-lsp's end-to-end test through a real editor
// client: headless Neovim, as Debian ships it, driving the built binary.
package neovim

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
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
	// Inject two errors into the real claim, and add an object no schema
	// defines: the docs' setup sets crdLsp.validation.unknownKind to
	// error through settings, which Neovim 0.7 gives only when asked.
	doc := strings.Replace(string(claim), "storageGB: 5", "storageGB: five", 1)
	doc = strings.Replace(doc, "    region:", "    regoin:", 1)
	doc = strings.TrimRight(doc, "\n") + "\n---\napiVersion: example.org/v1\nkind: Nope\nmetadata:\n  name: nope\n"
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
	cmd.Env = append(os.Environ(), "CRD_LSP_FILE="+file, "CRD_LSP_OUT="+outFile, "CRD_LSP_HOVER="+hoverAt(lineOf("storageGB")), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	cmd.Env = append(cmd.Env, docBlocks(t, dir, bin)...)
	b, err := testfixtures.CombinedOutput(t, cmd, 5*time.Minute) // e2e.lua waits 20 s at most per step
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
	nopeLine, nopeCol := lineOf("Nope")
	want := []struct {
		line, col int
		msg       string
	}{
		{paramsLine, paramsCol, `missing required field "region"`},
		{regoinLine, regoinCol, `unknown field "regoin"; did you mean "region"?`},
		{fiveLine, fiveCol, `must be of type integer`},
		{nopeLine, nopeCol, `no schema for example.org/v1 Nope`},
	}
	if len(res.Diagnostics) != len(want) {
		t.Fatalf("diagnostics = %+v, want %d", res.Diagnostics, len(want))
	}
	for i, w := range want {
		d := res.Diagnostics[i]
		// Every one an error (1): unknownKind error came through settings.
		if d.Line != w.line || d.Col != w.col || !strings.Contains(d.Message, w.msg) || d.Source != "crd-lsp" || d.Severity != 1 {
			t.Errorf("diagnostic %d = %+v, want %d:%d %q", i, d, w.line, w.col, w.msg)
		}
	}
	if !strings.Contains(res.Hover, "**storageGB** `integer` — required") {
		t.Errorf("hover = %q", res.Hover)
	}
}

func hoverAt(line, col int) string { return strconv.Itoa(line) + "," + strconv.Itoa(col+1) }

// docBlocks writes docs/editors.md's Neovim blocks, exactly as the docs
// give them, into dir: the Neovim 0.7 setup (under its heading) and the
// :CrdRender command. It returns the environment that hands them to
// e2e.lua, with the built binary first on PATH (the setup runs crd-lsp).
func docBlocks(t *testing.T, dir, bin string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	block := func(after, contains string) string {
		i := strings.Index(doc, after)
		if i < 0 {
			t.Fatalf("docs/editors.md has no %q", after)
		}
		for rest := doc[i:]; ; {
			start := strings.Index(rest, "```lua\n")
			if start < 0 {
				t.Fatalf("docs/editors.md has no lua block with %q after %q", contains, after)
			}
			rest = rest[start+len("```lua\n"):]
			end := strings.Index(rest, "```")
			if code := rest[:end]; strings.Contains(code, contains) {
				return code
			}
			rest = rest[end+3:]
		}
	}
	setup := filepath.Join(dir, "setup.lua")
	render := filepath.Join(dir, "render.lua")
	if err := os.WriteFile(setup, []byte(block("## Neovim 0.7", "vim.lsp.start_client")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(render, []byte(block("## Clients tested in CI", "nvim_create_user_command('CrdRender'")), 0o644); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "crd-lsp")); err != nil {
		t.Fatal(err)
	}
	return []string{"CRD_LSP_SETUP=" + setup, "CRD_LSP_RENDER=" + render, "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// TestNeovimPreviewRendered: in the real editor, a Composition gets
// "Preview rendered" code lenses, and the docs' :CrdRender on one's line
// opens the YAML of the composed resource in a scratch buffer.
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
	cmd.Env = append(os.Environ(), "CRD_LSP_FILE="+filepath.Join(dir, "classic.yaml"), "CRD_LSP_OUT="+outFile, "CRD_LSP_LENS=1", "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CACHE_HOME="+dir)
	cmd.Env = append(cmd.Env, docBlocks(t, dir, bin)...)
	b, err := testfixtures.CombinedOutput(t, cmd, 5*time.Minute) // e2e.lua waits 20 s at most per step
	raw, rerr := os.ReadFile(outFile)
	if rerr != nil {
		t.Fatalf("nvim wrote no result (%v): %v\n%s", err, rerr, b)
	}
	var res struct {
		Error    string   `json:"error"`
		Lenses   []string `json:"lenses"`
		Rendered string   `json:"rendered"`
		Scratch  struct {
			Buftype, Filetype    string
			Modified, Modifiable bool
			Clients, Diagnostics int
		} `json:"scratch"`
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
			t.Errorf("rendered lacks %q:\n%s\n%s", want, res.Rendered, b)
		}
	}
	// The docs' :CrdRender opens a scratch buffer: not a file, never
	// modified, and no client attached to diagnose it.
	if sc := res.Scratch; sc.Buftype != "nofile" || sc.Filetype != "yaml" || sc.Modified || sc.Modifiable || sc.Clients != 0 || sc.Diagnostics != 0 {
		t.Errorf("the preview buffer is %+v, want a YAML scratch buffer without clients", sc)
	}
}

// TestLspConfigFile: editors/neovim/lsp/crd_lsp.lua, the file README
// tells Neovim 0.11 users to copy into ~/.config/nvim/lsp/, is Lua that
// returns the configuration vim.lsp.config reads: crd-lsp from PATH for
// YAML, rooted at crossplane.yaml or .git, settings under crdLsp. (Debian's
// Neovim is 0.7: it evaluates the file; vim.lsp.enable is 0.11's.)
func TestLspConfigFile(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvim not found: .ci/run installs neovim with apt-get")
		}
		t.Skip("nvim not installed")
	}
	out, err := testfixtures.Output(t, exec.Command(nvim, "--headless", "--clean", "-c",
		`lua io.stdout:write(vim.fn.json_encode(dofile('lsp/crd_lsp.lua')))`, "-c", "qa!"), 2*time.Minute)
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	var cfg struct {
		Cmd, Filetypes, RootMarkers []string
		Settings                    map[string]any
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var raw map[string]any
	_ = json.Unmarshal(out, &raw)
	if strings.Join(cfg.Cmd, " ") != "crd-lsp" || strings.Join(cfg.Filetypes, " ") != "yaml" ||
		fmt.Sprint(raw["root_markers"]) != "[crossplane.yaml .git]" || cfg.Settings["crdLsp"] == nil {
		t.Errorf("crd_lsp.lua returns %s", out)
	}
}
