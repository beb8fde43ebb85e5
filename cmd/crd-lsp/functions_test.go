package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

var pipelineDir = filepath.Join("..", "..", "testdata", "render", "pipeline")

// TestCheckFunctions: a pipeline of function-patch-and-transform, a real
// function crd-lsp starts (its test function) and P&T again, checked with
// --function-exe: the function's results land on its step, a Bucket it
// composed without the region its CRD requires is an error there (with
// the workspace's example XR), and the one the last P&T step patches gets
// the P&T finding on the patch (the smallest XR has no region). Without
// the function, the step is noted as before, saying how to configure it.
func TestCheckFunctions(t *testing.T) {
	bin := fntest.TestFunction(t)
	comp := filepath.Join(pipelineDir, "composition.yaml")
	code, out, errOut := runCmd(t, "", "check", "--function-exe", "function-test="+bin, pipelineDir)
	if code != 1 {
		t.Errorf("exit %d, want 1; stderr %s", code, errOut)
	}
	want := []string{
		comp + `:32:11: warning: function-test: buckets are composed without a region [function-result] at spec.pipeline[1].step`,
		comp + `:32:11: info: function-test: composed two buckets [function-result] at spec.pipeline[1].step`,
		comp + `:32:11: error: spec.forProvider.region is required by Bucket, but the resource "unpatched" that step "compose" composed lacks it (rendered with examples/xr.yaml) [render-required] at spec.pipeline[1].step`,
		comp + `:70:24: warning: spec.forProvider.region is required by Bucket, and only set when spec.region is set on the composite resource [render-required] at spec.pipeline[2].input.resources[0].patches[0].toFieldPath`,
		"4 files checked: 1 error, 2 warnings, 1 info",
	}
	if got := strings.Split(strings.TrimSpace(out), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}

	code, out, _ = runCmd(t, "", "check", pipelineDir)
	for _, w := range []string{
		comp + `:32:11: info: step "compose" runs function-test, which crd-lsp cannot run until it is configured (the crdLsp.functions setting, or --functions FILE for crd-lsp check and render, as for crossplane render)`,
		"4 files checked: 0 errors, 1 warning, 1 info",
	} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("without the function (exit %d), output lacks %q:\n%s", code, w, out)
		}
	}
}

// TestCheckFunctionFailures: a function that hangs is a diagnostic on its
// step once the call timeout passes (check does not hang), and one that
// crashes is one too, with what it wrote; the steps after them do not run.
func TestCheckFunctionFailures(t *testing.T) {
	bin := fntest.TestFunction(t)
	dir := t.TempDir()
	for _, f := range []string{"xrd.yaml", "crd.yaml"} {
		b, err := os.ReadFile(filepath.Join(pipelineDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	comp := testfixtures.Composition{Name: "fails", XRAPIVersion: "example.org/v1", XRKind: "XApp", Steps: `
  - step: %s
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      %s: true
  - step: after
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      compose: [{name: never, resource: {apiVersion: storage.example.org/v1, kind: Bucket}}]
`}.YAML()
	for _, c := range []struct{ what, want string }{
		{"hang", `:11:11: error: step "hang" failed: function-test \(executable .*\) did not answer within 2s: function did not answer in time; the steps after it were not run \[function-failed\] at spec\.pipeline\[0\]\.step`},
		{"crash", `:11:11: error: step "crash" failed: function function-test \(executable .*\): it exited \(exit status 2\); it wrote: panic: crashing as the input asks; the steps after it were not run \[function-failed\] at spec\.pipeline\[0\]\.step`},
	} {
		t.Run(c.what, func(t *testing.T) {
			p := filepath.Join(dir, "composition.yaml")
			if err := os.WriteFile(p, []byte(fmt.Sprintf(comp, c.what, c.what)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCmd(t, "", "check", "--function-exe", "function-test="+bin, "--function-timeout", "2s", dir)
			if code != 1 || !regexp.MustCompile("(?m)^"+regexp.QuoteMeta(p)+c.want+"$").MatchString(out) || !strings.Contains(out, "3 files checked: 1 error, 0 warnings, 0 info") {
				t.Errorf("exit %d, output:\n%s\nwant a line matching %s\nstderr: %s", code, out, c.want, errOut)
			}
		})
	}
}

// TestRenderFunctionsGolden: crd-lsp render --functions takes the
// functions.yaml crossplane render takes: the test function runs as a
// Development target someone started (here, the test) on loopback, and
// the whole pipeline's output is printed, results on stderr. go test
// ./cmd/crd-lsp -run TestRenderFunctionsGolden -update rewrites it.
func TestRenderFunctionsGolden(t *testing.T) {
	bin := fntest.TestFunction(t)
	addr := startFunction(t, bin)
	fnFile := filepath.Join(t.TempDir(), "functions.yaml")
	functionsYAML := `apiVersion: pkg.crossplane.io/v1beta1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: ` + addr + `
spec:
  package: xpkg.crossplane.io/crd-lsp/function-test:v0.1.0
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-patch-and-transform
spec:
  package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.7
`
	if err := os.WriteFile(fnFile, []byte(functionsYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "render", "--functions", fnFile, "--xr", filepath.Join(pipelineDir, "examples", "xr.yaml"), filepath.Join(pipelineDir, "composition.yaml"))
	got := "# exit " + fmt.Sprint(code) + "\n" + notes(errOut) + out
	want := filepath.Join("..", "..", "testdata", "render", "pipeline-functions.yaml")
	if lsptest.Update() {
		if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (go test -run TestRenderFunctionsGolden -update writes it)", err)
	}
	if string(b) != got {
		t.Errorf("rendered output differs from %s:\n--- want\n%s\n--- got\n%s", want, b, got)
	}
	if !strings.Contains(got, "spec.forProvider.region: eu-west-1") && !strings.Contains(got, "region: eu-west-1") {
		t.Errorf("the last P&T step did not patch the function's Bucket:\n%s", got)
	}
}

// startFunction runs a function binary on a free loopback port, as a
// developer runs one for crossplane render's Development runtime, and
// returns its address once it accepts connections.
func startFunction(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--insecure", "--address", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
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
			return addr
		}
	}
	t.Fatalf("the function %s did not listen on %s within a minute", bin, addr)
	return ""
}

// TestRenderNativeStepsWithRealAutoReady: a pipeline of steps crd-lsp
// runs in-process (go-templating composes a ConfigMap, then
// patch-and-transform patches it) and the real function-auto-ready
// (fntest.AutoReadyVersion, built from the Go module proxy) as its last
// step: the native steps' output reaches the real function, which runs,
// and what it returns is the result.
func TestRenderNativeStepsWithRealAutoReady(t *testing.T) {
	bin := fntest.AutoReady(t)
	dir := filepath.Join("..", "..", "testdata", "render", "native-and-real")
	code, out, errOut := runCmd(t, "", "render", "--log-level", "debug", "--function-exe", "function-auto-ready="+bin,
		"--xr", filepath.Join(dir, "xr.yaml"), filepath.Join(dir, "composition.yaml"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "function function-auto-ready: started") || !strings.Contains(errOut, "Running Function") {
		t.Errorf("function-auto-ready did not run:\n%s", errOut)
	}
	for _, want := range []string{"name: web-config", "size: large", "patched: large", "crossplane.io/composition-resource-name: config"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendered output lacks %q:\n%s", want, out)
		}
	}
	// check runs the same pipeline and finds nothing wrong.
	if code, out, errOut := runCmd(t, "", "check", "--function-exe", "function-auto-ready="+bin, dir); code != 0 {
		t.Errorf("check: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestInputFindingsAgreeWithSDKDecoding: what check says of a step's
// input without running anything agrees with how a function built with
// function-sdk-go decodes it (the test function's Typed input: its Go
// type through request.GetInput). For a function crd-lsp has no record
// of, an unknown field or a wrong JSON type is a warning (the real one
// fails the step: its result is the error), and an enum or range its
// input CRD states is information: the real function takes the value as
// it is.
func TestInputFindingsAgreeWithSDKDecoding(t *testing.T) {
	bin := fntest.TestFunction(t)
	xrd, err := os.ReadFile(filepath.Join("..", "..", "testdata", "render", "native-and-real", "xrd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	xr, err := os.ReadFile(filepath.Join("..", "..", "testdata", "render", "native-and-real", "xr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const inputCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: typeds.test.crd-lsp.dev
spec:
  group: test.crd-lsp.dev
  names: {kind: Typed, plural: typeds, listKind: TypedList, singular: typed}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          mode: {type: string, enum: [Fast, Slow]}
          count: {type: integer, minimum: 1}
`
	for _, tc := range []struct {
		name, input string
		static      []string // severity code, in order
		fails       bool     // the real function fails the step
	}{
		// A function crd-lsp has no record of: what its input CRD
		// refuses in values is information, a field or type it does not
		// allow a warning (the real function, built with
		// function-sdk-go, fails the step on those).
		{"enum and range", "mode: Fats, count: 0", []string{"info enum", "info range"}, false},
		{"unknown field", "mode: Fast, cuont: 1", []string{"warning unknown-field"}, true},
		{"wrong type", "mode: Fast, count: one", []string{"warning type"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			comp := testfixtures.Composition{Name: "xapps", XRAPIVersion: "example.org/v1", XRKind: "XApp", FlowRef: true, Steps: `
  - step: typed
    functionRef: {name: function-test}
    input: {apiVersion: test.crd-lsp.dev/v1, kind: Typed, `}.YAML() + tc.input + `}
`
			for name, text := range map[string]string{"xrd.yaml": string(xrd), "xr.yaml": string(xr), "input-crd.yaml": inputCRD, "composition.yaml": comp} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			findings := func(out string) (input []string, step string) {
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					m := regexp.MustCompile(`^.*composition\.yaml:(\d+):\d+: (\w+): .*\[([a-z-]+)\]`).FindStringSubmatch(l)
					switch {
					case m == nil:
					case m[1] == "11":
						input = append(input, m[2]+" "+m[3])
					case m[1] == "9":
						step = m[2] + " " + m[3]
					}
				}
				return input, step
			}
			_, static, _ := runCmd(t, "", "check", dir)
			if got, _ := findings(static); !slices.Equal(got, tc.static) {
				t.Errorf("without the function: %v, want %v\n%s", got, tc.static, static)
			}
			_, real, _ := runCmd(t, "", "check", "--function-exe", "function-test="+bin, dir)
			got, step := findings(real)
			if !slices.Equal(got, tc.static) {
				t.Errorf("with the function: %v, want %v\n%s", got, tc.static, real)
			}
			// (with the example XR: a synthesised one makes a failure a warning)
			if fails := strings.HasPrefix(step, "error "); fails != tc.fails {
				t.Errorf("the real function's step: %q (fails %v, want %v)\n%s", step, fails, tc.fails, real)
			}
		})
	}
}
