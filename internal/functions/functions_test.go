package functions

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/proto/v1beta1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// testRegistry runs crd-lsp's test function (testdata/fn, a real
// function-sdk-go function) as the executable of "function-test", and
// collects what it logs.
func testRegistry(t *testing.T) (*Registry, *logLines) {
	t.Helper()
	bin := fntest.TestFunction(t)
	logs := &logLines{}
	r := New(Config{Executables: map[string]Executable{"function-test": {Path: bin}}, Logf: logs.add})
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r, logs
}

// logLines collects log lines and lets a test wait for one.
type logLines struct {
	mu    sync.Mutex
	lines []string
	wait  []chan struct{}
}

func (l *logLines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	for _, c := range l.wait {
		close(c)
	}
	l.wait = nil
}

// waitFor blocks until a line containing s was logged (or ctx ends).
func (l *logLines) waitFor(ctx context.Context, s string) error {
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if strings.Contains(line, s) {
				l.mu.Unlock()
				return nil
			}
		}
		c := make(chan struct{})
		l.wait = append(l.wait, c)
		l.mu.Unlock()
		select {
		case <-c:
		case <-ctx.Done():
			return fmt.Errorf("no log line with %q: %w", s, ctx.Err())
		}
	}
}

func yamlMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := sigsyaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const xrYAML = `
apiVersion: example.org/v1
kind: XApp
metadata: {name: app, namespace: team}
spec: {size: 3}
`

// TestPipelineRealFunction runs a four-step pipeline through the real test
// function: resources composed by one step reach the next, context set by
// one step is read by a later one, results and conditions of each severity
// come back per step, credentials get the caller's placeholders (or empty
// data), an unconfigured step passes the desired state through, and each
// desired resource knows the step that last changed it.
func TestPipelineRealFunction(t *testing.T) {
	r, _ := testRegistry(t)
	comp := yamlMap(t, `
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
  - step: first
    functionRef: {name: function-test}
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      setContext: {greeting: hello, count: 2}
      compose:
      - name: a
        resource: {apiVersion: v1, kind: ConfigMap, data: {from: first}}
        ready: true
      results:
      - {severity: Normal, message: composed a, reason: Composed, target: CompositeAndClaim}
      conditions:
      - {type: DatabaseReady, status: "False", reason: Creating, message: not yet}
  - step: second
    functionRef: {name: function-test}
    credentials:
    - {name: given, source: Secret, secretRef: {namespace: ns, name: creds}}
    - {name: missing, source: Secret, secretRef: {namespace: ns, name: nope}}
    - {name: none, source: None}
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      compose:
      - name: b
        resource: {apiVersion: v1, kind: ConfigMap}
        fromContext: {greeting: seen, count: number}
      results:
      - {severity: Warning, message: careful}
      echo: echo
  - step: unconfigured
    functionRef: {name: function-kcl}
    input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput}
  - step: fourth
    functionRef: {name: function-test}
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      compose:
      - name: a
        resource: {apiVersion: v1, kind: ConfigMap, data: {from: fourth}}
`)
	out := Run(context.Background(), Input{
		Composition:         comp,
		XR:                  yamlMap(t, xrYAML),
		XRConnectionDetails: map[string][]byte{"password": []byte("placeholder")},
		Credentials:         map[string]map[string][]byte{"ns/creds": {"token": []byte("xyz")}},
		Route:               r.Route,
		Timeout:             time.Minute,
	})
	if out.Err != nil || out.Stopped != -1 {
		t.Fatalf("pipeline stopped at %d: %v %+v", out.Stopped, out.Err, out.Steps)
	}
	if len(out.Steps) != 4 {
		t.Fatalf("steps = %d", len(out.Steps))
	}
	for i, s := range out.Steps {
		if s.Err != nil {
			t.Fatalf("step %d: %v", i, s.Err)
		}
	}
	first, second, skipped, fourth := out.Steps[0], out.Steps[1], out.Steps[2], out.Steps[3]
	if !strings.HasPrefix(first.Runner, "function-test (executable ") {
		t.Errorf("runner = %q", first.Runner)
	}
	if want := []Result{{Severity: SeverityNormal, Message: "composed a", Reason: "Composed", Target: TargetCompositeAndClaim}}; fmt.Sprint(first.Results) != fmt.Sprint(want) {
		t.Errorf("first results = %+v", first.Results)
	}
	if want := []Condition{{Type: "DatabaseReady", Status: "False", Reason: "Creating", Message: "not yet", Target: TargetComposite}}; fmt.Sprint(first.Conditions) != fmt.Sprint(want) {
		t.Errorf("first conditions = %+v", first.Conditions)
	}
	if fmt.Sprint(first.Composed) != "[a]" || fmt.Sprint(second.Composed) != "[b echo]" || fmt.Sprint(fourth.Composed) != "[a]" {
		t.Errorf("composed per step: %v %v %v", first.Composed, second.Composed, fourth.Composed)
	}
	if len(second.Results) != 1 || second.Results[0].Severity != SeverityWarning || second.Results[0].Message != "careful" {
		t.Errorf("second results = %+v", second.Results)
	}
	if !skipped.Skipped || skipped.Runner != "" || skipped.Calls != 0 {
		t.Errorf("unconfigured step: %+v", skipped)
	}
	d := out.Desired
	if fmt.Sprint(d.Names()) != "[a b echo]" {
		t.Fatalf("desired = %v", d.Names())
	}
	if a := d.Resources["a"]; a.Step != 3 || a.Object["data"].(map[string]any)["from"] != "fourth" || a.Ready != ReadyUnspecified {
		t.Errorf("a = %+v (the fourth step replaced it)", a)
	}
	b := d.Resources["b"].Object["data"].(map[string]any)
	if b["seen"] != "hello" || b["number"] != "2" || d.Resources["b"].Step != 1 {
		t.Errorf("b (context from the first step) = %v", b)
	}
	echo := d.Resources["echo"].Object["data"].(map[string]any)
	want := map[string]any{
		"observed-composite":  "app",
		"observed-connection": "password:placeholder",
		"desired":             "a",
		"observed":            "",
		"context":             "count,greeting",
		"credentials":         "given=token:xyz;missing=",
		"required":            "",
		"input-kind":          "Script",
		"tag-set":             "true",
	}
	for k, v := range want {
		if echo[k] != v {
			t.Errorf("the second request's %s = %q, want %q", k, echo[k], v)
		}
	}
	if out.Context["greeting"] != "hello" || out.Context["count"] != int64(2) {
		t.Errorf("final context = %v", out.Context)
	}
}

// TestPipelineFatal: a Fatal result stops the pipeline, as in Crossplane;
// the fatal step's desired state is not kept and later steps do not run.
func TestPipelineFatal(t *testing.T) {
	r, _ := testRegistry(t)
	comp := yamlMap(t, `
spec:
  pipeline:
  - step: one
    functionRef: {name: function-test}
    input: {apiVersion: test.crd-lsp.dev/v1, kind: Script, compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]}
  - step: two
    functionRef: {name: function-test}
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      compose: [{name: c, resource: {apiVersion: v1, kind: ConfigMap}}]
      results: [{severity: Warning, message: first a warning}, {severity: Fatal, message: cannot go on}]
  - step: three
    functionRef: {name: function-test}
    input: {apiVersion: test.crd-lsp.dev/v1, kind: Script}
`)
	out := Run(context.Background(), Input{Composition: comp, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: time.Minute})
	if out.Stopped != 1 || len(out.Steps) != 2 {
		t.Fatalf("stopped = %d, steps = %d", out.Stopped, len(out.Steps))
	}
	f, ok := out.Steps[1].Fatal()
	if !ok || f.Message != "cannot go on" || out.Steps[1].Results[0].Severity != SeverityWarning {
		t.Errorf("results = %+v", out.Steps[1].Results)
	}
	if fmt.Sprint(out.Desired.Names()) != "[a]" {
		t.Errorf("desired after a Fatal = %v, want what step one left", out.Desired.Names())
	}
}

// TestPipelineRequirements: a step's required resources are fetched from
// the given resources (by name, by labels, in a namespace) and the step is
// called again with them; bootstrap requirements arrive with the first
// call.
func TestPipelineRequirements(t *testing.T) {
	r, _ := testRegistry(t)
	comp := yamlMap(t, `
spec:
  pipeline:
  - step: needs
    functionRef: {name: function-test}
    requirements:
      requiredResources:
      - {requirementName: boot, apiVersion: v1, kind: ConfigMap, name: env-a}
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      require:
        byName: {apiVersion: v1, kind: ConfigMap, matchName: env-b}
        byLabel: {apiVersion: v1, kind: ConfigMap, matchLabels: {tier: gold}, namespace: ns1}
        absent: {apiVersion: v1, kind: Secret, matchName: nope}
      echo: echo
`)
	res := func(name, ns string, labels map[string]any) map[string]any {
		md := map[string]any{"name": name, "namespace": ns}
		if labels != nil {
			md["labels"] = labels
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	}
	out := Run(context.Background(), Input{
		Composition: comp, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: time.Minute,
		Resources: []map[string]any{
			res("env-a", "ns1", nil), res("env-b", "ns1", nil),
			res("gold-2", "ns1", map[string]any{"tier": "gold"}), res("gold-1", "ns1", map[string]any{"tier": "gold"}),
			res("gold-other-ns", "ns2", map[string]any{"tier": "gold"}), res("silver", "ns1", map[string]any{"tier": "silver"}),
		},
	})
	if out.Stopped != -1 || out.Steps[0].Err != nil {
		t.Fatalf("stopped: %+v", out.Steps)
	}
	st := out.Steps[0]
	if st.Calls != 2 {
		t.Errorf("calls = %d, want 2 (one to learn the requirements, one with them)", st.Calls)
	}
	echo := out.Desired.Resources["echo"].Object["data"].(map[string]any)
	if want := "absent=;boot=env-a;byLabel=gold-1,gold-2;byName=env-b"; echo["required"] != want {
		t.Errorf("required resources seen = %q, want %q", echo["required"], want)
	}
	if len(st.Requirements) != 3 || st.Requirements[1].Name != "byLabel" || st.Requirements[1].Namespace != "ns1" {
		t.Errorf("requirements = %+v", st.Requirements)
	}
}

func pidOf(t *testing.T, r *Registry, fn string) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.backends[fn].(*processBackend)
	if !ok || b.cur == nil {
		t.Fatalf("no process for %s", fn)
	}
	return b.cur.cmd.Process.Pid
}

func script(t *testing.T, s string) Step {
	return Step{Name: "s", Function: "function-test", Input: yamlMap(t, "apiVersion: test.crd-lsp.dev/v1\nkind: Script\n"+s)}
}

func request(t *testing.T, st Step) *fnv1.RunFunctionRequest {
	t.Helper()
	in, err := ToStruct(st.Input)
	if err != nil {
		t.Fatal(err)
	}
	xr, _ := ToStruct(yamlMap(t, xrYAML))
	return &fnv1.RunFunctionRequest{Input: in, Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: xr}}, Desired: &fnv1.State{}}
}

// TestCrashIsAStepErrorAndRestarts: a function that crashes mid-call is an
// error that says how it ended and what it wrote, and the next call starts
// the executable again.
func TestCrashIsAStepErrorAndRestarts(t *testing.T) {
	r, _ := testRegistry(t)
	ctx := context.Background()
	ok := script(t, "compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]")
	if _, err := r.Run(ctx, ok, request(t, ok)); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, r, "function-test")
	crash := script(t, "crash: true")
	out := Run(ctx, Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "boom", "functionRef": map[string]any{"name": "function-test"}, "input": crash.Input},
	}}}, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: time.Minute})
	err := out.Steps[0].Err
	var ce *CallError
	if out.Stopped != 0 || !errors.As(err, &ce) {
		t.Fatalf("stopped %d, err %v", out.Stopped, err)
	}
	if ce.Exit != "exit status 2" || !strings.Contains(ce.Output, "crashing as the input asks") {
		t.Errorf("exit %q, output %q", ce.Exit, ce.Output)
	}
	if msg := err.Error(); !strings.Contains(msg, "function function-test (executable ") || !strings.Contains(msg, "it exited (exit status 2)") ||
		!strings.Contains(msg, "panic: crashing as the input asks") {
		t.Errorf("message: %s", msg)
	}
	rsp, err := r.Run(ctx, ok, request(t, ok))
	if err != nil || len(rsp.GetDesired().GetResources()) != 1 {
		t.Fatalf("after a crash: %v %v", rsp, err)
	}
	if pid2 := pidOf(t, r, "function-test"); pid2 == pid {
		t.Errorf("still pid %d after the crash", pid)
	}
}

// TestHangTimesOutWithoutBlocking: a call that hangs ends at its timeout
// (or when cancelled) as an error value, and does not hold up other calls
// to the same function meanwhile.
func TestHangTimesOutWithoutBlocking(t *testing.T) {
	r, logs := testRegistry(t)
	bg := context.Background()
	hang := script(t, "hang: true")
	hctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(hctx, hang, request(t, hang))
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(bg, time.Minute)
	defer wcancel()
	if err := logs.waitFor(wctx, "hanging as the input asks"); err != nil {
		t.Fatal(err)
	}
	ok := script(t, "compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]")
	if _, err := r.Run(wctx, ok, request(t, ok)); err != nil {
		t.Fatalf("a call while another hangs: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the hung call returned before it was cancelled: %v", err)
	default:
	}
	cancel()
	if err := testfixtures.Await(t, done, "the hung call to return once cancelled"); err == nil || !strings.Contains(err.Error(), "the call was cancelled") {
		t.Errorf("cancelled hung call: %v", err)
	}
	// Through the pipeline, a hang is a step error at the timeout.
	out := Run(bg, Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "stuck", "functionRef": map[string]any{"name": "function-test"}, "input": hang.Input},
	}}}, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: 300 * time.Millisecond})
	if err := out.Steps[0].Err; !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Errorf("hung step: %v", err)
	}
}

// TestCloseStopsProcesses: Close kills the executables it started.
func TestCloseStopsProcesses(t *testing.T) {
	bin := fntest.TestFunction(t)
	r := New(Config{Executables: map[string]Executable{"function-test": {Path: bin}}})
	ok := script(t, "compose: []")
	if _, err := r.Run(context.Background(), ok, request(t, ok)); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, r, "function-test")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Errorf("process %d still runs after Close", pid)
	}
	if _, err := r.Run(context.Background(), ok, request(t, ok)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("run after Close: %v", err)
	}
}

// TestDevelopmentTarget: a Function with crossplane render's Development
// annotations is reached at its target (here the test function started by
// hand, as a developer would); targets outside loopback are refused unless
// allowed, and a target answering garbage is an error, not a hang.
func TestDevelopmentTarget(t *testing.T) {
	bin := fntest.TestFunction(t)
	port := mustFreePort(t)
	cmd := exec.Command(bin, "--insecure", "--address", "127.0.0.1:"+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	fns, err := ParseFunctions([]byte(fmt.Sprintf(`
apiVersion: pkg.crossplane.io/v1beta1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: 127.0.0.1:%d
spec: {package: xpkg.crossplane.io/example/function-test:v0.1.0}
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-remote
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: 192.0.2.10:9443
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-docker}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
`, port)))
	if err != nil || len(fns) != 3 {
		t.Fatalf("ParseFunctions: %v %+v", err, fns)
	}
	r := New(Config{Functions: fns})
	defer r.Close()
	if src, where, ok := r.Configured("function-docker"); ok {
		t.Errorf("a Docker Function runs without Docker enabled: %s %s", src, where)
	}
	probs := r.Problems()
	if !errors.Is(probs["function-remote"], ErrRemoteTarget) || len(probs) != 1 {
		t.Errorf("problems = %v", probs)
	}
	remote := Run(context.Background(), Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "r", "functionRef": map[string]any{"name": "function-remote"}},
	}}}, XR: yamlMap(t, xrYAML), Route: r.Route})
	if err := remote.Steps[0].Err; !errors.Is(err, ErrRemoteTarget) || remote.Stopped != 0 {
		t.Errorf("remote target: %v", err)
	}
	if _, _, ok := New(Config{Functions: fns, AllowRemote: true}).Configured("function-remote"); !ok {
		t.Errorf("AllowRemote does not allow the remote target")
	}
	// The developer's process may take a moment to listen: a refused
	// connection is an error at once (Development targets do not wait),
	// so wait for the port like a developer would before rendering.
	waitListening(t, port)
	st := script(t, "compose: [{name: dev, resource: {apiVersion: v1, kind: ConfigMap}}]")
	rsp, err := r.Run(context.Background(), st, request(t, st))
	if err != nil || rsp.GetDesired().GetResources()["dev"] == nil {
		t.Fatalf("development target: %v %v", rsp, err)
	}

	// Garbage: something that is not a gRPC server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\nthis is not gRPC"))
			c.Close()
		}
	}()
	g := New(Config{Functions: []Function{{Name: "function-garbage", Annotations: map[string]string{
		AnnotationRuntime: RuntimeDevelopment, AnnotationRuntimeDevelopmentTarget: l.Addr().String()}}}})
	defer g.Close()
	out := Run(context.Background(), Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "junk", "functionRef": map[string]any{"name": "function-garbage"}},
	}}}, XR: yamlMap(t, xrYAML), Route: g.Route, Timeout: time.Minute})
	var ce *CallError
	if err := out.Steps[0].Err; !errors.As(err, &ce) || errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "function function-garbage (development 127.0.0.1:") {
		t.Errorf("garbage target: %v", err)
	}
}

func mustFreePort(t *testing.T) int {
	p, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitListening waits until a gRPC connection to the port is ready, on
// gRPC's connectivity state changes.
func waitListening(t *testing.T, port int) {
	t.Helper()
	cc, err := dial("127.0.0.1:" + strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cc.Connect()
	for s := cc.GetState(); s != connectivity.Ready; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			t.Fatalf("port %d never served gRPC: %v", port, ctx.Err())
		}
	}
}

// betaOnly serves only the v1beta1 protocol, as functions built for
// Crossplane before v1.17 do.
type betaOnly struct {
	v1beta1.UnimplementedFunctionRunnerServiceServer
}

func (betaOnly) RunFunction(_ context.Context, req *v1beta1.RunFunctionRequest) (*v1beta1.RunFunctionResponse, error) {
	return &v1beta1.RunFunctionResponse{Desired: req.GetDesired(), Results: []*v1beta1.Result{{Severity: v1beta1.Severity_SEVERITY_NORMAL, Message: "beta"}}}, nil
}

// TestBetaFallback: a function that only serves v1beta1 is called through
// it, as Crossplane does.
func TestBetaFallback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(insecure.NewCredentials()))
	v1beta1.RegisterFunctionRunnerServiceServer(srv, betaOnly{})
	go srv.Serve(l)
	defer srv.Stop()
	r := New(Config{Functions: []Function{{Name: "old", Annotations: map[string]string{
		AnnotationRuntime: RuntimeDevelopment, AnnotationRuntimeDevelopmentTarget: l.Addr().String()}}}})
	defer r.Close()
	rsp, err := r.Run(context.Background(), Step{Function: "old"}, &fnv1.RunFunctionRequest{})
	if err != nil || len(rsp.GetResults()) != 1 || rsp.GetResults()[0].GetMessage() != "beta" {
		t.Fatalf("v1beta1 fallback: %v %v", rsp, err)
	}
}

// TestNotConfigured: nothing runs a function that is not configured; the
// step passes the desired state through.
func TestNotConfigured(t *testing.T) {
	r := New(Config{})
	defer r.Close()
	if run, _ := r.Route(Step{Function: "function-x"}); run != nil {
		t.Errorf("unconfigured function routed")
	}
	if _, err := r.Run(context.Background(), Step{Function: "function-x"}, &fnv1.RunFunctionRequest{}); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("run: %v", err)
	}
}

// TestNativeRunner: a native runner (how crd-lsp's own
// patch-and-transform plugs in) sees the request in plain Go and its
// answer flows on like a function's; Chain puts it before the registry.
func TestNativeRunner(t *testing.T) {
	r, _ := testRegistry(t)
	native := Native(func(_ context.Context, st Step, req NativeRequest) (NativeResponse, error) {
		d := req.Desired
		name, _ := req.Input["name"].(string)
		d.Resources[name] = Resource{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"data": map[string]any{"size": fmt.Sprint(req.Observed.Composite.Object["spec"].(map[string]any)["size"])}}}
		return NativeResponse{Desired: d, Context: map[string]any{"native": true}, Results: []Result{{Severity: SeverityNormal, Message: "native " + st.Name}}}, nil
	})
	route := Chain(func(st Step) (Runner, string) {
		if IsPatchAndTransform(st) {
			return native, "native patch-and-transform"
		}
		return nil, ""
	}, r.Route)
	comp := yamlMap(t, `
spec:
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input: {apiVersion: pt.fn.crossplane.io/v1beta1, kind: Resources, name: from-native}
  - step: after
    functionRef: {name: function-test}
    input: {apiVersion: test.crd-lsp.dev/v1, kind: Script, echo: echo}
`)
	out := Run(context.Background(), Input{Composition: comp, XR: yamlMap(t, xrYAML), Route: route, Timeout: time.Minute})
	if out.Stopped != -1 {
		t.Fatalf("stopped: %+v", out.Steps)
	}
	if out.Steps[0].Runner != "native patch-and-transform" || out.Steps[0].Results[0].Message != "native pt" {
		t.Errorf("native step: %+v", out.Steps[0])
	}
	if got := out.Desired.Resources["from-native"].Object["data"].(map[string]any)["size"]; got != "3" {
		t.Errorf("native resource: %v", got)
	}
	echo := out.Desired.Resources["echo"].Object["data"].(map[string]any)
	if echo["desired"] != "from-native" || echo["context"] != "native" {
		t.Errorf("the function after the native step saw %v", echo)
	}
}

// TestRunNeverPanics: a Runner that panics or answers nothing is a step
// error.
func TestRunNeverPanics(t *testing.T) {
	comp := map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "p", "functionRef": map[string]any{"name": "f"}},
	}}}
	for name, run := range map[string]Runner{
		"panics": RunnerFunc(func(context.Context, Step, *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
			panic("boom")
		}),
		"answers nothing": RunnerFunc(func(context.Context, Step, *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
			return nil, nil
		}),
	} {
		out := Run(context.Background(), Input{Composition: comp, XR: map[string]any{}, Route: func(Step) (Runner, string) { return run, "test" }})
		if out.Stopped != 0 || out.Steps[0].Err == nil {
			t.Errorf("%s: %+v", name, out)
		}
	}
}

func TestCheckTarget(t *testing.T) {
	for target, ok := range map[string]bool{
		"localhost:9443": true, "127.0.0.1:1": true, "127.8.9.1:1": true, "[::1]:9443": true, "unix:///tmp/fn.sock": true,
		"dns:///localhost:9443": true, "10.0.0.1:9443": false, "example.com:9443": false, "0.0.0.0:9443": false, "localhost": false,
	} {
		if err := checkTarget(target, false); (err == nil) != ok {
			t.Errorf("checkTarget(%q) = %v", target, err)
		}
	}
	if err := checkTarget("example.com:9443", true); err != nil {
		t.Errorf("allowed remote: %v", err)
	}
}

// TestDocker runs the Docker backend against a docker command. With a
// daemon, against the real one (skipped here: none is installed); always
// against a stand-in script that runs the test function as its
// "container", which checks the commands the backend issues.
func TestDocker(t *testing.T) {
	bin := fntest.TestFunction(t)
	if err := DockerAvailable(""); err != nil {
		t.Logf("no Docker daemon (%v): the real daemon is not exercised", err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "docker")
	calls := filepath.Join(dir, "calls")
	// A stand-in for docker: run publishes the function on a free port.
	script := `#!/bin/sh
echo "$@" >> ` + calls + `
case "$1" in
version) echo 27.0.0 ;;
run)
  port=$(cat ` + dir + `/port)
  ` + bin + ` --insecure --address 127.0.0.1:$port >/dev/null 2>&1 &
  echo $! > ` + dir + `/pid
  echo c0ffee ;;
port) echo "127.0.0.1:$(cat ` + dir + `/port)" ;;
inspect) echo true ;;
rm) kill $(cat ` + dir + `/pid) ;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "port"), []byte(strconv.Itoa(mustFreePort(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(Config{Docker: true, DockerCommand: fake, Functions: []Function{{Name: "function-test", Package: "xpkg.crossplane.io/example/function-test:v0.1.0",
		Annotations: map[string]string{AnnotationRuntimeDockerEnv: "A=1,bad"}}}})
	st := script2(t)
	rsp, err := r.Run(context.Background(), st, request(t, st))
	if err != nil || rsp.GetDesired().GetResources()["d"] == nil {
		t.Fatalf("docker: %v %v", rsp, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	want := "version --format {{.Server.Version}}\nrun --detach --rm --publish 127.0.0.1::9443/tcp --env A=1 xpkg.crossplane.io/example/function-test:v0.1.0 --insecure\nport c0ffee 9443/tcp\nrm --force c0ffee\n"
	if string(b) != want {
		t.Errorf("docker commands:\n%s\nwant:\n%s", b, want)
	}
}

func script2(t *testing.T) Step {
	return script(t, "compose: [{name: d, resource: {apiVersion: v1, kind: ConfigMap}}]")
}

// TestDockerDaemon runs function-patch-and-transform's package image
// through a real Docker daemon, as crossplane render does by default.
// Skipped without a daemon (none is installed here, nor required by CI).
func TestDockerDaemon(t *testing.T) {
	if err := DockerAvailable(""); err != nil {
		t.Skipf("no Docker daemon: %v", err)
	}
	r := New(Config{Docker: true, Functions: []Function{{Name: "function-patch-and-transform",
		Package: "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:" + fntest.PatchAndTransformVersion}}})
	defer r.Close()
	comp := yamlMap(t, `
spec:
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: cm
        base: {apiVersion: v1, kind: ConfigMap}
        patches:
        - {type: FromCompositeFieldPath, fromFieldPath: spec.size, toFieldPath: data.size, transforms: [{type: convert, convert: {toType: string}}]}
`)
	out := Run(context.Background(), Input{Composition: comp, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: 10 * time.Minute})
	if out.Stopped != -1 {
		t.Fatalf("%+v", out.Steps)
	}
	if got := out.Desired.Resources["cm"].Object["data"].(map[string]any)["size"]; got != "3" {
		t.Errorf("data.size = %v", got)
	}
}
