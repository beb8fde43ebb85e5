package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// The command line as users type it, through the built binary.

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// builtBinary builds crd-lsp once per test process (with the VCS stamp
// Go embeds, as a plain go build from a clone does).
func builtBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "crd-lsp-bin")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "crd-lsp")
		// Bounded: a stuck build fails the tests that need the binary,
		// by name, instead of hanging them.
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=auto", "-o", binPath, ".")
		cmd.WaitDelay = 10 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("still running after 15 minutes; killed")
			}
			binErr = &buildError{err, out.String()}
		}
	})
	if binErr != nil {
		t.Fatalf("building crd-lsp: %v", binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	// check picks GitHub annotations under GitHub Actions; the tests
	// read the text output unless they ask otherwise.
	os.Unsetenv("GITHUB_ACTIONS")
	// The binaries the tests run keep decoded schemas in a folder of
	// this test process, not in the user's cache.
	schemaCache, err := os.MkdirTemp("", "crd-lsp-schema-cache")
	if err == nil {
		os.Setenv("CRD_LSP_SCHEMA_CACHE", schemaCache)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if schemaCache != "" {
		os.RemoveAll(schemaCache)
	}
	os.Exit(code)
}

// runBin runs the binary with env added to the test's environment.
func runBin(t *testing.T, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := testfixtures.Run(t, cmd, 5*time.Minute)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

var quickstart = filepath.Join("..", "..", "examples", "quickstart")

// TestBinaryFlagsAnywhere: flags after the path (the issue's
// `crd-lsp check . --output json`), single-dash long flags as Go's flag
// package took them, and render's flags around the Composition, each
// answering exactly as the canonical order does.
func TestBinaryFlagsAnywhere(t *testing.T) {
	code, out, errOut := runBin(t, nil, "", "check", quickstart, "--output", "json")
	if code != 1 {
		t.Fatalf("check PATH --output json: exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Files   []checkedFile `json:"files"`
		Summary summary       `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Summary.Errors == 0 || len(got.Files) == 0 {
		t.Fatalf("check PATH --output json: %v, %+v\n%s", err, got.Summary, out)
	}
	for _, alt := range [][]string{
		{"check", "--output", "json", quickstart},
		{"check", "-output", "json", quickstart},
		{"check", "-output=json", quickstart},
		{"check", quickstart, "--output=json"},
	} {
		c, o, e := runBin(t, nil, "", alt...)
		if c != code || o != out {
			t.Errorf("%v: exit %d (stderr %q), output differs from %q's", alt, c, e, "check PATH --output json")
		}
	}

	dir := t.TempDir()
	fnFile := filepath.Join(dir, "functions.yaml")
	writeFile(t, fnFile, `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-patch-and-transform
spec:
  package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.7
`)
	comp, xr := filepath.Join(pipelineDir, "composition.yaml"), filepath.Join(pipelineDir, "examples", "xr.yaml")
	wantCode, wantOut, wantErr := runBin(t, nil, "", "render", "--functions", fnFile, "--xr", xr, comp)
	if wantCode == 2 || !strings.Contains(wantOut, "kind:") {
		t.Fatalf("render --functions F --xr X COMP: exit %d, stdout %q, stderr %q", wantCode, wantOut, wantErr)
	}
	c, o, e := runBin(t, nil, "", "render", "--functions", fnFile, comp, "--xr", xr)
	if c != wantCode || o != wantOut || e != wantErr {
		t.Errorf("render --functions F COMP --xr X: exit %d, stderr %q; want the canonical order's exit %d and output", c, e, wantCode)
	}
}

// TestBinaryServeFlags: what editors start still starts the server, and
// what it cannot serve is refused with a clear message.
func TestBinaryServeFlags(t *testing.T) {
	// With no client the server sees EOF at once: exit 1 ("client closed
	// the connection"), never a usage error.
	for _, args := range [][]string{nil, {"--stdio"}, {"serve"}, {"serve", "--stdio"}, {"--stdio", "--log-level", "error"}, {"-stdio"}} {
		if code, _, errOut := runBin(t, nil, "", args...); code != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 (EOF before shutdown)", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"--socket=1234"}, {"serve", "--node-ipc"}, {"--clientProcessId=42"}} {
		if code, _, errOut := runBin(t, nil, "", args...); code != 2 || !strings.Contains(errOut, "is not supported; use stdio") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	if code, _, errOut := runBin(t, nil, "", "serve", "extra"); code != 2 || errOut == "" {
		t.Errorf("serve extra: exit %d, stderr %q; want 2", code, errOut)
	}
}

// TestBinaryHelpVersionCompletion: subcommand help, --version, and a
// completion script for each shell cobra supports, which the binary's own
// completion entry point answers.
func TestBinaryHelpVersionCompletion(t *testing.T) {
	code, out, _ := runBin(t, nil, "", "help", "check")
	for _, want := range []string{"crd-lsp check [flags] PATH...", "--output", "sarif", "--schemas", "Exit status"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help check lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	if c, o, _ := runBin(t, nil, "", "render", "--help"); c != 0 || !strings.Contains(o, "--xr") || !strings.Contains(o, "crd-lsp render [flags] COMPOSITION.yaml") {
		t.Errorf("render --help: exit %d\n%s", c, o)
	}
	_, v, _ := runBin(t, nil, "", "version")
	if c, o, _ := runBin(t, nil, "", "--version"); c != 0 || o != v || !strings.HasPrefix(o, "crd-lsp ") {
		t.Errorf("--version: exit %d, %q; want what version says, %q", c, o, v)
	}
	for shell, marker := range map[string]string{"bash": "__start_crd-lsp", "zsh": "#compdef crd-lsp", "fish": "complete -c crd-lsp", "powershell": "Register-ArgumentCompleter"} {
		c, o, e := runBin(t, nil, "", "completion", shell)
		if c != 0 || !strings.Contains(o, marker) {
			t.Errorf("completion %s: exit %d, stderr %q, no %q in the script", shell, c, e, marker)
		}
	}
	// What the scripts call: the values of --output, then the
	// subcommands.
	c, o, _ := runBin(t, nil, "", "__complete", "check", "--output", "")
	for _, f := range outputFormats {
		if c != 0 || !regexp.MustCompile(`(?m)^`+f+`$`).MatchString(o) {
			t.Errorf("completing check --output: no %q in %q", f, o)
		}
	}
	_, o, _ = runBin(t, nil, "", "__complete", "")
	for _, sub := range []string{"check", "render", "pull", "serve", "version", "mcp"} {
		if !regexp.MustCompile(`(?m)^` + sub + `\t`).MatchString(o) {
			t.Errorf("completing a command: no %q in %q", sub, o)
		}
	}
}

// TestBinaryUsageErrors: what the old parser refused is still refused
// with status 2 and a message.
func TestBinaryUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"check"},
		{"check", "x.yaml", "--output", "xml"},
		{"check", "--bogus", "x.yaml"},
		{"render"},
		{"render", "a.yaml", "b.yaml"},
		{"pull", "a", "b"},
		{"version", "extra"},
	} {
		if code, _, errOut := runBin(t, nil, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

// TestBinaryVersion: a build from a clone says the commit Go stamped into
// it (vcs.revision, vcs.time, vcs.modified as `go version -m` reads
// them), and a release build says its -ldflags values.
func TestBinaryVersion(t *testing.T) {
	bin := builtBinary(t)
	_, out, _ := runBin(t, nil, "", "version")
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, l := range strings.Split(string(meta), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "build" {
			if k, v, ok := strings.Cut(f[1], "="); ok {
				settings[k] = v
			}
		}
		if len(f) >= 3 && f[0] == "mod" && f[2] != "(devel)" {
			settings["mod.version"] = f[2]
		}
	}
	// A clone (a .git folder at the module root, git on PATH) is stamped.
	if st, err := os.Stat(filepath.Join("..", "..", ".git")); err == nil && st.IsDir() {
		if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			if settings["vcs.revision"] != strings.TrimSpace(string(head)) {
				t.Errorf("go build from a clone stamped vcs.revision %q, HEAD is %s", settings["vcs.revision"], head)
			}
		}
	}
	if rev := settings["vcs.revision"]; rev != "" {
		want := "commit: " + rev
		if settings["vcs.modified"] == "true" {
			want += " (with uncommitted changes)"
		}
		if !strings.Contains(out, want+"\n") || !strings.Contains(out, "date: "+settings["vcs.time"]+"\n") {
			t.Errorf("version says\n%s\nwant %q and the date %s", out, want, settings["vcs.time"])
		}
	} else if !strings.Contains(out, "commit: unknown\n") {
		t.Errorf("no VCS stamp, yet version says\n%s", out)
	}
	if mv := settings["mod.version"]; mv != "" && !strings.HasPrefix(out, "crd-lsp "+mv+"\n") {
		t.Errorf("version says\n%s\nwant the module version %s", out, mv)
	}

	// A release build.
	rel := filepath.Join(t.TempDir(), "crd-lsp")
	ld := "-X main.version=v9.8.7 -X main.commit=0123456789abcdef -X main.date=2026-01-02T03:04:05Z"
	if b, err := exec.Command("go", "build", "-buildvcs=auto", "-ldflags", ld, "-o", rel, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	o, err := exec.Command(rel, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(o), "crd-lsp v9.8.7\ncommit: 0123456789abcdef\ndate: 2026-01-02T03:04:05Z\ngo: ") {
		t.Errorf("release build says\n%s", o)
	}
}

// TestStamp: the order of the sources, without a build.
func TestStamp(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124080232-9428641f1235+dirty"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "9428641f1235c42d5941b32ef5ad6acc9478281d"}, {Key: "vcs.time", Value: "2026-11-24T08:02:32Z"}, {Key: "vcs.modified", Value: "true"}}}
	read := func() (*debug.BuildInfo, bool) { return info, true }
	got := stampFrom("", "", "", read)
	if got != (buildStamp{Version: info.Main.Version, Commit: "9428641f1235c42d5941b32ef5ad6acc9478281d", Time: "2026-11-24T08:02:32Z", Modified: true}) {
		t.Errorf("from build info: %+v", got)
	}
	if got := stampFrom("v1.0.0", "abc", "", read); got.Version != "v1.0.0" || got.Commit != "abc" || got.Modified || got.Time != "" {
		t.Errorf("release values must win over the VCS stamp: %+v", got)
	}
	none := func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true }
	if got := stampFrom("", "", "", none); got.Version != devVersion || !strings.Contains(got.String(), "commit: unknown\n") {
		t.Errorf("no stamp: %+v", got)
	}
}
