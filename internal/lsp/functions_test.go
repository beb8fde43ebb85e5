package lsp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// pipelineDir is a workspace with a Composition whose pipeline runs
// function-patch-and-transform, crd-lsp's test function (composing two
// Buckets without the region their CRD requires) and P&T again.
var pipelineDir = filepath.Join("..", "..", "testdata", "render", "pipeline")

// copyPipeline copies pipelineDir into a fresh workspace.
func copyPipeline(t *testing.T) string { return copyPipelineTB(t) }

func copyPipelineTB(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"composition.yaml", "crd.yaml", "xrd.yaml", filepath.Join("examples", "xr.yaml")} {
		b, err := os.ReadFile(filepath.Join(pipelineDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// diagLines renders diagnostics as "line:col: severity: message [code]"
// (1-based, as check prints them).
func diagLines(diags []protocol.Diagnostic) []string {
	sev := map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%d:%d: %s: %s [%s]", d.Range.Start.Line+1, d.Range.Start.Character+1, sev[d.Severity], lsptest.Message(d), lsptest.Code(d)))
	}
	return out
}

func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestServerRunsFunctions: with crdLsp.functions naming the test
// function's executable, the server starts it and renders the
// Composition's whole pipeline on the way to diagnostics: the function's
// results land on its step, and a Bucket it composed without the region
// its CRD requires is an error there. The preview shows what the function
// composed. Without the setting nothing runs, and the step says how to
// configure it.
func TestServerRunsFunctions(t *testing.T) {
	bin := fntest.TestFunction(t)
	compose := `32:11: error: spec.forProvider.region is required by Bucket, but the resource "unpatched" that step "compose" composed lacks it (rendered with examples/xr.yaml) [render-required]`
	results := []string{
		`32:11: warning: function-test: buckets are composed without a region [function-result]`,
		`32:11: info: function-test: composed two buckets [function-result]`,
	}
	// crd-lsp's own P&T positions findings on the patch that would write
	// the field (the smallest XR has no region).
	ptNative := `70:24: warning: spec.forProvider.region is required by Bucket, and only set when spec.region is set on the composite resource [render-required]`
	notConfigured := `32:11: info: step "compose" runs function-test, which crd-lsp cannot run until it is configured`

	t.Run("configured", func(t *testing.T) {
		dir := copyPipeline(t)
		e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": bin}}})
		e.AwaitSchemas(30 * time.Second)
		text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
		e.Open("composition.yaml", string(text))
		got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second))
		for _, w := range append([]string{compose, ptNative}, results...) {
			if !hasLine(got, w) {
				t.Errorf("diagnostics lack %q:\n%s", w, strings.Join(got, "\n"))
			}
		}
		e.AwaitLog("composition functions: function-test (executable "+bin+")", 5*time.Second)

		// A keystroke: the function composes a region for "unpatched" now.
		fixed := strings.Replace(string(text), "              size: 5", "              size: 5\n              region: us-east-1", 1)
		e.Change("composition.yaml", fixed)
		got = diagLines(e.AwaitDiagnostics("composition.yaml", 2, 60*time.Second))
		if hasLine(got, compose) || !hasLine(got, results[0]) {
			t.Errorf("after the edit:\n%s", strings.Join(got, "\n"))
		}

		// The preview renders through the function too.
		var yaml string
		u, _ := json.Marshal(string(e.URI("composition.yaml")))
		if err := e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": "crdLsp.render", "arguments": []json.RawMessage{u, json.RawMessage("5")}}, &yaml); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"crossplane.io/composition-resource-name: unpatched", "region: us-east-1", "function-test: buckets are composed without a region"} {
			if !strings.Contains(yaml, w) {
				t.Errorf("preview lacks %q:\n%s", w, yaml)
			}
		}
	})

	t.Run("not configured", func(t *testing.T) {
		dir := copyPipeline(t)
		e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
		e.AwaitSchemas(30 * time.Second)
		text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
		e.Open("composition.yaml", string(text))
		got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second))
		found := false
		for _, l := range got {
			found = found || strings.HasPrefix(l, notConfigured)
		}
		if !found || hasLine(got, compose) || hasLine(got, results[0]) {
			t.Errorf("without the setting:\n%s", strings.Join(got, "\n"))
		}
	})

	t.Run("real patch-and-transform", func(t *testing.T) {
		pt := fntest.PatchAndTransform(t)
		dir := copyPipeline(t)
		e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{
			"functions":             map[string]any{"function-test": bin, "function-patch-and-transform": pt},
			"realPatchAndTransform": true,
		}})
		e.AwaitSchemas(30 * time.Second)
		text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
		e.Open("composition.yaml", string(text))
		got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second))
		if !hasLine(got, compose) {
			t.Errorf("with the real function-patch-and-transform, diagnostics lack %q:\n%s", compose, strings.Join(got, "\n"))
		}
		// The P&T steps ran in the real function, which says nothing of
		// the patches it skipped.
		if hasLine(got, ptNative) {
			t.Errorf("with realPatchAndTransform, the P&T steps ran natively:\n%s", strings.Join(got, "\n"))
		}
		e.AwaitLog("composition functions: function-patch-and-transform (executable "+pt+"), function-test (executable "+bin+")", 5*time.Second)
	})
}

// hangingComposition runs the test function in a step that hangs when
// hang is true.
func hangingComposition(hang bool) string {
	return fmt.Sprintf(`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: hangs
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XApp
  mode: Pipeline
  pipeline:
  - step: maybe-hang
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      hang: %v
      compose:
      - name: bucket
        resource:
          apiVersion: storage.example.org/v1
          kind: Bucket
          spec:
            forProvider:
              size: 1
`, hang)
}

// runDevelopmentFunction runs the test function as a developer runs one
// for crossplane render's Development runtime, on a free loopback port.
// Its stderr lines arrive on the returned channel.
func runDevelopmentFunction(t *testing.T, bin string) (string, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--insecure", "--address", addr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	// Wait for it to listen (or to die, or a minute to pass): each dial
	// attempt fails fast.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("the function exited before listening: %v", err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, lines
		}
	}
	t.Fatalf("the function %s did not listen on %s within a minute", bin, addr)
	return "", nil
}

// developmentFunction is a functions file naming the test function,
// served at target by the developer (crossplane render's Development
// runtime).
func developmentFunction(target string) string {
	return `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: ` + target + `
spec:
  package: xpkg.crossplane.io/crd-lsp/function-test:v0.1.0
`
}

func awaitLine(t *testing.T, lines <-chan string, substr string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, substr) {
				return
			}
		case <-timeout:
			t.Fatalf("the function never wrote %q", substr)
		}
	}
}

// TestHungFunctionDoesNotDelayRequests: a Function of the workspace
// annotated with the Development runtime is used (as crossplane render
// --functions uses it). While the diagnosis waits for that function, which
// hangs, hover, completion, code lenses and code actions answer at once; the next keystroke cancels
// the call, and its own diagnostics are published (the hung version's
// never are). A shorter crdLsp.functionTimeout, applied by replacing the
// registry, turns the hang into a diagnostic on the step.
func TestHungFunctionDoesNotDelayRequests(t *testing.T) {
	bin := fntest.TestFunction(t)
	addr, stderr := runDevelopmentFunction(t, bin)
	dir := copyPipeline(t)
	if err := os.Remove(filepath.Join(dir, "composition.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "functions.yaml"), []byte(developmentFunction(addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{"functionTimeout": 600, "workspaceFunctions": true}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: settings})
	e.AwaitSchemas(30 * time.Second)
	e.Open("composition.yaml", hangingComposition(true))
	awaitLine(t, stderr, "hanging as the input asks")

	// The diagnosis of version 1 is blocked in the function now.
	h := e.Hover("composition.yaml", 1, 2) // kind
	if h == nil || !strings.Contains(fmt.Sprint(h.Contents), "Composition") {
		t.Errorf("hover while a function hangs = %+v", h)
	}
	if items := e.Completion("composition.yaml", 8, 8); len(items) == 0 {
		t.Error("no completion while a function hangs")
	}
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": e.URI("composition.yaml")}}, &lenses); err != nil || len(lenses) == 0 {
		t.Errorf("code lenses while a function hangs: %v, %v", lenses, err)
	}
	if _, err := e.CodeActions("composition.yaml", 11, 10); err != nil {
		t.Errorf("code actions while a function hangs: %v", err)
	}
	if vs := e.PublishedVersions("composition.yaml"); len(vs) != 0 {
		t.Fatalf("diagnostics published while the function hangs: %v", vs)
	}

	// The next keystroke cancels the call.
	e.Change("composition.yaml", hangingComposition(false))
	got := diagLines(e.AwaitDiagnostics("composition.yaml", 2, 60*time.Second))
	want := `11:11: error: spec.forProvider.region is required by Bucket, but the resource "bucket" that step "maybe-hang" composed lacks it (rendered with examples/xr.yaml) [render-required]`
	if !hasLine(got, want) {
		t.Errorf("after the keystroke, diagnostics lack %q:\n%s", want, strings.Join(got, "\n"))
	}
	if vs := e.PublishedVersions("composition.yaml"); len(vs) != 1 || vs[0] != 2 {
		t.Errorf("published versions %v, want [2]", vs)
	}

	// A shorter timeout (a new registry) makes the hang a finding.
	settings["functionTimeout"] = 1
	e.SetSettings(settings)
	e.Change("composition.yaml", hangingComposition(true))
	got = diagLines(e.AwaitDiagnostics("composition.yaml", 3, 60*time.Second))
	found := false
	for _, l := range got {
		found = found || (strings.HasPrefix(l, `11:11: error: step "maybe-hang" failed: function-test (development `+addr+`) did not answer within 1s`) && strings.HasSuffix(l, "[function-failed]"))
	}
	if !found {
		t.Errorf("with a 1s timeout, no function-failed finding on the step:\n%s", strings.Join(got, "\n"))
	}
}

// awaitDiagnosticsWith waits until path's latest published diagnostics
// hold a line containing substr (a publish that no edit of path caused,
// so its version says nothing).
func awaitDiagnosticsWith(t *testing.T, e *lsptest.Editor, path, substr string) []string {
	t.Helper()
	var got []string
	e.Await(path+" diagnostics containing "+substr, 60*time.Second, func() bool {
		got = diagLines(e.Diagnostics(path))
		return strings.Contains(strings.Join(got, "\n"), substr)
	})
	return got
}

// TestWorkspaceFunctionEdits: editing the workspace's functions.yaml
// re-renders the open Compositions with the Functions it now says: a
// Development target outside loopback is refused (never contacted) and
// said so on the step, and the loopback one serves again once restored.
func TestWorkspaceFunctionEdits(t *testing.T) {
	bin := fntest.TestFunction(t)
	addr, _ := runDevelopmentFunction(t, bin)
	dir := copyPipeline(t)
	if err := os.Remove(filepath.Join(dir, "composition.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "functions.yaml"), []byte(developmentFunction(addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"workspaceFunctions": true}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("composition.yaml", hangingComposition(false))
	rendered := `the resource "bucket" that step "maybe-hang" composed lacks it`
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second)); !strings.Contains(strings.Join(got, "\n"), rendered) {
		t.Fatalf("diagnostics lack %q:\n%s", rendered, strings.Join(got, "\n"))
	}

	e.Open("functions.yaml", developmentFunction(addr))
	e.Change("functions.yaml", developmentFunction("192.0.2.1:9443"))
	got := awaitDiagnosticsWith(t, e, "composition.yaml", "[function-failed]")
	if !strings.Contains(strings.Join(got, "\n"), "not on this machine") {
		t.Errorf("a remote target is not refused on the step:\n%s", strings.Join(got, "\n"))
	}
	e.AwaitLog("192.0.2.1:9443", 10*time.Second) // and the user is told

	e.Change("functions.yaml", developmentFunction(addr))
	awaitDiagnosticsWith(t, e, "composition.yaml", rendered)
}

// functionFinding is the test function's finding on the pipeline
// workspace's Composition.
const functionFinding = `32:11: warning: function-test: buckets are composed without a region [function-result]`

// TestFunctionsFileEdits: a crdLsp.functionsFiles file outside the
// workspace (no watcher reports its edits) is read again when it changed:
// the step fails while the file names a target nobody listens on, and the
// next analysis after the file names the running function shows the
// function's finding.
func TestFunctionsFileEdits(t *testing.T) {
	bin := fntest.TestFunction(t)
	addr, _ := runDevelopmentFunction(t, bin)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	fnFile := filepath.Join(t.TempDir(), "functions.yaml")
	write := func(target string) {
		t.Helper()
		if err := os.WriteFile(fnFile, []byte(developmentFunction(target)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dead)
	dir := copyPipeline(t)
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"functionsFiles": []string{fnFile}}})
	e.AwaitSchemas(30 * time.Second)
	text, _ := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	e.Open("composition.yaml", string(text))
	got := diagLines(e.AwaitDiagnostics("composition.yaml", 1, 60*time.Second))
	failed := false
	for _, l := range got {
		failed = failed || (strings.Contains(l, dead) && strings.HasSuffix(l, "[function-failed]"))
	}
	if !failed || hasLine(got, functionFinding) {
		t.Fatalf("with the target %s nobody listens on, want the step failed and no finding of the function:\n%s", dead, strings.Join(got, "\n"))
	}

	write(addr)
	e.Change("composition.yaml", string(text)+"\n")
	if got := diagLines(e.AwaitDiagnostics("composition.yaml", 2, 60*time.Second)); !hasLine(got, functionFinding) || strings.Contains(strings.Join(got, "\n"), "[function-failed]") {
		t.Errorf("after functions.yaml names the running function, want %q and no failure:\n%s", functionFinding, strings.Join(got, "\n"))
	}
}
