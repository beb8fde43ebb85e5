// This file defines the cache of what workspace/symbol finds in files on
// disk.

package lsp

import (
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
)

// symbolCacheSize bounds how many files the symbol cache holds (object
// files, up to maxSymbolFiles, and the files defining kinds).
const symbolCacheSize = 2 * maxSymbolFiles

// racyWindow: a file modified this recently before it was stat'ed is
// read again at the next request, as an edit within the same tick of a
// coarse modification time (down to 2s) with the same size would not
// change its stamp.
const racyWindow = 2 * time.Second

// symbolCache keeps, per file read from disk, what workspace/symbol uses
// of it (analysis.FileSymbols, with its spans converted to protocol
// ranges), under the file's size and modification time when it was
// read: a request stats each file and reads and parses only those whose
// stamp changed, so repeated requests cost a stat per file and an edit on
// disk shows in the next request (watched-file events are not needed).
// Open buffers are never cached (the handler reads them from its
// snapshot). It is not session state: the snapshot hands the handler the
// server's one cache, which has its own lock, held only for map
// operations (never during IO, and never with the session's lock).
type symbolCache struct {
	mu    sync.Mutex
	gen   uint64 // requests begun
	files map[string]*symbolEntry
}

// symbolEntry is a cached file; all but used is immutable.
type symbolEntry struct {
	stamp  fileStamp
	racy   bool // modified within racyWindow of its stat: never trusted
	enc    document.Encoding
	syms   analysis.FileSymbols
	ranges map[document.Span]protocol.Range // of every span in syms
	used   uint64                           // the last request (gen) that used it; under mu
}

func newSymbolCache() *symbolCache { return &symbolCache{files: map[string]*symbolEntry{}} }

// begin starts a request: entries it does not use may be dropped when
// the cache is full.
func (c *symbolCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen
}

// get returns the entry of path as of its current stamp, reading it with
// read (and parsing it) only when the cached one is missing or stale; ok
// is false when the file cannot be stat'ed or read.
func (c *symbolCache) get(path string, read func(string) ([]byte, error), enc document.Encoding, gen uint64) (*symbolEntry, bool) {
	now := time.Now()
	st := stamp(path)
	if !st.exists {
		c.drop(path)
		return nil, false
	}
	c.mu.Lock()
	e := c.files[path]
	if e != nil && e.stamp == st && !e.racy && e.enc == enc {
		e.used = gen
		c.mu.Unlock()
		return e, true
	}
	c.mu.Unlock()
	// Stat'ed before reading: a file changed after the stat is read again
	// at the next request, as its stamp then differs.
	text, err := read(path)
	if err != nil {
		c.drop(path)
		return nil, false
	}
	if hook := testSymbolReadHook.Load(); hook != nil {
		(*hook)(path)
	}
	f := document.Parse(path, 0, text)
	e = &symbolEntry{stamp: st, racy: st.mod > now.Add(-racyWindow).UnixNano(), enc: enc, syms: analysis.SymbolsOfFile(f), ranges: map[document.Span]protocol.Range{}, used: gen}
	for _, o := range e.syms.Objects {
		e.ranges[o.Span] = toProtocolRange(f, o.Span, enc)
	}
	for _, k := range e.syms.Kinds {
		e.ranges[k.Span] = toProtocolRange(f, k.Span, enc)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.files) >= symbolCacheSize {
		// Full: drop what the latest request did not use (files gone
		// from the workspace, kinds not asked for lately).
		for p, old := range c.files {
			if old.used < c.gen {
				delete(c.files, p)
			}
		}
	}
	if len(c.files) < symbolCacheSize {
		c.files[path] = e
	}
	return e, true
}

func (c *symbolCache) drop(path string) {
	c.mu.Lock()
	delete(c.files, path)
	c.mu.Unlock()
}

// testSymbolReadHook, when set (by tests), is told of every file the
// symbol cache reads.
var testSymbolReadHook atomic.Pointer[func(path string)]
