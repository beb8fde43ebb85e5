// This file defines the Registry: which functions are configured, how each is
// reached (an executable, Docker, a Development target), and the calls to
// them.

package functions

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/proto/v1beta1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The annotations `crossplane render --functions` reads on a Function.
const (
	AnnotationRuntime                  = "render.crossplane.io/runtime"
	AnnotationRuntimeDevelopmentTarget = "render.crossplane.io/runtime-development-target"
	AnnotationRuntimeDockerImage       = "render.crossplane.io/runtime-docker-image"
	AnnotationRuntimeDockerEnv         = "render.crossplane.io/runtime-docker-env"

	RuntimeDevelopment = "Development"
	RuntimeDocker      = "Docker"

	// DefaultDevelopmentTarget is render's target for a Development
	// Function without a target annotation.
	DefaultDevelopmentTarget = "localhost:9443"
)

// Executable is a local function binary crd-lsp starts itself.
type Executable struct {
	Path string
	// Args come after the SDK's flags (--insecure --address ADDR).
	Args []string
	// Env adds KEY=VALUE pairs to crd-lsp's environment.
	Env []string
	Dir string
}

// Config says where functions come from. Nothing is executed or
// contacted that it does not name.
type Config struct {
	// Functions are Function objects (from a functions.yaml or the
	// workspace): Development ones name a running target; the others run
	// in Docker when Docker is on.
	Functions []Function
	// Executables are local function binaries by function name.
	Executables map[string]Executable
	// AllowRemote allows Development targets outside loopback.
	AllowRemote bool
	// Docker runs Functions without a Development annotation in Docker,
	// through the docker command (DockerCommand, default "docker"), when a
	// daemon answers.
	Docker        bool
	DockerCommand string
	// FromPackages runs Functions that name a package (and are neither
	// Development ones, executables, nor run in Docker) from the runtime
	// image the package embeds, on this machine: PullRuntime pulls and
	// unpacks it (internal/packages, through the front end), and its
	// entrypoint runs as an executable does, on Linux only. An entrypoint
	// that cannot run outside its container passes its steps through.
	FromPackages bool
	PullRuntime  func(ctx context.Context, pkg string) (*PackageRuntime, error)
	// Notify is told once per function run from its package how its
	// preparation went (PackageRun.Message words it: which digest runs,
	// or why it cannot), as soon as it ends; nil logs it (Logf).
	Notify func(PackageRun)
	// CallTimeout bounds a call whose context has no deadline
	// (DefaultTimeout when zero); StartTimeout bounds starting a process
	// or container and its first answer (default 30s, 5m for Docker).
	CallTimeout  time.Duration
	StartTimeout time.Duration
	// Logf receives what functions write to stderr and lifecycle events;
	// nil discards them.
	Logf func(format string, args ...any)
}

// Source is how a function is reached.
type Source string

const (
	SourceDevelopment Source = "development"
	SourceExecutable  Source = "executable"
	SourceDocker      Source = "docker"
	SourcePackage     Source = "package"
)

// CallError is a failed function call, with what the Registry knows of
// the function's process (its exit and its last output).
type CallError struct {
	Function string
	Source   Source
	Where    string // the target, executable or image
	Err      error
	// Exit is how the process or container ended, "" when it runs;
	// Output is the tail of what it wrote to stderr and stdout.
	Exit, Output string
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "function %s (%s %s): ", e.Function, e.Source, e.Where)
	if e.Exit != "" {
		fmt.Fprintf(&b, "it exited (%s)", e.Exit)
	} else {
		b.WriteString(describe(e.Err))
	}
	if o := summary(e.Output); o != "" {
		fmt.Fprintf(&b, "; it wrote: %s", o)
	}
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

// summary picks the telling line of a process's output: the first Go
// panic or fatal error (with the runtime's line before it: "runtime: out
// of memory: cannot allocate …; fatal error: out of memory"), else the
// last line; control characters escaped, at most 400 bytes.
func summary(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pick := ""
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			j := i
			for j > 0 && strings.HasPrefix(lines[j-1], "runtime: ") {
				j--
			}
			pick = l
			if j < i {
				pick = strings.TrimSpace(lines[j]) + "; " + l
			}
			break
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		pick = strings.TrimSpace(lines[i])
	}
	pick = Escape(pick, false)
	if len(pick) > 400 {
		cut := 400
		for cut > 0 && !utf8.RuneStart(pick[cut]) {
			cut--
		}
		pick = pick[:cut] + "…"
	}
	return pick
}

func describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "it did not answer in time"
	}
	if s, ok := status.FromError(err); ok {
		msg := Escape(s.Message(), false) // (the function's own words)
		switch s.Code() {
		case codes.Unavailable:
			return "it is not reachable: " + msg
		case codes.Unimplemented:
			return "it does not serve the function protocol: " + msg
		case codes.Canceled:
			return "the call was cancelled"
		}
		return fmt.Sprintf("it failed: %s: %s", s.Code(), msg)
	}
	return Escape(err.Error(), false)
}

// ErrNotConfigured is returned by Run for a function the Registry does
// not know how to reach.
var ErrNotConfigured = errors.New("no function is configured")

// ErrRemoteTarget is wrapped by the error of a Development target outside
// loopback that was not explicitly allowed.
var ErrRemoteTarget = errors.New("development target is not on this machine (loopback); remote targets must be allowed explicitly")

// Registry runs functions as its Config says. It is safe for concurrent
// use: calls run concurrently, and a hung call blocks no other.
type Registry struct {
	cfg      Config
	mu       sync.Mutex
	backends map[string]backend
	problems map[string]error
	closed   bool
	docker   *dockerProbe
}

// backend reaches one function.
type backend interface {
	// conn returns a connection to the running function, starting it
	// when needed, and a context for the call that ends when the process
	// does; release frees it. state describes the process for errors.
	conn(ctx context.Context) (callCtx context.Context, release func(), cc *grpc.ClientConn, err error)
	// waitForReady: the call waits for the function to listen (one that
	// the backend started) rather than failing at once (a target someone
	// else runs).
	waitForReady() bool
	state() (exit, output string)
	// failed tells the backend a call failed, so that it can restart.
	failed(err error)
	close() error
	source() (Source, string)
}

// New returns a Registry for cfg. Misconfigured functions (a remote
// Development target, a bad annotation) are not errors here: Problems
// lists them and calling them fails with that problem.
func New(cfg Config) *Registry {
	if cfg.DockerCommand == "" {
		cfg.DockerCommand = "docker"
	}
	r := &Registry{cfg: cfg, backends: map[string]backend{}, problems: map[string]error{}}
	r.docker = &dockerProbe{command: cfg.DockerCommand}
	return r
}

// Problems returns configuration problems by function name (nil when
// there are none).
func (r *Registry) Problems() map[string]error {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]error{}
	for _, fn := range r.cfg.Functions {
		if _, _, err := r.plan(fn.Name); err != nil && !errors.Is(err, ErrNotConfigured) {
			out[fn.Name] = err
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ProblemLines are Problems as "function NAME: why" lines, sorted by name.
func (r *Registry) ProblemLines() []string {
	problems := r.Problems()
	names := make([]string, 0, len(problems))
	for n := range problems {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("function %s: %v", n, problems[n])
	}
	return out
}

// plan decides how a function would be reached, without contacting it.
func (r *Registry) plan(name string) (Source, string, error) {
	var fn *Function
	for i := range r.cfg.Functions {
		if r.cfg.Functions[i].Name == name {
			fn = &r.cfg.Functions[i]
			break
		}
	}
	if fn != nil && fn.Annotations[AnnotationRuntime] == RuntimeDevelopment {
		target := fn.Annotations[AnnotationRuntimeDevelopmentTarget]
		if target == "" {
			target = DefaultDevelopmentTarget
		}
		if err := checkTarget(target, r.cfg.AllowRemote); err != nil {
			return SourceDevelopment, target, err
		}
		return SourceDevelopment, target, nil
	}
	if ex, ok := r.cfg.Executables[name]; ok && ex.Path != "" {
		return SourceExecutable, ex.Path, nil
	}
	if fn != nil && r.cfg.Docker {
		switch rt := fn.Annotations[AnnotationRuntime]; rt {
		case "", RuntimeDocker:
		default:
			return SourceDocker, "", fmt.Errorf("unsupported %s annotation %q on Function %s", AnnotationRuntime, rt, name)
		}
		image := fn.Package
		if i := fn.Annotations[AnnotationRuntimeDockerImage]; i != "" {
			image = i
		}
		if image == "" {
			return SourceDocker, "", fmt.Errorf("function %s has no spec.package or %s to run in Docker", name, AnnotationRuntimeDockerImage)
		}
		return SourceDocker, image, nil
	}
	if fn != nil && r.cfg.FromPackages && fn.Package != "" {
		switch rt := fn.Annotations[AnnotationRuntime]; rt {
		case "", RuntimeDocker:
		default:
			return SourcePackage, fn.Package, fmt.Errorf("unsupported %s annotation %q on Function %s", AnnotationRuntime, rt, name)
		}
		return SourcePackage, fn.Package, nil
	}
	return "", "", ErrNotConfigured
}

// Configured says whether a function can be run, and how.
func (r *Registry) Configured(name string) (Source, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	src, where, err := r.plan(name)
	return src, where, err == nil
}

// Route is a Router: steps whose function the Registry can run get it,
// and so do steps whose function is misconfigured (a remote Development
// target, an unknown runtime), whose call then fails saying why. A
// function run from its package is named with the digest that runs once
// it is known.
func (r *Registry) Route(step Step) (Runner, string) {
	r.mu.Lock()
	src, where, err := r.plan(step.Function)
	b := r.backends[step.Function]
	r.mu.Unlock()
	if errors.Is(err, ErrNotConfigured) {
		return nil, ""
	}
	if pb, ok := b.(*packageBackend); ok && err == nil {
		_, where = pb.source()
	}
	return r, fmt.Sprintf("%s (%s %s)", step.Function, src, where)
}

// Names are the names of the functions the Registry knows (Function
// objects and executables), sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, fn := range r.cfg.Functions {
		if !seen[fn.Name] {
			seen[fn.Name] = true
			out = append(out, fn.Name)
		}
	}
	for n := range r.cfg.Executables {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// AddFunctions adds Function objects found after the Registry was made
// (the workspace's, and its crossplane.yaml's function dependencies, for
// FromPackages); a function already known by name keeps what it had.
func (r *Registry) AddFunctions(fns []Function) {
	r.mu.Lock()
	defer r.mu.Unlock()
	known := map[string]bool{}
	for _, fn := range r.cfg.Functions {
		known[fn.Name] = true
	}
	for n := range r.cfg.Executables {
		known[n] = true
	}
	for _, fn := range fns {
		if fn.Name != "" && !known[fn.Name] {
			known[fn.Name] = true
			r.cfg.Functions = append(r.cfg.Functions, fn)
		}
	}
}

// Run calls the step's function. Errors are *CallError (or wrap
// ErrNotConfigured / ErrRemoteTarget).
func (r *Registry) Run(ctx context.Context, step Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	b, err := r.backend(step.Function)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		t := r.cfg.CallTimeout
		if t <= 0 {
			t = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	src, where := b.source()
	fail := func(err error) error {
		b.failed(err)
		exit, output := b.state()
		return &CallError{Function: step.Function, Source: src, Where: where, Err: err, Exit: exit, Output: output}
	}
	if pb, ok := b.(*packageBackend); ok {
		why, err := pb.ready(ctx)
		if err != nil {
			return nil, fail(err)
		}
		if why != "" {
			_, where = pb.source()
			return passThrough(req, where, why), nil
		}
		_, where = pb.source()
	}
	cctx, release, conn, err := b.conn(ctx)
	if err != nil {
		return nil, fail(err)
	}
	defer release()
	rsp, err := runFunction(cctx, conn, req, b.waitForReady())
	if err != nil {
		return nil, fail(err)
	}
	return rsp, nil
}

func (r *Registry) backend(name string) (backend, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("the function registry is closed")
	}
	if b, ok := r.backends[name]; ok {
		return b, nil
	}
	src, where, err := r.plan(name)
	if err != nil {
		if errors.Is(err, ErrNotConfigured) {
			return nil, fmt.Errorf("function %s: %w", name, err)
		}
		return nil, fmt.Errorf("function %s (%s %s): %w", name, src, where, err)
	}
	var b backend
	switch src {
	case SourceDevelopment:
		b, err = newTargetBackend(where)
	case SourceExecutable:
		b = newProcessBackend(name, r.cfg.Executables[name], r.cfg.StartTimeout, r.cfg.Logf)
	case SourceDocker:
		var fn Function
		for _, f := range r.cfg.Functions {
			if f.Name == name {
				fn = f
			}
		}
		b = newDockerBackend(name, where, fn.Annotations[AnnotationRuntimeDockerEnv], r.docker, r.cfg.StartTimeout, r.cfg.Logf)
	case SourcePackage:
		var fn Function
		for _, f := range r.cfg.Functions {
			if f.Name == name {
				fn = f
				break
			}
		}
		b = newPackageBackend(name, where, r.cfg, fn.Annotations[AnnotationRuntimeDockerEnv])
	}
	if err != nil {
		return nil, err
	}
	r.backends[name] = b
	return b, nil
}

// Close stops every process and container the Registry started and closes
// its connections. Calls after Close fail.
func (r *Registry) Close() error {
	r.mu.Lock()
	r.closed = true
	bs := r.backends
	r.backends = map[string]backend{}
	r.mu.Unlock()
	var errs []error
	for _, b := range bs {
		if err := b.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkTarget refuses gRPC targets outside loopback unless allowed.
func checkTarget(target string, allowRemote bool) error {
	if strings.HasPrefix(target, "unix:") || strings.HasPrefix(target, "unix-abstract:") {
		return nil
	}
	t := strings.TrimPrefix(strings.TrimPrefix(target, "dns:///"), "passthrough:///")
	host, _, err := net.SplitHostPort(t)
	if err != nil {
		return fmt.Errorf("development target %q is not host:port: %v", target, err)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q: %w", target, ErrRemoteTarget)
}

func dial(target string) (*grpc.ClientConn, error) {
	return grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Reconnect quickly while a process we started comes up.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 5 * time.Second,
		}))
}

// runFunction calls RunFunction, falling back to v1beta1 for functions
// that only serve it, as Crossplane does.
func runFunction(ctx context.Context, conn *grpc.ClientConn, req *fnv1.RunFunctionRequest, waitForReady bool) (*fnv1.RunFunctionResponse, error) {
	opts := []grpc.CallOption{grpc.WaitForReady(waitForReady)}
	rsp, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, req, opts...)
	if status.Code(err) != codes.Unimplemented {
		return rsp, err
	}
	b, merr := proto.Marshal(req)
	if merr != nil {
		return nil, err
	}
	breq := &v1beta1.RunFunctionRequest{}
	if uerr := proto.Unmarshal(b, breq); uerr != nil {
		return nil, err
	}
	brsp, berr := v1beta1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, breq, opts...)
	if berr != nil {
		return nil, err // the v1 error says more
	}
	b, merr = proto.Marshal(brsp)
	if merr != nil {
		return nil, merr
	}
	out := &fnv1.RunFunctionResponse{}
	return out, proto.Unmarshal(b, out)
}

// targetBackend is a function someone else runs (Development runtime).
type targetBackend struct {
	target string
	cc     *grpc.ClientConn
}

func newTargetBackend(target string) (*targetBackend, error) {
	cc, err := dial(target)
	if err != nil {
		return nil, fmt.Errorf("development target %q: %w", target, err)
	}
	return &targetBackend{target: target, cc: cc}, nil
}

func (b *targetBackend) conn(ctx context.Context) (context.Context, func(), *grpc.ClientConn, error) {
	return ctx, func() {}, b.cc, nil
}
func (b *targetBackend) waitForReady() bool       { return false }
func (b *targetBackend) state() (string, string)  { return "", "" }
func (b *targetBackend) failed(error)             {}
func (b *targetBackend) close() error             { return b.cc.Close() }
func (b *targetBackend) source() (Source, string) { return SourceDevelopment, b.target }
