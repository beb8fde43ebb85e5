// This file serves package dependencies: the schemas of the packages
// crossplane.yaml files depend on, cached first and refreshed from their
// registries in the background, with $/progress and diagnostics
// (analysis.DependencyHover describes the dependsOn entries).

package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
)

// pkgState is what the server knows of package dependencies. Guarded by
// the server's mu, except client creation (its own mutex).
type pkgState struct {
	clientMu  sync.Mutex
	client    *packages.Client
	clientKey string

	// (The outcomes of the dependencies, and the packages' schemas, are
	// the world's: see loader.World.WithPackages.)
	// refreshed is false until the registries were asked once.
	refreshed bool
	cancel    context.CancelCauseFunc
	// explicit is closed when the running crdLsp.pull ends (nil: none
	// runs); automatic refreshes wait for it.
	explicit chan struct{}
	tokens   atomic.Int64
	// current is the progress the client's callbacks report to.
	current atomic.Pointer[progress]
	// cancels maps progress tokens to the pulls they stop.
	cancels map[string]func()

	// index keeps each package's index across loads and refreshes
	// (loader.PackageFiles).
	index *loader.PackageIndex
}

// Why a pull ended early.
var (
	errPullCancelled  = errors.New("cancelled")
	errPullSuperseded = errors.New("superseded by a newer pull")
)

// timeouts converts the registries' timeout settings (seconds).
func timeouts(set Settings) packages.Timeouts {
	t := packages.Timeouts{Answer: seconds(set.Registries.Timeout, 0), Pull: seconds(set.Registries.PullTimeout, 0)}
	if t.Answer > 0 && t.Answer < 10*time.Second {
		t.Connect = t.Answer
	}
	return t
}

// pkgClientKey is what of the settings the package client is made from.
func pkgClientKey(set Settings) string {
	return strings.Join([]string{set.CacheDir, set.Registries.Default, strings.Join(set.Registries.Insecure, ","), fmt.Sprint(timeouts(set))}, "\x00")
}

// pkgClient returns the package client for the current settings.
func (s *server) pkgClient(set Settings) (*packages.Client, error) {
	key := pkgClientKey(set)
	s.pkgs.clientMu.Lock()
	defer s.pkgs.clientMu.Unlock()
	if s.pkgs.client != nil && s.pkgs.clientKey == key {
		return s.pkgs.client, nil
	}
	c, err := packages.New(packages.Options{
		CacheDir:        set.CacheDir,
		DefaultRegistry: set.Registries.Default,
		Insecure:        set.Registries.Insecure,
		Timeouts:        timeouts(set),
		Logf:            func(format string, args ...any) { s.log.Debug(fmt.Sprintf(format, args...)) },
		Progress: func(p packages.Progress) {
			if cur := s.pkgs.current.Load(); cur != nil {
				cur.report(p.Message, p.Done, p.Total)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	s.pkgs.client, s.pkgs.clientKey = c, key
	return c, nil
}

// testIndexHook, when set (by tests), runs before a package is indexed.
var testIndexHook atomic.Pointer[func(path string)]

// refreshPackages resolves every dependency against its registry in the
// background, reporting $/progress (cancellable); then feeds the store and
// re-validates the open documents.
func (s *server) refreshPackages(ctx context.Context) {
	if err := s.refresh(ctx, false); err != nil {
		s.log.Info("package pull ended early", "reason", err)
	}
}

// pullCommand runs crdLsp.pull: a refresh now, answered with a summary,
// or with RequestCancelled when it was cancelled or superseded.
func (s *server) pullCommand(ctx context.Context) (protocol.LSPAny, error) {
	if err := s.refresh(ctx, true); err != nil {
		return nil, &jsonrpc2.Error{Code: protocol.CodeRequestCancelled, Message: printable("package pull " + err.Error())}
	}
	b, _ := json.Marshal(s.packageSummary())
	return protocol.LSPAny(b), nil
}

// refresh is refreshPackages; it returns errPullCancelled or
// errPullSuperseded when it ended early, leaving the state as it was. A
// refresh supersedes a running one, except that an automatic refresh
// (explicit false: after a load, a changed crossplane.yaml) waits for a
// pull the user asked for (crdLsp.pull) to end, then runs.
func (s *server) refresh(ctx context.Context, explicit bool) error {
	s.mu.Lock()
	for !explicit && s.pkgs.explicit != nil {
		done := s.pkgs.explicit
		s.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return errPullCancelled
		}
		s.mu.Lock()
	}
	if explicit {
		done := make(chan struct{})
		s.pkgs.explicit = done
		defer func() {
			s.mu.Lock()
			if s.pkgs.explicit == done {
				s.pkgs.explicit = nil
			}
			s.mu.Unlock()
			close(done)
		}()
	}
	w := s.world // as the last load found it, with open buffers
	if s.pkgs.cancel != nil {
		s.pkgs.cancel(errPullSuperseded) // a newer refresh supersedes a running one
	}
	ctx, cancel := context.WithCancelCause(ctx)
	s.pkgs.cancel = cancel
	s.mu.Unlock()
	defer cancel(nil)
	ended := func() error {
		if errors.Is(context.Cause(ctx), errPullSuperseded) {
			return errPullSuperseded
		}
		return errPullCancelled
	}

	if w == nil || w.Dependencies() == 0 {
		s.mu.Lock()
		s.pkgs.refreshed = true
		s.mu.Unlock()
		return nil
	}
	src := w.Source(loader.SourcePackages)
	if src == nil {
		s.log.Warn("package cache unavailable: the packages are not a source of this load")
		return nil
	}
	if !s.fetchOnce(ctx, w, src, fetchOptions{cancel: func() { cancel(errPullCancelled) }, reports: &s.pkgs.current,
		ended: func() string { return ended().Error() }, heavy: true, locked: func() { s.pkgs.refreshed = true }}) {
		return ended()
	}
	return nil
}

// progress reports work-done progress to the client, when it supports it.
type progress struct {
	s     *server
	token protocol.ProgressToken
	ok    bool
}

func (s *server) beginProgress(ctx context.Context, cancel func(), title, msg string) *progress {
	p := &progress{s: s}
	title, msg = printable(title), printable(msg)
	if !s.caps.progress {
		return p
	}
	p.token = protocol.String(fmt.Sprintf("crd-lsp/packages/%d", s.pkgs.tokens.Add(1)))
	if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: p.token}); err != nil {
		s.log.Debug("window/workDoneProgress/create failed", "error", err)
		return p
	}
	p.ok = true
	s.mu.Lock()
	if s.pkgs.cancels == nil {
		s.pkgs.cancels = map[string]func(){}
	}
	s.pkgs.cancels[fmt.Sprint(p.token)] = cancel
	s.mu.Unlock()
	yes := true
	p.send(protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes, Message: &msg})
	return p
}

func (p *progress) report(msg string, done, total int) {
	if !p.ok {
		return
	}
	var pct *uint32
	if total > 0 {
		v := uint32(done * 100 / total)
		pct = &v
	}
	msg = printable(msg)
	p.send(protocol.WorkDoneProgressReport{Kind: "report", Message: &msg, Percentage: pct})
}

func (p *progress) end(msg string) {
	if !p.ok {
		return
	}
	msg = printable(msg)
	p.send(protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	p.s.mu.Lock()
	delete(p.s.pkgs.cancels, fmt.Sprint(p.token))
	p.s.mu.Unlock()
}

func (p *progress) send(v any) {
	raw, err := protocol.Marshal(v)
	if err != nil {
		return
	}
	_ = p.s.client.Progress(p.s.ctx, &protocol.ProgressParams{Token: p.token, Value: raw})
}

// WorkDoneProgressCancel cancels the pull the user stopped.
func (s *server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	s.mu.Lock()
	cancel := s.pkgs.cancels[fmt.Sprint(params.Token)]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// meta is the snapshot's crossplane.yaml as parsed: the World's (which
// holds the open buffer) once loaded, else parsed here.
func (sn snapshot) meta() *packages.Meta {
	if sn.world != nil {
		if m, ok := sn.world.Meta(sn.path()); ok {
			return m
		}
	}
	return packages.ParseMeta(sn.path(), sn.file.Text)
}

// packageDiagnostics positions the metadata problems and dependency
// outcomes of a crossplane.yaml buffer.
func (s *server) packageDiagnostics(sn snapshot) []analysis.Diagnostic {
	p := sn.path()
	if !packages.IsMetaFile(p) || sn.world == nil {
		return nil
	}
	// Until the registries were asked, "not in the cache" is not news.
	return loader.PackageProblems(sn.meta(), sn.world.Results(p), sn.refreshed)
}

// packageSummary is one line per dependency: what it resolved to, or why not.
func (s *server) packageSummary() string {
	s.mu.Lock()
	w := s.world
	s.mu.Unlock()
	var all map[string][]packages.Result
	if w != nil {
		all = w.AllResults()
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, path := range paths {
		rs := all[path]
		for _, r := range rs {
			switch {
			case r.Package != nil && r.Err == nil:
				fmt.Fprintf(&b, "%s: %s %s\n", path, r.Package.Ref, r.Package.Version)
			case r.Err != nil:
				fmt.Fprintf(&b, "%s: %s: %v\n", path, r.Dep.Package, r.Err)
			}
		}
	}
	if b.Len() == 0 {
		return "no package dependencies in the workspace's crossplane.yaml files"
	}
	return b.String()
}

// packageFile maps a package's pseudo path (xpkg://<ref>/package.yaml) to
// its package.yaml in the cache, as w knows it.
func packageFile(w *loader.World, pseudo string) (string, bool) {
	if !strings.HasPrefix(pseudo, "xpkg://") || w == nil {
		return "", false
	}
	for _, rs := range w.AllResults() {
		for _, r := range rs {
			if r.Package != nil && r.Package.Path == pseudo && r.Package.File != "" {
				return r.Package.File, true
			}
		}
	}
	return "", false
}
