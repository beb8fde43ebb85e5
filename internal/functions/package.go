// This file runs a Function from the runtime image its package embeds
// (--functions-from-packages, the server's crdLsp.functionsFromPackages):
// the package is pulled and unpacked by the front end's PullRuntime
// (internal/packages), and its entrypoint runs on this machine as a local
// executable does (process.go), on Linux only. An entrypoint that cannot
// run outside its container is said once, and its steps pass the desired
// state through.

package functions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// PackageRuntime is a Function package's runtime image, unpacked on this
// machine (what Config.PullRuntime returns).
type PackageRuntime struct {
	// Name is the reference with the digest that runs
	// ("REPO:TAG@sha256:…"); Digest the digest the reference resolved to,
	// Image the platform's image manifest digest, Platform "linux/amd64".
	Name, Digest, Image, Platform string
	// Root holds the image's files; Executable is the entrypoint's file
	// inside it ("" when NoRuntime says why there is none).
	Root, Executable string
	// The image config's process.
	Entrypoint, Env []string
	WorkingDir      string
	// NoRuntime says why the package has nothing to run on this machine
	// (no embedded runtime image, none for this platform, no entrypoint).
	NoRuntime string
	// FromCache: nothing was downloaded; Warning says why a cached copy
	// was used (an unreachable registry).
	FromCache bool
	Warning   string
}

// PackageRun says how a Function configured from its package fared
// (Registry.PackageRuns).
type PackageRun struct {
	Function, Package string
	// Runtime is what was pulled (nil when the pull failed: Err).
	Runtime *PackageRuntime
	// Runs: its entrypoint runs on this machine; else NotRunnable says
	// why, and its steps pass the desired state through.
	Runs        bool
	NotRunnable string
	Err         error
	// Took is how long pulling (or finding in the cache) and checking it
	// took.
	Took time.Duration
	// Missed: a call gave up waiting for it (its time limit, or it was
	// cancelled), so what that call's analysis showed is stale.
	Missed bool
}

// retryPull is how long a failed pull stands before a call tries again.
const retryPull = 30 * time.Second

// packageBackend runs a Function from its package's runtime: prepared
// once (pulled, unpacked, checked) in the background, then a
// processBackend for its entrypoint.
type packageBackend struct {
	name, pkg string
	pull      func(ctx context.Context, pkg string) (*PackageRuntime, error)
	env       []string // the Function's runtime-docker-env pairs
	timeout   time.Duration
	logf      func(string, ...any)
	notify    func(PackageRun)

	mu     sync.Mutex
	prep   *preparation
	proc   *processBackend
	closed bool
	cancel context.CancelFunc
}

// preparation is one pull of the package and check of its entrypoint.
type preparation struct {
	done   chan struct{}
	at     time.Time // when it ended
	run    PackageRun
	missed atomic.Bool // a call gave up waiting
}

func newPackageBackend(name, pkg string, cfg Config, env string) *packageBackend {
	b := &packageBackend{name: name, pkg: pkg, pull: cfg.PullRuntime, timeout: cfg.StartTimeout, logf: cfg.Logf}
	if b.timeout <= 0 {
		b.timeout = 5 * time.Minute // a first pull may take long
	}
	b.notify = cfg.Notify
	if b.notify == nil {
		b.notify = func(run PackageRun) {
			if b.logf != nil {
				b.logf("%s", run.Message())
			}
		}
	}
	for _, kv := range strings.Split(env, ",") {
		if strings.Contains(kv, "=") {
			b.env = append(b.env, kv)
		}
	}
	return b
}

func (b *packageBackend) log(format string, args ...any) {
	if b.logf != nil {
		b.logf("function %s: "+format, append([]any{b.name}, args...)...)
	}
}

// start begins a preparation unless one is under way, succeeded, or
// failed less than retryPull ago, and returns the current one.
func (b *packageBackend) start() (*preparation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("the function registry is closed")
	}
	if p := b.prep; p != nil {
		select {
		case <-p.done:
			if p.run.Err == nil || time.Since(p.at) < retryPull {
				return p, nil
			}
		default:
			return p, nil
		}
	}
	p := &preparation{done: make(chan struct{}), run: PackageRun{Function: b.name, Package: b.pkg}}
	b.prep = p
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	b.cancel = cancel
	go func() {
		defer cancel()
		b.prepare(ctx, p)
	}()
	return p, nil
}

// ready waits for the package to be prepared (not past ctx): why says
// why its entrypoint cannot run here, err why it could not be pulled.
func (b *packageBackend) ready(ctx context.Context) (why string, err error) {
	p, err := b.start()
	if err != nil {
		return "", err
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.missed.Store(true)
		return "", fmt.Errorf("its package %s is still being pulled and unpacked (the next call uses it once it is ready)", b.pkg)
	}
	return p.run.NotRunnable, p.run.Err
}

// prepare pulls and checks the package (not tied to any call: a call
// that gives up leaves it going for the next), and says once how it went.
func (b *packageBackend) prepare(ctx context.Context, p *preparation) {
	start := time.Now()
	run := &p.run
	defer func() {
		run.Took = time.Since(start)
		b.mu.Lock()
		p.at = time.Now()
		b.mu.Unlock()
		close(p.done)
		told := *run
		told.Missed = p.missed.Load()
		b.notify(told)
	}()
	if why := platformNote(); why != "" {
		run.NotRunnable = why
		return
	}
	if b.pull == nil {
		run.Err = errors.New("no package client to pull it with")
		return
	}
	rt, err := b.pull(ctx, b.pkg)
	if err != nil {
		run.Err = fmt.Errorf("cannot pull its package %s: %w", b.pkg, err)
		return
	}
	run.Runtime = rt
	if rt.NoRuntime != "" {
		run.NotRunnable = rt.NoRuntime
		return
	}
	if why := hostRunnable(rt.Executable, rt.Entrypoint[0]); why != "" {
		run.NotRunnable = why
		return
	}
	// Its working folder is the image's WorkingDir inside the unpacked
	// image (the image's root when the image has no such folder).
	ex := Executable{Path: rt.Executable, Dir: rt.Root}
	if wd := rt.WorkingDir; wd != "" && path.IsAbs(wd) {
		if d := filepath.Join(rt.Root, filepath.FromSlash(path.Clean(wd))); isDir(d) {
			ex.Dir = d
		}
	}
	proc := newProcessBackend(b.name, ex, 0, b.logf)
	proc.pre = rt.Entrypoint[1:]
	// The image's environment (and the Function's runtime-docker-env),
	// as its container would have: not crd-lsp's, which may hold secrets
	// a downloaded program has no business reading.
	proc.environ = append(append([]string{}, rt.Env...), b.env...)
	if !hasEnv(proc.environ, "PATH") {
		proc.environ = append(proc.environ, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		run.Err = errors.New("the function registry is closed")
		return
	}
	b.proc = proc
	b.mu.Unlock()
	run.Runs = true
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// Message words how the function fared, for the user: the digest that
// runs and how it was had, why it cannot run here, or why it could not be
// pulled.
func (run PackageRun) Message() string {
	switch {
	case run.Err != nil:
		return fmt.Sprintf("function %s: %s", run.Function, Escape(run.Err.Error(), false))
	case run.NotRunnable != "":
		what := run.Package
		if run.Runtime != nil && run.Runtime.Name != "" {
			what = run.Runtime.Name
		}
		return fmt.Sprintf("function %s: crd-lsp cannot run %s on this machine: %s; its steps pass the desired state through", run.Function, what, Escape(run.NotRunnable, false))
	}
	rt := run.Runtime
	how := fmt.Sprintf("pulled and unpacked in %s", run.Took.Round(time.Millisecond))
	if rt.FromCache {
		how = "from the cache"
	}
	if rt.Warning != "" {
		how += " (" + Escape(rt.Warning, false) + ")"
	}
	return fmt.Sprintf("function %s: running %s from its package (%s, entrypoint %s; %s)", run.Function, rt.Name, rt.Platform, strings.Join(rt.Entrypoint, " "), how)
}

// passThrough is the answer for a step whose function's entrypoint
// cannot run here: the desired state and context as they came, and a
// warning saying why.
func passThrough(req *fnv1.RunFunctionRequest, what, why string) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag()},
		Desired: proto.Clone(req.GetDesired()).(*fnv1.State),
		Context: req.GetContext(),
		Results: []*fnv1.Result{{Severity: fnv1.Severity_SEVERITY_WARNING,
			Message: fmt.Sprintf("crd-lsp did not run it: %s cannot run outside its container on this machine (%s); the step passed the desired state through, and what it would compose is not rendered or validated", what, why)}},
	}
}

func (b *packageBackend) current() (*processBackend, *preparation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.proc, b.prep
}

func (b *packageBackend) conn(ctx context.Context) (context.Context, func(), *grpc.ClientConn, error) {
	why, err := b.ready(ctx)
	if err == nil && why != "" {
		err = errors.New(why)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	proc, _ := b.current()
	return proc.conn(ctx)
}

func (b *packageBackend) waitForReady() bool { return true }

func (b *packageBackend) state() (string, string) {
	if proc, _ := b.current(); proc != nil {
		return proc.state()
	}
	return "", ""
}

func (b *packageBackend) failed(err error) {
	if proc, _ := b.current(); proc != nil {
		proc.failed(err)
	}
}

func (b *packageBackend) close() error {
	b.mu.Lock()
	b.closed = true
	proc := b.proc
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
	if proc != nil {
		return proc.close()
	}
	return nil
}

// source names the package, with the digest that runs once it is known.
func (b *packageBackend) source() (Source, string) {
	if _, p := b.current(); p != nil {
		select {
		case <-p.done:
			if p.run.Runtime != nil {
				return SourcePackage, p.run.Runtime.Name
			}
		default:
		}
	}
	return SourcePackage, b.pkg
}

// report is how the preparation went, when one ended.
func (b *packageBackend) report() (PackageRun, bool) {
	_, p := b.current()
	if p == nil {
		return PackageRun{}, false
	}
	select {
	case <-p.done:
		return p.run, true
	default:
		return PackageRun{}, false
	}
}

// PackageRuns says how each Function configured from its package fared
// so far (those whose package was pulled or checked), by name.
func (r *Registry) PackageRuns() []PackageRun {
	r.mu.Lock()
	var bs []*packageBackend
	for _, b := range r.backends {
		if pb, ok := b.(*packageBackend); ok {
			bs = append(bs, pb)
		}
	}
	r.mu.Unlock()
	var out []PackageRun
	for _, b := range bs {
		if run, ok := b.report(); ok {
			out = append(out, run)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Function < out[j].Function })
	return out
}

// Prepare pulls and checks, concurrently, the packages of the named
// functions that run from their packages, so that their first calls do
// not wait for the pulls (and their time limit does not count them);
// it returns when they are ready or ctx ends. Other names are ignored.
func (r *Registry) Prepare(ctx context.Context, names []string) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		r.mu.Lock()
		src, _, err := r.plan(n)
		r.mu.Unlock()
		if err != nil || src != SourcePackage {
			continue
		}
		b, err := r.backend(n)
		if err != nil {
			continue
		}
		pb := b.(*packageBackend)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			_, _ = pb.ready(ctx)
		}()
	}
	wg.Wait()
}
