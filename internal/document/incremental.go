// This file defines ParseWithin, Parse for an editor: texts over the limits
// are left unparsed, and the previous version's unchanged documents are
// reused.

package document

import (
	"bytes"
	"hash/maphash"

	"gopkg.in/yaml.v3"
)

// Limits bound what ParseWithin parses; a zero field is no limit.
type Limits struct {
	MaxBytes     int // the text's size
	MaxDocuments int // the number of YAML documents
}

// LimitHit says which limit kept a File from being parsed.
type LimitHit struct {
	Documents bool // the document count (else the size in bytes)
	// Message: the editor's message carrying the text was over the limit
	// of one message, so the text is not known at all (see Skipped).
	Message bool
	Have    int
	Limit   int
}

// Skipped is a File whose text is not known (an editor sent it in a
// message too large to read): empty, one empty document, NotParsed hit.
func Skipped(uri string, version int32, hit LimitHit) *File {
	f := newFile(uri, version, nil)
	f.parsing = false
	return f.unparsed(hit)
}

// NotParsed reports whether f was left unparsed because its text was over
// a limit (see ParseWithin), and which.
func (f *File) NotParsed() (LimitHit, bool) {
	if f.notParsed == nil {
		return LimitHit{}, false
	}
	return *f.notParsed, true
}

// ParseWithin is Parse for an editor: text over lim is not parsed (the
// File then holds the text and one empty document, and NotParsed says
// why), and documents of prev, an earlier version of the same file, whose
// text is unchanged are reused instead of parsed again (their nodes are
// shared when they start on the same line, else copied with their lines
// moved). Reused documents are exactly what parsing them would give, so a
// keystroke in one document of a long file parses that document only.
func ParseWithin(uri string, version int32, text []byte, lim Limits, prev *File) *File {
	f := newFile(uri, version, text)
	if prev != nil {
		f.spans = make(map[*yaml.Node]Span, len(prev.spans))
	}
	defer func() { f.parsing, f.runes = false, nil }()
	if lim.MaxBytes > 0 && len(text) > lim.MaxBytes {
		return f.unparsed(LimitHit{Have: len(text), Limit: lim.MaxBytes})
	}
	spans := f.splitDocuments()
	if lim.MaxDocuments > 0 && len(spans) > lim.MaxDocuments {
		return f.unparsed(LimitHit{Documents: true, Have: len(spans), Limit: lim.MaxDocuments})
	}
	old := reusable(prev)
	for i, sp := range spans {
		d := &Doc{File: f, Index: i, Span: sp, firstLine: f.Mapper.LineOf(sp.Start)}
		if o := old.take(f.Text[sp.Start:sp.End], sp.Start == 0); o != nil {
			d.adopt(o)
		} else {
			d.parseSpan(text)
		}
		f.Docs = append(f.Docs, d)
	}
	return f
}

func newFile(uri string, version int32, text []byte) *File {
	f := &File{URI: uri, Version: version, Text: text, Mapper: NewMapper(text), spans: map[*yaml.Node]Span{}, parsing: true}
	if bytes.HasPrefix(text, []byte("\ufeff")) {
		f.bom = 3
	}
	return f
}

// unparsed makes f a File whose text was not parsed: one empty document.
func (f *File) unparsed(hit LimitHit) *File {
	f.notParsed = &hit
	f.Docs = []*Doc{{File: f, Span: Span{0, len(f.Text)}}}
	return f
}

// oldDocs indexes a previous version's reusable documents by text.
type oldDocs struct {
	seed maphash.Seed
	by   map[uint64][]*Doc
}

// reusable indexes prev's documents that parsed without errors. The first
// document is left out: it may start with a byte-order mark, which
// changes how its first line is read.
func reusable(prev *File) *oldDocs {
	if prev == nil || prev.notParsed != nil {
		return nil
	}
	o := &oldDocs{seed: maphash.MakeSeed(), by: map[uint64][]*Doc{}}
	for _, d := range prev.Docs {
		if d.Root == nil || len(d.Errors) > 0 || d.Span.Start == 0 {
			continue
		}
		h := maphash.Bytes(o.seed, prev.Text[d.Span.Start:d.Span.End])
		o.by[h] = append(o.by[h], d)
	}
	return o
}

// take returns (and forgets) an old document with exactly this text.
func (o *oldDocs) take(text []byte, first bool) *Doc {
	if o == nil || first {
		return nil
	}
	h := maphash.Bytes(o.seed, text)
	list := o.by[h]
	for i, d := range list {
		if bytes.Equal(d.File.Text[d.Span.Start:d.Span.End], text) {
			o.by[h] = append(list[:i:i], list[i+1:]...)
			return d
		}
	}
	return nil
}

// adopt makes d the old document o, moved to d's place: the same nodes
// when o started on the same line (yaml.v3's lines are absolute in a
// File), else copies with their lines moved; spans move by the offset.
func (d *Doc) adopt(o *Doc) {
	lines := d.firstLine - o.firstLine
	shift := d.Span.Start - o.Span.Start
	oldSpans, spans := o.File.spans, d.File.spans
	if lines == 0 {
		// The same nodes: only their spans move. (The spans map doubles
		// as the set of nodes seen, for aliases.)
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n == nil {
				return
			}
			if _, seen := spans[n]; seen {
				return
			}
			sp := oldSpans[n]
			spans[n] = Span{sp.Start + shift, sp.End + shift}
			for _, x := range n.Content {
				walk(x)
			}
			walk(n.Alias)
		}
		walk(o.Root)
		d.Root = o.Root
		return
	}
	copies := map[*yaml.Node]*yaml.Node{}
	var copyNode func(n *yaml.Node) *yaml.Node
	copyNode = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		cp := *n
		c := &cp
		c.Line += lines
		copies[n] = c
		if sp, ok := oldSpans[n]; ok {
			spans[c] = Span{sp.Start + shift, sp.End + shift}
		}
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, x := range n.Content {
				c.Content[i] = copyNode(x)
			}
		}
		c.Alias = copyNode(n.Alias)
		return c
	}
	d.Root = copyNode(o.Root)
}
