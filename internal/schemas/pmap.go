// This file is the persistent hash trie that makes Store updates copy only
// what they touch.

package schemas

import (
	"hash/maphash"
	"math/bits"
)

// pmap is a persistent (immutable, structurally shared) hash array mapped
// trie. set and del return a new map that shares all untouched nodes with
// the old one, so one update costs O(log32 n) allocations, never O(n).
type pmap[K comparable, V any] struct {
	root *pnode[K, V]
	size int
}

type pnode[K comparable, V any] struct {
	bitmap uint32
	slots  []pslot[K, V]
}

// pslot is either a child node or a leaf (entries sharing one full hash).
type pslot[K comparable, V any] struct {
	node *pnode[K, V]
	leaf *pleaf[K, V]
}

type pleaf[K comparable, V any] struct {
	hash    uint64
	entries []pentry[K, V]
}

type pentry[K comparable, V any] struct {
	key K
	val V
}

var pmapSeed = maphash.MakeSeed()

func phash[K comparable](k K) uint64 { return maphash.Comparable(pmapSeed, k) }

const pbits = 5

func (m pmap[K, V]) Len() int { return m.size }

func (m pmap[K, V]) get(k K) (V, bool) {
	h := phash(k)
	n := m.root
	for shift := uint(0); n != nil; shift += pbits {
		bit := uint32(1) << ((h >> shift) & 31)
		if n.bitmap&bit == 0 {
			break
		}
		s := n.slots[bits.OnesCount32(n.bitmap&(bit-1))]
		if s.leaf != nil {
			if s.leaf.hash == h {
				for _, e := range s.leaf.entries {
					if e.key == k {
						return e.val, true
					}
				}
			}
			break
		}
		n = s.node
	}
	var zero V
	return zero, false
}

func (m pmap[K, V]) set(k K, v V) pmap[K, V] {
	h := phash(k)
	root, added := m.root.set(h, 0, k, v)
	out := pmap[K, V]{root: root, size: m.size}
	if added {
		out.size++
	}
	return out
}

func (n *pnode[K, V]) set(h uint64, shift uint, k K, v V) (*pnode[K, V], bool) {
	if n == nil {
		n = &pnode[K, V]{}
	}
	bit := uint32(1) << ((h >> shift) & 31)
	pos := bits.OnesCount32(n.bitmap & (bit - 1))
	if n.bitmap&bit == 0 {
		c := &pnode[K, V]{bitmap: n.bitmap | bit, slots: make([]pslot[K, V], len(n.slots)+1)}
		copy(c.slots, n.slots[:pos])
		c.slots[pos] = pslot[K, V]{leaf: &pleaf[K, V]{hash: h, entries: []pentry[K, V]{{k, v}}}}
		copy(c.slots[pos+1:], n.slots[pos:])
		return c, true
	}
	c := &pnode[K, V]{bitmap: n.bitmap, slots: append([]pslot[K, V](nil), n.slots...)}
	s := n.slots[pos]
	added := false
	switch {
	case s.node != nil:
		c.slots[pos].node, added = s.node.set(h, shift+pbits, k, v)
	case s.leaf.hash == h:
		l := &pleaf[K, V]{hash: h, entries: append([]pentry[K, V](nil), s.leaf.entries...)}
		found := false
		for i := range l.entries {
			if l.entries[i].key == k {
				l.entries[i].val, found = v, true
			}
		}
		if !found {
			l.entries = append(l.entries, pentry[K, V]{k, v})
			added = true
		}
		c.slots[pos] = pslot[K, V]{leaf: l}
	default:
		// Two different hashes share this slot: push both one level down.
		sub := &pnode[K, V]{}
		sub = sub.withLeaf(s.leaf, shift+pbits)
		sub, added = sub.set(h, shift+pbits, k, v)
		c.slots[pos] = pslot[K, V]{node: sub}
	}
	return c, added
}

// withLeaf places an existing leaf (unchanged) into a fresh node.
func (n *pnode[K, V]) withLeaf(l *pleaf[K, V], shift uint) *pnode[K, V] {
	bit := uint32(1) << ((l.hash >> shift) & 31)
	n.bitmap |= bit
	n.slots = []pslot[K, V]{{leaf: l}}
	return n
}

func (m pmap[K, V]) del(k K) pmap[K, V] {
	h := phash(k)
	root, removed := m.root.del(h, 0, k)
	if !removed {
		return m
	}
	return pmap[K, V]{root: root, size: m.size - 1}
}

func (n *pnode[K, V]) del(h uint64, shift uint, k K) (*pnode[K, V], bool) {
	if n == nil {
		return nil, false
	}
	bit := uint32(1) << ((h >> shift) & 31)
	if n.bitmap&bit == 0 {
		return n, false
	}
	pos := bits.OnesCount32(n.bitmap & (bit - 1))
	s := n.slots[pos]
	var repl pslot[K, V]
	switch {
	case s.node != nil:
		sub, removed := s.node.del(h, shift+pbits, k)
		if !removed {
			return n, false
		}
		if sub != nil {
			repl.node = sub
			if len(sub.slots) == 1 && sub.slots[0].leaf != nil {
				repl = pslot[K, V]{leaf: sub.slots[0].leaf}
			}
		}
	case s.leaf.hash == h:
		i := -1
		for j, e := range s.leaf.entries {
			if e.key == k {
				i = j
			}
		}
		if i < 0 {
			return n, false
		}
		if len(s.leaf.entries) > 1 {
			l := &pleaf[K, V]{hash: h}
			l.entries = append(append(l.entries, s.leaf.entries[:i]...), s.leaf.entries[i+1:]...)
			repl.leaf = l
		}
	default:
		return n, false
	}
	if repl.node == nil && repl.leaf == nil {
		if len(n.slots) == 1 {
			return nil, true
		}
		c := &pnode[K, V]{bitmap: n.bitmap &^ bit, slots: make([]pslot[K, V], 0, len(n.slots)-1)}
		c.slots = append(append(c.slots, n.slots[:pos]...), n.slots[pos+1:]...)
		return c, true
	}
	c := &pnode[K, V]{bitmap: n.bitmap, slots: append([]pslot[K, V](nil), n.slots...)}
	c.slots[pos] = repl
	return c, true
}

// each calls f for every entry, in an unspecified order.
func (m pmap[K, V]) each(f func(K, V)) { m.root.each(f) }

func (n *pnode[K, V]) each(f func(K, V)) {
	if n == nil {
		return
	}
	for _, s := range n.slots {
		if s.node != nil {
			s.node.each(f)
			continue
		}
		for _, e := range s.leaf.entries {
			f(e.key, e.val)
		}
	}
}
