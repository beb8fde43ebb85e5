// This file maps positions to paths (At) and paths to nodes and spans (Lookup,
// Spans), following aliases and merge keys.

package document

import (
	"sort"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Hit is what lies at an offset: the path of the deepest node there, its
// key (nil for list items and the root) and value, and whether the offset
// is on the key's text.
type Hit struct {
	Doc        *Doc
	Path       fieldpath.Path
	Key, Value *yaml.Node
	OnKey      bool
}

// maxAliasDepth bounds alias and merge-key chains (yaml.v3 rejects cycles,
// but a File's nodes are only trusted so far).
const maxAliasDepth = 64

// resolve follows alias nodes to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

// KeyName is the field name a mapping key stands for: a scalar key's
// value (an alias key's target's value); "" for complex keys.
func KeyName(k *yaml.Node) string {
	if k = resolve(k); k != nil && k.Kind == yaml.ScalarNode {
		return k.Value
	}
	return ""
}

// Lookup finds the node at p. It follows aliases and merge keys ("<<") for
// traversal, so a path may go through an alias (spec.x where spec: *base)
// or reach a field merged in from elsewhere. The nodes returned are the
// ones written at the place found: for a field reached through an alias or
// merge key that is the node under the anchor; a value that is itself an
// alias is returned as the alias node. key is nil for list items and the
// root. A literal "<<" merge key is found by its own name. A path with a
// wildcard finds nothing.
func (d *Doc) Lookup(p fieldpath.Path) (key, value *yaml.Node, ok bool) {
	n, key, value := d.lookup(p)
	if n < len(p) {
		return nil, nil, false
	}
	return key, value, true
}

// lookup follows p as far as it exists: n segments, reaching key and
// value (value nil when the document has no Root).
func (d *Doc) lookup(p fieldpath.Path) (n int, key, value *yaml.Node) {
	if d.Root == nil {
		return 0, nil, nil
	}
	value = d.Root
	for i, seg := range p {
		cur := resolve(value)
		if cur == nil {
			return i, key, value
		}
		switch seg.Kind {
		case fieldpath.KindField:
			k, v := d.mapGet(cur, seg.Field)
			if k == nil {
				return i, key, value
			}
			key, value = k, v
		case fieldpath.KindIndex:
			if cur.Kind != yaml.SequenceNode || seg.Index < 0 || seg.Index >= len(cur.Content) {
				return i, key, value
			}
			key, value = nil, cur.Content[seg.Index]
		default:
			return i, key, value
		}
	}
	return len(p), key, value
}

// mapGet finds name in mapping m, then in the mappings merged into it, in
// the order YAML gives them precedence. With duplicate keys the last wins,
// as when decoding.
func (d *Doc) mapGet(m *yaml.Node, name string) (key, value *yaml.Node) {
	var seen map[*yaml.Node]bool // mappings already searched via merge keys
	return mapGetSeen(m, name, 0, &seen, d.indexes())
}

// indexFrom is the number of keys from which a mapping is indexed: a
// lookup in it then costs a map access instead of a scan (an object with
// 30,000 unknown fields has 30,000 findings to position in it).
const indexFrom = 64

// keyIndexes are a Doc's large mappings' key indexes, built on first
// lookup; the nodes of a parsed document never change.
type keyIndexes struct {
	mu sync.Mutex
	by map[*yaml.Node]*keyIndex
}

// keyIndex is one mapping's keys: the Content index of the last key of
// each name, and of its merge keys.
type keyIndex struct {
	last   map[string]int
	merges []int
}

func (d *Doc) indexes() *keyIndexes {
	if d == nil {
		return nil
	}
	if ix := d.keys.Load(); ix != nil {
		return ix
	}
	d.keys.CompareAndSwap(nil, &keyIndexes{by: map[*yaml.Node]*keyIndex{}})
	return d.keys.Load()
}

// of is m's index, nil when m is small (or ix is nil).
func (ix *keyIndexes) of(m *yaml.Node) *keyIndex {
	if ix == nil || len(m.Content) < 2*indexFrom {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if k, ok := ix.by[m]; ok {
		return k
	}
	k := &keyIndex{last: make(map[string]int, len(m.Content)/2)}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k.last[KeyName(m.Content[i])] = i
		if isMergeKey(m.Content[i]) {
			k.merges = append(k.merges, i)
		}
	}
	ix.by[m] = k
	return k
}

func mapGetSeen(m *yaml.Node, name string, depth int, seen *map[*yaml.Node]bool, ix *keyIndexes) (key, value *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode || depth > maxAliasDepth {
		return nil, nil
	}
	var merges []int
	if k := ix.of(m); k != nil {
		if i, ok := k.last[name]; ok {
			return m.Content[i], m.Content[i+1]
		}
		merges = k.merges
	} else {
		for i := len(m.Content) - 2; i >= 0; i -= 2 {
			if k := m.Content[i]; KeyName(k) == name {
				return k, m.Content[i+1]
			}
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if isMergeKey(m.Content[i]) {
				merges = append(merges, i)
			}
		}
	}
	for _, i := range merges {
		v := resolve(m.Content[i+1])
		if v == nil {
			continue
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, s := range sources {
			s = resolve(s)
			if *seen == nil {
				*seen = map[*yaml.Node]bool{}
			}
			if (*seen)[s] {
				continue // searched already: merges can share (and repeat) sources
			}
			(*seen)[s] = true
			if k, val := mapGetSeen(s, name, depth+1, seen, ix); k != nil {
				return k, val
			}
		}
	}
	return nil, nil
}

// Spans returns the spans of the key and the value at p (see Lookup and
// NodeSpan). The key span is zero for list items and the root. The root's
// value span is its node's span.
func (d *Doc) Spans(p fieldpath.Path) (key, value Span, ok bool) {
	k, v, ok := d.Lookup(p)
	if !ok {
		return Span{}, Span{}, false
	}
	if k != nil {
		key = d.File.NodeSpan(k)
	}
	return key, d.File.NodeSpan(v), true
}

// Nearest returns the longest prefix of p that exists in the document, with
// its key and value spans, so that a problem reported at a path that is not
// written (a missing required field) can still be positioned. When nothing
// exists, not even a root, it returns the root path and the empty spans at
// the document's start.
func (d *Doc) Nearest(p fieldpath.Path) (fieldpath.Path, Span, Span) {
	n, k, v := d.lookup(p)
	if v == nil {
		return fieldpath.Path{}, Span{}, Span{d.Span.Start, d.Span.Start}
	}
	var ks Span
	if k != nil {
		ks = d.File.NodeSpan(k)
	}
	return p[:n:n], ks, d.File.NodeSpan(v)
}

// LineColOf is where a message about path p of d points, as the CLI and
// the MCP tools print it (1-based line, 1-based byte column): p's key
// (its value for a list item or the root), else its nearest existing
// ancestor's, else the document's start.
func (d *Doc) LineColOf(p fieldpath.Path) (line, col int) {
	for ; ; p = p.Parent() {
		if k, v, ok := d.Lookup(p); ok {
			n := v
			if k != nil {
				n = k
			}
			if n != nil {
				return d.File.Mapper.LineCol(d.File.NodeSpan(n).Start)
			}
		}
		if len(p) == 0 {
			return d.File.Mapper.LineCol(d.Span.Start)
		}
	}
}

// Walk calls fn for every key/value pair and list item, depth-first in text
// order, with the path of the value. If fn returns false, the value's
// children are skipped. Aliases are not entered (their anchors are walked
// where they are written); merge keys are visited as the field "<<".
//
// p is valid only during the call (fn must copy it to keep it, e.g. with
// p.Child()): the walk builds every path in one buffer, so that it costs
// time linear in the number of nodes however deep they nest.
func (d *Doc) Walk(fn func(p fieldpath.Path, key, value *yaml.Node) bool) {
	if d.Root == nil {
		return
	}
	buf := make(fieldpath.Path, 0, 16)
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		depth := len(buf)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				buf = append(buf[:depth], fieldpath.Field(KeyName(k)))
				if fn(buf[:depth+1:depth+1], k, v) {
					walk(v)
				}
			}
		case yaml.SequenceNode:
			for i, v := range n.Content {
				buf = append(buf[:depth], fieldpath.Index(i))
				if fn(buf[:depth+1:depth+1], nil, v) {
					walk(v)
				}
			}
		}
		buf = buf[:depth]
	}
	walk(d.Root)
}

// At returns what lies at offset: the deepest key or value whose text
// contains it (ends included, so a cursor just after a word still touches
// it). On a key, OnKey is set. Between a key and its value on the key's
// line ("key: |", "key:   value", "key:" with nothing after it), the hit
// is that key's path with OnKey false. Elsewhere (indentation, comments,
// blank lines) the hit is the innermost collection containing the offset.
// ok is false when the document at offset has no Root. At does not enter
// aliases: on "*name" the hit is the alias node. It costs O(depth × log
// width).
func (f *File) At(offset int) (Hit, bool) {
	d := f.DocAt(offset)
	if d == nil || d.Root == nil {
		return Hit{Doc: d}, false
	}
	h := Hit{Doc: d, Value: d.Root, Path: make(fieldpath.Path, 0, 16)}
	for n := d.Root; n != nil; {
		n = f.step(&h, n, offset)
	}
	return h, true
}

// step moves h one level down from collection n towards off, returning the
// node to continue from (nil to stop).
func (f *File) step(h *Hit, n *yaml.Node, off int) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		pairs := len(n.Content) / 2
		// The last pair whose key starts at or before off.
		i := sort.Search(pairs, func(i int) bool { return f.NodeSpan(n.Content[2*i]).Start > off }) - 1
		if i < 0 {
			return nil
		}
		k, v := n.Content[2*i], n.Content[2*i+1]
		ks, vs := f.NodeSpan(k), f.NodeSpan(v)
		m := f.Mapper
		keyLine := m.LineOf(ks.End)
		var next *yaml.Node
		switch {
		case ks.Contains(off):
			h.OnKey = true
		case vs.Len() > 0 && vs.Contains(off):
			next = v
		case off > ks.End && (off < vs.Start || vs.Len() == 0) && m.LineOf(off) == keyLine && off <= m.LineEnd(keyLine):
			// After "key:" on its line, before the value.
		default:
			return nil
		}
		h.Path = append(h.Path, fieldpath.Field(KeyName(k)))
		h.Key, h.Value = k, v
		return next
	case yaml.SequenceNode:
		i := sort.Search(len(n.Content), func(i int) bool { return f.NodeSpan(n.Content[i]).Start > off }) - 1
		if i < 0 {
			return nil
		}
		v := n.Content[i]
		if f.NodeSpan(v).Contains(off) {
			h.Path = append(h.Path, fieldpath.Index(i))
			h.Key, h.Value, h.OnKey = nil, v, false
			return v
		}
	}
	return nil
}
