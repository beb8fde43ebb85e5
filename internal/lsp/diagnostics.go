// This file defines how diagnostics are computed and published.
//
// Every change to a document cancels the diagnosis of its previous version
// and schedules a new one after Options.DiagnosticsDelay. Results are
// published under a lock that re-checks the document's version, so a stale
// result is never published after a newer one. Each publish carries the
// full set for the URI (an empty set clears).

package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/overlays"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

type diagnoser struct {
	s *server

	mu      sync.Mutex
	pending map[uri.URI]context.CancelFunc
	// caches hold each open document's findings by YAML document, so
	// that a change re-checks the documents it touched only.
	caches map[uri.URI]*analysis.DiagnoseCache
	// overlays keeps the workspace's kustomization builds and what they
	// say, for the next diagnosis (kustomize.go).
	overlays *overlays.Builder

	// holds keeps back syntax errors on the line being typed (syntax_hold.go).
	holds syntaxHolds

	publishMu sync.Mutex
	// published are the findings last published for each open document,
	// with the version they were computed on (guarded by publishMu): code
	// actions offer their fixes.
	published map[uri.URI]publishedSet
}

type publishedSet struct {
	file  *document.File
	diags []analysis.Diagnostic
}

func newDiagnoser(s *server) *diagnoser {
	return &diagnoser{s: s, pending: map[uri.URI]context.CancelFunc{}, caches: map[uri.URI]*analysis.DiagnoseCache{}, published: map[uri.URI]publishedSet{}, overlays: overlays.NewBuilder()}
}

// schedule (re)starts the diagnosis of u.
func (d *diagnoser) schedule(u uri.URI) {
	d.mu.Lock()
	if cancel, ok := d.pending[u]; ok {
		cancel()
	}
	ctx, cancel := context.WithCancel(d.s.ctx)
	d.pending[u] = cancel
	d.mu.Unlock()

	d.s.goBackground(func(context.Context) {
		defer cancel()
		timer := time.NewTimer(d.s.opts.DiagnosticsDelay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		d.run(ctx, u)
	})
}

// scheduleAll re-diagnoses every open document (the schemas changed).
func (d *diagnoser) scheduleAll() {
	d.s.mu.Lock()
	uris := make([]uri.URI, 0, len(d.s.open))
	for u := range d.s.open {
		uris = append(uris, u)
	}
	d.s.mu.Unlock()
	for _, u := range uris {
		d.schedule(u)
	}
}

func (d *diagnoser) cancelAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for u, cancel := range d.pending {
		cancel()
		delete(d.pending, u)
	}
}

// forget cancels work for a closed document and clears its diagnostics.
func (d *diagnoser) forget(u uri.URI) {
	d.mu.Lock()
	if cancel, ok := d.pending[u]; ok {
		cancel()
		delete(d.pending, u)
	}
	delete(d.caches, u)
	d.mu.Unlock()
	d.holds.forget(u)
	d.publishMu.Lock()
	defer d.publishMu.Unlock()
	delete(d.published, u)
	d.s.mu.Lock()
	_, reopened := d.s.open[u]
	d.s.mu.Unlock()
	if !reopened {
		if pr, ok := d.s.fileProblemOf(u); ok {
			d.s.sendFileProblem(u, pr, true) // the disk copy was not read
			return
		}
		d.send(u, nil, nil, document.UTF16)
	}
}

func (d *diagnoser) run(ctx context.Context, u uri.URI) {
	sn, release := d.s.snapshotWithFunctions(u)
	defer release()
	f := sn.file
	if f == nil {
		return
	}
	start := time.Now()
	var diags []analysis.Diagnostic
	var others []uri.URI // open files whose builds this diagnosis redid
	checked := 0
	if hit, skipped := f.NotParsed(); skipped {
		diags = []analysis.Diagnostic{notAnalysed(hit)}
	} else {
		// Until the workspace's schemas and the cached packages are loaded,
		// sn.env() is empty and only what depends on neither is reported
		// (syntax, apiVersion/kind, a CRD's own rules): a slow start must
		// not flash findings that vanish.
		d.mu.Lock()
		prev := d.caches[u]
		d.mu.Unlock()
		found, next := analysis.DiagnoseIncremental(ctx, f, sn.env(), prev)
		if ctx.Err() != nil {
			return
		}
		checked = next.Checked()
		d.mu.Lock()
		if _, open := d.pending[u]; open && d.caches[u] == prev {
			d.caches[u] = next // (not when closed meanwhile, or a newer run stored its own)
		}
		d.mu.Unlock()
		diags = found
		// What the kustomizations that read the file build says of it.
		var ok bool
		diags, others, ok = d.withOverlays(ctx, sn, diags)
		if !ok || ctx.Err() != nil {
			return
		}
		if sn.ready() {
			diags = append(diags, d.s.packageDiagnostics(sn)...)
		}
	}
	if ctx.Err() != nil {
		return
	}
	diags = capDiagnostics(diags, f.Mapper.LineOf)
	d.publishMu.Lock()
	defer d.publishMu.Unlock()
	if cur := d.s.snapshot(u); cur.file != f || ctx.Err() != nil {
		return // superseded: a newer version is (or will be) published instead
	}
	now, held := d.holds.split(u, f, diags)
	if held {
		// The wait starts before the publish that leaves the error out
		// (its own publish waits for publishMu, held here), so a client
		// that has seen that publish finds the wait under way.
		d.release(u, f, diags, sn.enc)
	}
	d.send(u, f, now, sn.enc)
	d.published[u] = publishedSet{file: f, diags: diags}
	for _, o := range others {
		d.schedule(o)
	}
	d.s.log.Debug("diagnostics published", "uri", u, "version", f.Version, "count", len(diags), "documents", len(f.Docs), "checked", checked, "took", time.Since(start))
}

// send publishes diags for u; f is nil to clear.
func (d *diagnoser) send(u uri.URI, f *document.File, diags []analysis.Diagnostic, enc document.Encoding) {
	params := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}
	if f != nil {
		params.Version = protocol.NewOptional(f.Version)
		for _, dg := range diags {
			params.Diagnostics = append(params.Diagnostics, toProtocolDiagnostic(f, dg, enc))
		}
	}
	if err := d.s.client.PublishDiagnostics(d.s.ctx, params); err != nil && d.s.ctx.Err() == nil {
		d.s.log.Warn("publishDiagnostics failed", "error", err)
	}
}

// publishedFor are the findings last published for f's version of its
// document; false when none were published for that version yet.
func (d *diagnoser) publishedFor(u uri.URI, f *document.File) ([]analysis.Diagnostic, bool) {
	d.publishMu.Lock()
	defer d.publishMu.Unlock()
	if p, ok := d.published[u]; ok && p.file == f {
		return p.diags, true
	}
	return nil, false
}

// capDiagnostics bounds what is published as check bounds what it prints
// (analysis.CapDiagnostics: at most analysis.MaxPerLine per line and
// MaxPerFile per file, summaries for the rest, long messages cut). Hints,
// which check leaves out, are capped apart: they never crowd out a
// finding check shows too.
func capDiagnostics(diags []analysis.Diagnostic, lineOf func(int) int) []analysis.Diagnostic {
	var shown, hints []analysis.Diagnostic
	for _, d := range diags {
		if d.Severity == severity.Hint {
			hints = append(hints, d)
		} else {
			shown = append(shown, d)
		}
	}
	if len(hints) == 0 {
		return analysis.CapDiagnostics(diags, lineOf)
	}
	return append(analysis.CapDiagnostics(shown, lineOf), analysis.CapDiagnostics(hints, lineOf)...)
}
