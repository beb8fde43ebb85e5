// Package workbench tests the packaged VS Code extension in the real VS
// Code: code-server (VS Code for the browser, installed from the npm
// registry by ../scripts/install-workbench.sh) in Debian's Chromium, through
// playwright-core (../src/workbench/driver.ts). .ci/run installs both;
// without them the test is skipped, except under CI=true, where it fails.
// It is a package of its own so that go test gives it its own time limit.
package workbench

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/flock"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// ext is the extension's folder (package.json, node_modules, scripts).
const ext = ".."

// problem is a Problems panel row as the driver read it from the page.
type problem struct {
	File, Severity, Message, Source, Code string
	Line, Col                             int
}

type workbenchResult struct {
	Steps          []string
	Seconds        map[string]float64
	Error          string
	Status         string
	StatusIcon     string
	Problems       map[string][]problem
	Hover          string
	Completion     []string
	CompletionLine string
	CodeActions    []string
	QuickFixTries  int
	FixedLine      string
	Lenses         []string
	Preview        struct {
		Title string
		Lines []string
	}
	PreviewReadOnly string
	PreviewDirty    bool
	PreviewFollowed []string
	LinkTab         string
	LinkCursor      string
	CloseDialog     bool
}

// expect is an expected Problems row (driver side: line and message part).
type expect struct {
	Line     int    `json:"line"`
	Message  string `json:"message"`
	Severity string `json:"severity,omitempty"`
}

// need finds a tool the test drives or ends the test: skipped locally,
// failed under CI=true (where .ci/run must have installed it).
func need(t *testing.T, what, path, hint string) string {
	t.Helper()
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found (%s): %s", what, path, hint)
	}
	t.Skipf("%s not found (%s): %s", what, path, hint)
	return ""
}

// lockExtension serializes the installs of the extension's node_modules
// (by this test and the extension's own, which go test runs in parallel).
// unlock ends it early.
func lockExtension(t *testing.T) (unlock func()) {
	t.Helper()
	abs, err := filepath.Abs(ext)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	release, err := flock.Lock(filepath.Join(os.TempDir(), "crd-lsp-vscode-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock = func() { once.Do(release) }
	t.Cleanup(unlock)
	return unlock
}

// npmCI installs the extension's locked dependencies unless a previous
// install holds every one of them.
func npmCI(t *testing.T) {
	t.Helper()
	for _, dep := range []string{"vscode-languageclient", "@vscode/vsce", "typescript", "playwright-core"} {
		if _, err := os.Stat(filepath.Join(ext, "node_modules", dep, "package.json")); err != nil {
			cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
			cmd.Dir = ext
			if out, err := testfixtures.CombinedOutput(t, cmd, 20*time.Minute); err != nil { // a cold npm ci downloads hundreds of packages
				t.Fatalf("npm ci: %v\n%s", err, out)
			}
			return
		}
	}
}

// codeServerPath is where scripts/install-workbench.sh puts the locked
// code-server version; its stamp is written last, so it marks a finished install.
func codeServerPath(t *testing.T) string {
	var pkg struct{ Dependencies map[string]string }
	b, err := os.ReadFile(filepath.Join(ext, "code-server", "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		t.Fatal(err)
	}
	tools := os.Getenv("CRD_LSP_TOOLS")
	if tools == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		tools = filepath.Join(cache, "crd-lsp-tools")
	}
	dir := filepath.Join(tools, "code-server-"+pkg.Dependencies["code-server"])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		return ""
	}
	return filepath.Join(dir, "node_modules", ".bin", "code-server")
}

// lineOf is the 1-based line and column of the first occurrence of sub in text.
func lineOf(t *testing.T, text, sub string) (int, int) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if c := strings.Index(l, sub); c >= 0 {
			return i + 1, c + 1
		}
	}
	t.Fatalf("%q not in the fixture", sub)
	return 0, 0
}

// artifacts is the folder for the driver's screenshots: $CRD_LSP_ARTIFACTS
// when set (kept), else a temporary folder kept only when the test fails.
func artifacts(t *testing.T) string {
	if dir := os.Getenv("CRD_LSP_ARTIFACTS"); dir != "" {
		dir = filepath.Join(dir, t.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "crd-lsp-"+t.Name()+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screenshots kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// startCodeServer runs code-server in its own process group on a free
// loopback port and returns its URL once it listens. Cleanup ends the whole
// group: the extension host and the crd-lsp it started outlive the page.
func startCodeServer(t *testing.T, bin string, args []string, env []string) string {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		stopGroup(cmd, false)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
		}
		// Whatever of the group is left (extension host, crd-lsp) goes too.
		stopGroup(cmd, true)
		testfixtures.Await(t, done, "code-server's output to end once its process group was killed")
	})
	listening := regexp.MustCompile(`HTTP server listening on (http://127\.0\.0\.1:\d+)/`)
	urls := make(chan string, 1)
	var log strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			log.WriteString(line + "\n")
			if m := listening.FindStringSubmatch(line); m != nil {
				urls <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
	}()
	select {
	case u := <-urls:
		return u
	case <-done:
		t.Fatalf("code-server exited before listening:\n%s", log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("code-server did not listen within 2 minutes:\n%s", log.String())
	}
	return ""
}

// TestWorkbench installs the linux-x64 .vsix (the server bundled, built by
// scripts/package-platforms.sh, no crdLsp.server.path) into code-server,
// opens a workspace with a CRD, custom resources and a Composition with
// mistakes in Chromium, and checks what a user sees: the Problems panel
// rows with their lines, a hover, completion on a new line, a quick fix
// applied, a settings.json change reaching the server, the "Preview
// rendered" lens opening the rendered YAML, and the status bar item.
func TestWorkbench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts VS Code in a browser")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the workbench test runs the linux-x64 .vsix")
	}
	hint := "run .ci/run, or apt-get install chromium and editors/vscode/scripts/install-workbench.sh"
	chromiumPath, _ := exec.LookPath("chromium")
	chromiumPath = need(t, "chromium", chromiumPath, hint)
	codeServer := need(t, "code-server", codeServerPath(t), hint)
	nodePath, _ := exec.LookPath("node")
	nodePath = need(t, "node", nodePath, hint)
	tmp := t.TempDir()
	shots := artifacts(t)

	bin := lsptest.BuildBinary(t)
	unlock := lockExtension(t)
	npmCI(t)
	unlock()
	// The extension is built and packaged in a copy of its folder (sharing
	// node_modules), so the extension's own test may build meanwhile.
	// The copy keeps the repository's layout: packaging copies the
	// repository's LICENSE and NOTICE into the .vsix (scripts/notices.js).
	stage := filepath.Join(tmp, "repo", "editors", "vscode")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"LICENSE", "NOTICE"} {
		b, err := os.ReadFile(filepath.Join(ext, "..", "..", name))
		if err == nil {
			err = os.WriteFile(filepath.Join(tmp, "repo", name), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"src", "scripts"} {
		if err := os.CopyFS(filepath.Join(stage, dir), os.DirFS(filepath.Join(ext, dir))); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"package.json", "tsconfig.json", ".vscodeignore"} {
		b, err := os.ReadFile(filepath.Join(ext, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(stage, name), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	modules, err := filepath.Abs(filepath.Join(ext, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(stage, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// The platform .vsix as a release packages it, with the server this
	// test suite built (a release cross-compiles its own: a second full
	// build of the module, too slow for a test).
	pack := exec.Command("bash", filepath.Join(stage, "scripts", "package-platforms.sh"), "linux-x64")
	pack.Env = append(os.Environ(), "VSIX_OUT="+tmp, "CRD_LSP_SERVER="+bin)
	if out, err := testfixtures.CombinedOutput(t, pack, 10*time.Minute); err != nil {
		t.Fatalf("package-platforms.sh linux-x64: %v\n%s", err, out)
	}
	vsix := filepath.Join(tmp, "crd-lsp-linux-x64.vsix")

	// The workspace: our fixture (a CRD, custom resources, an XRD and a
	// Composition, with mistakes).
	ws := filepath.Join(tmp, "workspace")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(ext, "..", "testdata", "workspace"))); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	db, comp := read("database.yaml"), read("composition.yaml")

	userData := filepath.Join(tmp, "user-data")
	extensions := filepath.Join(tmp, "extensions")
	settingsFile := filepath.Join(userData, "User", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settingsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The workbench's logs (the extension's output channel with the
		// LSP trace among them) go with the screenshots of a failure.
		if t.Failed() || os.Getenv("CRD_LSP_ARTIFACTS") != "" {
			_ = os.CopyFS(filepath.Join(shots, "logs"), os.DirFS(filepath.Join(userData, "logs")))
		}
	})
	// The web workbench saves by itself unless told not to; the test edits
	// buffers and must leave the files as they are. No server.path: the
	// bundled server must start.
	settings := map[string]any{
		"files.autoSave":                               "off",
		"files.hotExit":                                "off",
		"workbench.startupEditor":                      "none",
		"workbench.tips.enabled":                       false,
		"security.workspace.trust.enabled":             false,
		"telemetry.telemetryLevel":                     "off",
		"extensions.autoCheckUpdates":                  false,
		"extensions.autoUpdate":                        false,
		"editor.wordBasedSuggestions":                  "off",
		"editor.quickSuggestions":                      map[string]string{"other": "off", "comments": "off", "strings": "off"},
		"workbench.editor.enablePreview":               false,
		"window.commandCenter":                         false,
		"workbench.layoutControl.enabled":              false,
		"chat.commandCenter.enabled":                   false,
		"workbench.secondarySideBar.defaultVisibility": "hidden",
	}
	trace := os.Getenv("CRD_LSP_WORKBENCH_TRACE") != ""
	if trace {
		// Every LSP message, in the logs kept with a failure's screenshots.
		settings["crdLsp.trace.server"] = "verbose"
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.WriteFile(settingsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(tmp, "config.yaml")
	if err := os.WriteFile(config, []byte("auth: none\ncert: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Nothing of code-server's state goes to the user's home.
	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(tmp, "data"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	common := []string{"--config", config, "--user-data-dir", userData, "--extensions-dir", extensions}
	install := exec.Command(codeServer, append(common, "--install-extension", vsix)...)
	install.Env = env
	if out, err := testfixtures.CombinedOutput(t, install, 5*time.Minute); err != nil || !strings.Contains(string(out), "was successfully installed") {
		t.Fatalf("installing %s: %v\n%s", vsix, err, out)
	}
	serve := append(common, "--auth", "none", "--bind-addr", "127.0.0.1:0",
		"--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override")
	if trace {
		serve = append(serve, "--log", "trace")
	}
	url := startCodeServer(t, codeServer, serve, env)

	// What the driver waits for, from the fixture's text.
	at := func(text, sub string) int { l, _ := lineOf(t, text, sub); return l }
	hoverLine, hoverCol := lineOf(t, db, "storageGB: \"50\"")
	followLine, followCol := lineOf(t, comp, "app: web")
	noteLine, noteCol := baseSpec(t, comp)
	fixLine, fixCol := lineOf(t, db, "engin:")
	plan := map[string]any{
		"url":          url + "/?folder=" + ws,
		"browser":      chromiumPath,
		"shots":        shots,
		"out":          filepath.Join(tmp, "result.json"),
		"settingsFile": settingsFile,
		"timeoutMs":    120_000,
		"resource": map[string]any{
			"file": "database.yaml",
			"expect": []expect{
				{Line: at(db, "engin:"), Message: `unknown field "engin"`},
				{Line: at(db, "kind: Cache"), Message: "no schema for example.org/v1alpha1 Cache"},
			},
			"hover":             map[string]any{"line": hoverLine, "col": hoverCol + 1, "wait": "Allocated storage in GiB."},
			"completeAfterLine": at(db, "storageGB: 2000"),
			"fix":               map[string]any{"line": fixLine, "col": fixCol, "title": `Change to "engine"`, "want": "  engine: postgres"},
			"setting": map[string]any{"key": "crdLsp.validation.unknownKind", "value": "error",
				"expect": expect{Line: at(db, "kind: Cache"), Message: "no schema for example.org/v1alpha1 Cache", Severity: "error"}},
		},
		"composition": map[string]any{
			"file":         "composition.yaml",
			"expect":       []expect{{Line: at(comp, "toFieldPath: spec.replica"), Message: `field "replica" does not exist`}},
			"lens":         "Preview rendered",
			"wait":         "kind: Deployment",
			"previewTitle": "Preview composition.yaml",
			// The deployment's label, edited in the Composition, in the preview.
			"follow": map[string]any{"line": followLine, "col": followCol + len("app: web"), "text": "x", "want": "app: webx"},
			"link":   map[string]any{"text": fmt.Sprintf("composition.yaml:%d:%d", noteLine, noteCol), "line": noteLine, "col": noteCol},
		},
	}
	planFile := filepath.Join(tmp, "plan.json")
	b, _ = json.MarshalIndent(plan, "", "  ")
	if err := os.WriteFile(planFile, b, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	driver := exec.CommandContext(ctx, nodePath, filepath.Join(stage, "out", "workbench", "driver.js"), planFile)
	driver.Env = env
	// Killed at the deadline, the driver leaves Chromium behind holding
	// the output pipe: stop waiting for the pipe ten seconds later.
	driver.WaitDelay = 10 * time.Second
	out, runErr := driver.CombinedOutput()
	t.Logf("driver ran %s (screenshots in %s)", time.Since(start).Round(time.Second), shots)
	raw, err := os.ReadFile(filepath.Join(tmp, "result.json"))
	if err != nil {
		t.Fatalf("the driver wrote no result (%v): %v\n%s", runErr, err, out)
	}
	var res workbenchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if res.Error != "" || runErr != nil {
		t.Fatalf("driver failed (%v): %s\nsteps: %v\nresult: %s\n%s", runErr, res.Error, res.Steps, raw, out)
	}
	t.Logf("seconds per step: %v; Ctrl+. pressed %d times for the quick fix", res.Seconds, res.QuickFixTries)
	checkWorkbench(t, res, db, comp, extensions)
}

func checkWorkbench(t *testing.T, res workbenchResult, db, comp, extensions string) {
	// The status bar item: running, with the server bundled in the .vsix.
	bundled := filepath.Join(extensions, "crd-lsp.crd-lsp-0.1.0", "bin", "linux-x64", "crd-lsp")
	if res.StatusIcon != "check" || !strings.Contains(res.Status, "crd-lsp (bundled: "+bundled+")") {
		t.Errorf("status item = %q (%s), want the running state and the bundled server %s", res.Status, res.StatusIcon, bundled)
	}

	// The Problems panel lists every diagnostic of the custom resources at its line and column.
	row := func(text, severity, sub, at, code, message string) problem {
		l, c := lineOf(t, text, sub)
		c += strings.Index(sub, at)
		return problem{Severity: severity, Source: "crd-lsp", Code: code, Message: message, Line: l, Col: c}
	}
	missing := row(db, "error", "spec:", "spec", "required", `missing required field "engine"`)
	unknown := row(db, "error", "engin:", "engin", "unknown-field", `unknown field "engin"; did you mean "engine"?`)
	typ := row(db, "error", `storageGB: "50"`, `"50"`, "type", `must be of type integer: "string"`)
	// The CEL rule sits on spec; the second Database's is the line above its engine.
	mysql, _ := lineOf(t, db, "engine: mysql")
	celRule := problem{Severity: "error", Source: "crd-lsp", Code: "cel", Message: "mysql databases are limited to 1000 GiB", Line: mysql - 1, Col: 1}
	cache := row(db, "warning", "kind: Cache", "Cache", "unknown-kind", "no schema for example.org/v1alpha1 Cache: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml")
	celSkipped := row(db, "info", "apiVersion: example.org/v1alpha1", "apiVersion", "cel", "some validation rules (x-kubernetes-validations) were not checked because the object was invalid; correct the existing errors to complete validation")
	checkProblems(t, "database.yaml", res.Problems["initial"], []problem{missing, unknown, typ, celRule, cache, celSkipped})

	if !strings.Contains(res.Hover, "storageGB integer — required") || !strings.Contains(res.Hover, "Allocated storage in GiB.") ||
		!strings.Contains(res.Hover, "minimum: 20") || !strings.Contains(res.Hover, "Schema: workspace file crd.yaml") {
		t.Errorf("hover = %q", res.Hover)
	}

	// On a new line in the second Database's spec: the fields it lacks, not those it has.
	var labels []string
	for _, l := range res.Completion {
		labels = append(labels, strings.SplitN(l, ",", 2)[0])
	}
	if !slices.Contains(labels, "deletionProtection") || !slices.Contains(labels, "tags") || slices.Contains(labels, "engine") || slices.Contains(labels, "storageGB") {
		t.Errorf("completion on a new line in spec = %q, want deletionProtection and tags, not engine or storageGB", res.Completion)
	}

	// crdLsp.validation.unknownKind: error in settings.json turns the warning into an error.
	cacheErr := cache
	cacheErr.Severity = "error"
	checkProblems(t, "database.yaml after the setting", res.Problems["setting"], []problem{missing, unknown, typ, celRule, cacheErr, celSkipped})

	// The quick fix renames the field; both of its diagnostics go, the rest stay.
	if !slices.Contains(res.CodeActions, `Change to "engine"`) || res.FixedLine != "  engine: postgres" {
		t.Errorf("code actions %q, fixed line %q", res.CodeActions, res.FixedLine)
	}
	checkProblems(t, "database.yaml after the fix", res.Problems["fixed"], []problem{typ, celRule, cacheErr, celSkipped})

	deployment, _ := lineOf(t, comp, "kind: Deployment")
	checkProblems(t, "composition.yaml", res.Problems["composition"], []problem{
		// On the base's spec, the line after its kind.
		{Severity: "error", Source: "crd-lsp", Code: "render-required", Message: "spec.selector is required by Deployment, but neither the base nor any patch sets it",
			Line: deployment + 1, Col: strings.Index(strings.Split(comp, "\n")[deployment], "spec:") + 1},
		row(comp, "warning", "toFieldPath: spec.replica", "replica", "fieldpath-unknown", `spec.replica: field "replica" does not exist per the composed resource's schema; did you mean "replicas"?`),
		row(comp, "warning", "toFieldPath: spec.ports[0].port", "spec.ports[0].port", "patch-type", "the patch reads a string, but spec.ports[0].port is an integer"),
	})

	// Lenses: one for the whole Composition, one per resource; the first
	// resource's renders the Deployment as Crossplane would compose it.
	if !slices.Contains(res.Lenses, "Preview rendered (all resources)") || !slices.Contains(res.Lenses, "Preview rendered") {
		t.Errorf("lenses = %q", res.Lenses)
	}
	preview := strings.Join(res.Preview.Lines, "\n")
	for _, want := range []string{"apiVersion: apps/v1\nkind: Deployment", "    crossplane.io/composition-resource-name: deployment", "  generateName: example-xr-", "      - image: example"} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview %q lacks %q:\n%s", res.Preview.Title, want, preview)
		}
	}
	// The preview is a read-only document of its own (no Untitled buffer):
	// typing is refused, it is never dirty, closing asks nothing, and
	// nothing of it is in the Problems panel.
	if !strings.HasPrefix(res.Preview.Title, "Preview composition.yaml") {
		t.Errorf("preview opened in %q, want the read-only preview document", res.Preview.Title)
	}
	noteLine, noteCol := baseSpec(t, comp)
	note := fmt.Sprintf(`# composition.yaml:%d:%d: Deployment "deployment": spec: missing required field "selector"`, noteLine, noteCol)
	if !slices.Contains(res.Preview.Lines, note) {
		t.Errorf("preview lacks the note %q:\n%s", note, preview)
	}
	if res.PreviewReadOnly == "" || res.PreviewDirty {
		t.Errorf("typing into the preview: message %q, dirty %v; want it refused as read-only", res.PreviewReadOnly, res.PreviewDirty)
	}
	if !slices.ContainsFunc(res.PreviewFollowed, func(l string) bool { return strings.Contains(l, "app: webx") }) {
		t.Errorf("after the Composition's edit the preview shows %q", res.PreviewFollowed)
	}
	if !strings.HasPrefix(res.LinkTab, "composition.yaml") || !strings.HasPrefix(res.LinkCursor, fmt.Sprintf("Ln %d, Col %d", noteLine, noteCol)) {
		t.Errorf("the note's link led to %q at %q", res.LinkTab, res.LinkCursor)
	}
	if res.CloseDialog {
		t.Error("closing the preview asked something")
	}
	for _, p := range res.Problems["composition-all"] {
		if p.File != "composition.yaml" && p.File != "database.yaml" {
			t.Errorf("the Problems panel lists %+v: only the workspace's files have problems", p)
		}
	}
}

// baseSpec is the 1-based line and column of the spec key of the
// Deployment's base, where a preview places the selector it lacks.
func baseSpec(t *testing.T, comp string) (int, int) {
	l, _ := lineOf(t, comp, "kind: Deployment")
	spec := strings.Split(comp, "\n")[l]
	return l + 1, strings.Index(spec, "spec:") + 1
}

// checkProblems compares the rows shown for a file with the expected ones, in any order.
func checkProblems(t *testing.T, what string, got, want []problem) {
	t.Helper()
	key := func(p problem) string {
		return fmt.Sprintf("%d:%d %s %s(%s) %s", p.Line, p.Col, p.Severity, p.Source, p.Code, p.Message)
	}
	var g, w []string
	for _, p := range got {
		g = append(g, key(p))
	}
	for _, p := range want {
		w = append(w, key(p))
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: Problems panel shows\n  %s\nwant\n  %s", what, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
}
