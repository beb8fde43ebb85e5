// This file is the editor's one refresher of schema sources: the sources
// the World was loaded with (loader.Source: packages, CRD sources, a live
// cluster, schema catalogs), each fetched in the background after the
// events its loader.Refresh names, what it brought committed with
// loader.World.WithFetched, the open documents diagnosed again.

package lsp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
)

// sourceRuns are the refresher's fetches: at most one per source runs,
// and events while it runs make it run once more after it.
type sourceRuns struct {
	mu      sync.Mutex
	running map[loader.SourceName]bool
	pending map[loader.SourceName]bool

	// asked are the kinds the schema catalogs were asked for under the
	// settings askedKey (each asked once per session and settings).
	askedMu  sync.Mutex
	asked    *loader.Asked
	askedKey string
}

// sourcesDueLocked fetches, in the background, every source of the
// session's World whose Refresh names t. A source whose fetch supersedes a
// running one (packages) is run by refresh (packages.go), which the
// user's crdLsp.pull shares; the others by runSource. Both fetch through
// fetchOnce. s.mu is held.
func (s *server) sourcesDueLocked(t loader.Trigger) {
	if s.world == nil {
		return
	}
	for _, src := range s.world.Sources() {
		r := src.Refresh()
		switch {
		case r.On&t == 0:
		case r.Supersede:
			s.goBackground(s.refreshPackages)
		default:
			s.runSource(src.Name())
		}
	}
}

// runSource starts fetchSource for name unless one runs (it then runs
// again when that one ends).
func (s *server) runSource(name loader.SourceName) {
	s.srcs.mu.Lock()
	defer s.srcs.mu.Unlock()
	if s.srcs.running == nil {
		s.srcs.running, s.srcs.pending = map[loader.SourceName]bool{}, map[loader.SourceName]bool{}
	}
	if s.srcs.running[name] {
		s.srcs.pending[name] = true
		return
	}
	s.srcs.running[name] = true
	s.goBackground(func(ctx context.Context) {
		defer func() {
			s.srcs.mu.Lock()
			again := s.srcs.pending[name]
			s.srcs.running[name], s.srcs.pending[name] = false, false
			s.srcs.mu.Unlock()
			if again && ctx.Err() == nil {
				s.runSource(name)
			}
		}()
		s.fetchSource(ctx, name)
	})
}

// fetchSource fetches one source of the current World through fetchOnce.
func (s *server) fetchSource(ctx context.Context, name loader.SourceName) {
	s.mu.Lock()
	w := s.world
	s.mu.Unlock()
	if w == nil {
		return
	}
	src := w.Source(name)
	if src == nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.fetchOnce(ctx, w, src, fetchOptions{cancel: cancel})
}

// fetchOptions are what a runner adds to fetchOnce.
type fetchOptions struct {
	// cancel is what cancelling the fetch's progress does.
	cancel func()
	// reports, when set, holds the fetch's progress while it runs (the
	// package client reports its own progress there).
	reports *atomic.Pointer[progress]
	// ended says why ctx ended, for the progress (nil: "cancelled").
	ended func() string
	// heavy: the next World is built off the lock and warmed (packages:
	// many schemas); else it is built under the lock (a few indexed ones).
	heavy bool
	// locked, when set, runs under the lock right after the commit.
	locked func()
}

// fetchOnce is the refresher's one fetch of a source, whichever runner
// started it: announced (with $/progress when the source announces its
// fetch), fetched for w, what could not be read said, what it brought
// committed (loader.World.WithFetched: on whatever World is current,
// unless its source has another configuration since), the progress
// ended, the open documents diagnosed again. false: ctx ended first.
func (s *server) fetchOnce(ctx context.Context, w *loader.World, src loader.Source, o fetchOptions) bool {
	prog := &progress{s: s}
	if title, msg := src.Announce(w); msg != "" {
		s.logMessage(protocol.MessageTypeInfo, "crd-lsp: "+strings.ToLower(msg[:1])+msg[1:]+"…")
		prog = s.beginProgress(ctx, o.cancel, "crd-lsp: "+title, msg)
	}
	if o.reports != nil {
		o.reports.Store(prog)
	}
	f := src.Fetch(ctx, w)
	if o.reports != nil {
		o.reports.Store(nil)
	}
	if ctx.Err() != nil {
		why := "cancelled"
		if o.ended != nil {
			why = o.ended()
		}
		prog.end(why)
		return false
	}
	for _, p := range f.Problems {
		s.log.Warn("schema source", "source", string(src.Name()), "problem", p)
		s.logMessage(protocol.MessageTypeWarning, "crd-lsp: "+p)
	}
	var next *loader.World
	if f.Changes() { // (else a source not read keeps the cached copy the load served)
		// What was read is committed even if the fetch's progress is
		// cancelled now: the fetch is done.
		_, next = s.updateWorld(context.Background(), worldUpdate{cheap: !o.heavy,
			build: func(base *loader.World, _ map[uri.URI]*document.File) *loader.World {
				next := base.WithFetched(f)
				if o.heavy {
					next.Warm()
				}
				return next
			},
			locked: func(_, _ *loader.World) {
				if o.locked != nil {
					o.locked()
				}
			}})
	}
	prog.end(f.Done)
	if next == nil {
		return true
	}
	s.log.Info("schema source fetched", "source", string(src.Name()), "schemas", len(next.Served(src.Name()).Inputs))
	s.kubernetesNote(next)
	if f.Summary != "" {
		s.logMessage(protocol.MessageTypeInfo, "crd-lsp: "+f.Summary)
	}
	s.diag.scheduleAll()
	return true
}

// catalogAsked is the record of the kinds asked of the schema catalogs
// the settings name (a new one when they change).
func (s *server) catalogAsked(set Settings) *loader.Asked {
	key := strings.Join(set.SchemaCatalogs, "\x00") + "\x00" + set.SchemaCatalogRefresh
	s.srcs.askedMu.Lock()
	defer s.srcs.askedMu.Unlock()
	if s.srcs.asked == nil || s.srcs.askedKey != key {
		s.srcs.asked, s.srcs.askedKey = loader.NewAsked(), key
	}
	return s.srcs.asked
}
