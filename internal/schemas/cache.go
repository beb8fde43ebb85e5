// This file is the process's build cache: built schemas and validators kept
// under a memory budget, least recently used evicted.

package schemas

import (
	"fmt"
	"hash/maphash"
	"sync"
)

// The build cache holds what is built from definition documents (the
// parsed CRD, structural schemas, validators, CEL programs) under a memory
// budget, least recently used first out. It is keyed by the document's
// content (a 64-bit hash and its length), so stores,
// sources and edits that restore earlier content share one build. An
// evicted build is rebuilt on the next use: from the text the index kept,
// or from the file read again through FileInput.Open.

// DefaultBuildBudget is the estimated memory the build cache may hold.
const DefaultBuildBudget = 96 << 20

// buildCostFactor estimates a build's memory from its document's size:
// the parsed CRD, the structural schema, the OpenAPI validator and the
// CEL programs of one version of an upjet CRD weigh about this many times
// the YAML (TestBuildCostFactor measures it: 9.3× on upjet CRDs).
const buildCostFactor = 10

var (
	seed  = maphash.MakeSeed()
	cache = newBuildCache(DefaultBuildBudget)
)

// SetBuildBudget sets the estimated memory (bytes) the process's schema
// builds may hold, evicting the least recently used beyond it, and
// returns the previous budget. A build in use is never lost: an evicted one
// stays valid for whoever holds it and is rebuilt for later callers.
func SetBuildBudget(bytes int64) int64 {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	old := cache.budget
	cache.budget = bytes
	cache.evictLocked(nil)
	return old
}

// docKey identifies a definition document by content.
type docKey struct {
	h uint64
	n int
}

func keyOf(doc []byte) docKey { return docKey{maphash.Bytes(seed, doc), len(doc)} }

type cacheEntry struct {
	key        docKey
	cost       int64
	prev, next *cacheEntry

	once sync.Once
	b    *built
}

type buildCache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries map[docKey]*cacheEntry
	ring    cacheEntry // sentinel: ring.next is the most recently used
}

func newBuildCache(budget int64) *buildCache {
	c := &buildCache{budget: budget, entries: map[docKey]*cacheEntry{}}
	c.ring.next, c.ring.prev = &c.ring, &c.ring
	return c
}

// get returns the build of r's document, building it (outside the cache's
// lock; reading the file again if the index kept no text) on first use.
func (c *buildCache) get(r *defRef, key docKey) *built {
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &cacheEntry{key: key, cost: int64(key.n) * buildCostFactor}
		c.entries[key] = e
		c.used += e.cost
		c.evictLocked(e)
	} else {
		c.unlinkLocked(e)
	}
	c.pushFrontLocked(e)
	c.mu.Unlock()
	e.once.Do(func() { e.b = newBuilt(r, key) })
	if e.b.transient {
		// The file could not be read as indexed: the next caller tries
		// again.
		c.mu.Lock()
		if c.entries[e.key] == e {
			c.removeLocked(e)
		}
		c.mu.Unlock()
	}
	return e.b
}

// evictLocked drops least recently used entries until the budget holds,
// keeping keep (the entry being added) whatever its cost.
func (c *buildCache) evictLocked(keep *cacheEntry) {
	for c.used > c.budget {
		e := c.ring.prev
		if e == &c.ring {
			return
		}
		if e == keep {
			if e.prev == &c.ring {
				return
			}
			e = e.prev
		}
		c.removeLocked(e)
	}
}

func (c *buildCache) removeLocked(e *cacheEntry) {
	delete(c.entries, e.key)
	c.used -= e.cost
	c.unlinkLocked(e)
}

func (c *buildCache) unlinkLocked(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next, e.next.prev = e.next, e.prev
		e.prev, e.next = nil, nil
	}
}

func (c *buildCache) pushFrontLocked(e *cacheEntry) {
	e.prev, e.next = &c.ring, c.ring.next
	c.ring.next.prev = e
	c.ring.next = e
}

// stats reports the entries held and their estimated cost, for tests.
func (c *buildCache) stats() (entries int, used int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.used
}

// newBuilt starts the build of r's document: its text, from the index or
// read again and checked against the index.
func newBuilt(r *defRef, key docKey) *built {
	b := &built{kind: r.kind}
	if r.open == nil {
		b.text = r.text
		return b
	}
	content, err := r.open()
	switch {
	case err != nil:
		err = fmt.Errorf("reading %s again: %w", r.path, err)
	case r.off+key.n > len(content) || keyOf(content[r.off:r.off+key.n]) != key:
		err = fmt.Errorf("%s changed on disk since it was indexed", r.path)
	}
	if err != nil {
		b.transient = true
		b.readErr = err
		return b
	}
	b.text = content[r.off : r.off+key.n : r.off+key.n]
	return b
}
