// This file is the session's one writer: every change of the World and
// of the settings goes through commitLocked (gopls's
// Session.DidModifyFiles is the model), and updateWorld is the one way to
// build the next World from the current one without holding the session
// while it is built.

package lsp

import (
	"context"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"go.lsp.dev/uri"
)

// commit is one change of the session's state: a new World, new
// settings, or both.
type commit struct {
	world    *loader.World // nil: unchanged
	settings *Settings     // nil: unchanged
}

// commitLocked is the one place the session's World and settings are
// replaced (TestOneWriter holds every other file to it): requests that
// start afterwards see the new state in their snapshot (changedLocked).
// s.mu is held.
func (s *server) commitLocked(c commit) {
	if c.world != nil {
		s.world = c.world
	}
	if c.settings != nil {
		s.settings = *c.settings
	}
	s.changedLocked()
}

// worldUpdate is a change of the World made from the current one.
type worldUpdate struct {
	// build makes the next World from base (never nil) and the open
	// buffers as they were when base was current (the map is never
	// written: setOpenLocked replaces it); returning base or nil changes
	// nothing. It runs without the session's lock unless
	// cheap (inserting a few indexed files), or when other changes have
	// won the race three times: then under the lock, so that an editor
	// typing into a CRD cannot starve it.
	build func(base *loader.World, open map[uri.URI]*document.File) *loader.World
	cheap bool
	// current, when set, is asked under the lock whether the change still
	// holds for the session's settings (a refresh fetched for settings
	// since replaced is dropped).
	current func(Settings) bool
	// locked, when set, runs under the lock right after the commit.
	locked func(base, next *loader.World)
}

// updateWorld builds the next World from the session's current one and
// commits it, unless the session has no World yet (a load under way
// reads what the change would bring), the change no longer holds, or ctx
// ended. It returns the World replaced and the new one (nil, nil when
// nothing was committed).
func (s *server) updateWorld(ctx context.Context, u worldUpdate) (base, next *loader.World) {
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		base = s.world
		open := s.open
		if base == nil || (u.current != nil && !u.current(s.settings)) {
			s.mu.Unlock()
			return nil, nil
		}
		if u.cheap || attempt >= 3 {
			next = u.build(base, open)
		} else {
			s.mu.Unlock()
			next = u.build(base, open)
			if ctx.Err() != nil {
				return nil, nil
			}
			s.mu.Lock()
			if s.world != base {
				s.mu.Unlock()
				continue // another change came first: build on it
			}
			if u.current != nil && !u.current(s.settings) {
				s.mu.Unlock()
				return nil, nil
			}
		}
		if next == nil || next == base {
			s.mu.Unlock()
			return nil, nil
		}
		s.commitLocked(commit{world: next})
		if u.locked != nil {
			u.locked(base, next)
		}
		s.mu.Unlock()
		return base, next
	}
}
