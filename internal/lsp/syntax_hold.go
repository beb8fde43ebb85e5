// This file holds back YAML syntax errors on the line being typed, as
// gopls does: "forProv" before its colon is not a mistake yet. A syntax
// error that touches the lines of the document's last edit (or the line
// after, where YAML often reports it) is left out of the publish that
// follows the edit and published once the user pauses (syntaxHold after
// that edit, with no newer one). Other findings are published at once.

package lsp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
)

// syntaxHold is how long after an edit a syntax error on its line waits.
const syntaxHold = time.Second

// holdTimer starts the wait of a held syntax error: a timer, unless a
// test decides when the pause ends (testHoldTimer; no sleeps).
func holdTimer(d time.Duration) (<-chan time.Time, func() bool) {
	if h := testHoldTimer.Load(); h != nil {
		return (*h)(d)
	}
	t := time.NewTimer(d)
	return t.C, t.Stop
}

var testHoldTimer atomic.Pointer[func(time.Duration) (<-chan time.Time, func() bool)]

// edited is the lines (0-based, in the text after the edit) a document's
// last didChange touched.
type edited struct {
	version  int32
	from, to int
}

// syntaxHolds is the diagnoser's state for held syntax errors.
type syntaxHolds struct {
	mu sync.Mutex
	// last are the lines of each document's last incremental edit.
	last map[uri.URI]edited
	// waiting cancels the pending release of each document's held errors.
	waiting map[uri.URI]context.CancelFunc
}

// noteEdit records the lines an incremental didChange touched (in the new
// text); a whole-document change says nothing about the cursor.
func (h *syntaxHolds) noteEdit(u uri.URI, version int32, changes []document.Change) {
	from, to := -1, -1
	for _, c := range changes {
		if c.Range == nil {
			from = -1
			break
		}
		start := c.Range.Start.Line
		end := start + strings.Count(c.Text, "\n")
		if from < 0 || start < from {
			from = start
		}
		if end > to {
			to = end
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		h.last = map[uri.URI]edited{}
	}
	if from < 0 {
		delete(h.last, u)
		return
	}
	h.last[u] = edited{version: version, from: from, to: to}
}

// forget drops a closed document's state.
func (h *syntaxHolds) forget(u uri.URI) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.last, u)
	if cancel, ok := h.waiting[u]; ok {
		cancel()
		delete(h.waiting, u)
	}
}

// split separates the syntax errors of f that touch its last edit (when
// f is the version that edit made) from the findings to publish now.
func (h *syntaxHolds) split(u uri.URI, f *document.File, diags []analysis.Diagnostic) (now []analysis.Diagnostic, held bool) {
	h.mu.Lock()
	e, ok := h.last[u]
	h.mu.Unlock()
	if !ok || e.version != f.Version {
		return diags, false
	}
	now = make([]analysis.Diagnostic, 0, len(diags))
	for _, dg := range diags {
		if dg.Code == "yaml-syntax" {
			first, last := f.Mapper.LineOf(dg.Span.Start), f.Mapper.LineOf(dg.Span.End)
			if first <= e.to+1 && last >= e.from {
				held = true
				continue
			}
		}
		now = append(now, dg)
	}
	return now, held
}

// release publishes f's full findings once the pause is over, unless a
// newer version (or a close) came first. It replaces u's previous wait.
func (d *diagnoser) release(u uri.URI, f *document.File, diags []analysis.Diagnostic, enc document.Encoding) {
	h := &d.holds
	ctx, cancel := context.WithCancel(d.s.ctx)
	h.mu.Lock()
	if h.waiting == nil {
		h.waiting = map[uri.URI]context.CancelFunc{}
	}
	if prev, ok := h.waiting[u]; ok {
		prev()
	}
	h.waiting[u] = cancel
	h.mu.Unlock()
	fire, stop := holdTimer(syntaxHold)
	d.s.goBackground(func(context.Context) {
		defer cancel()
		defer stop()
		select {
		case <-ctx.Done():
			return
		case <-fire:
		}
		d.publishMu.Lock()
		defer d.publishMu.Unlock()
		if cur := d.s.snapshot(u); cur.file != f || ctx.Err() != nil {
			return // edited or closed meanwhile: that version's publish stands
		}
		d.send(u, f, diags, enc)
	})
}
