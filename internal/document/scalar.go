// This file maps offsets in a scalar's decoded value to offsets in the file's
// text (ValueOffsets), for findings inside block and quoted scalars.

package document

import (
	"bytes"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// ValueMap maps byte offsets in a scalar's decoded value (yaml.Node.Value)
// to byte offsets in the File's text, so that a position found inside the
// value (a template's syntax error, a YAML document embedded in a block
// scalar) can be shown at its exact line and column in the file.
type ValueMap struct {
	offs []int // offs[i]: the text offset of value byte i; offs[len(value)]: the end
}

// Len is the length of the decoded value.
func (m ValueMap) Len() int { return len(m.offs) - 1 }

// Offset returns the text offset of byte i of the value; i == Len() is the
// end of the value's text, and i is clamped to [0, Len()]. A character
// the value does not hold as written (a line break a folded scalar turned
// into a space, an escape sequence) maps to where it is written: the line
// break, the backslash.
func (m ValueMap) Offset(i int) int {
	if len(m.offs) == 0 {
		return 0
	}
	return m.offs[max(0, min(i, len(m.offs)-1))]
}

// Index is the inverse of Offset: the byte of the value written at text
// offset off (Len() for the value's end); ok is false for an offset no
// value byte is written at (a block scalar's indentation, a quote).
func (m ValueMap) Index(off int) (int, bool) {
	i := sort.SearchInts(m.offs, off)
	if i < len(m.offs) && m.offs[i] == off {
		return i, true
	}
	return 0, false
}

// Span maps a span of the value to a span of the text: from the first
// byte's offset to just after the last byte's (value bytes that are
// written as they are map one to one, so a span inside one line of the
// value covers exactly its text).
func (m ValueMap) Span(s Span) Span {
	start := m.Offset(s.Start)
	if s.End <= s.Start {
		return Span{start, start}
	}
	return Span{start, max(start, m.Offset(s.End-1)+1)}
}

// ValueOffsets returns the mapping for a scalar node of f: literal and
// folded block scalars (every chomping and indentation indicator), and
// plain, single- and double-quoted scalars written on one line. ok is
// false for other nodes (a flow scalar folded over lines) and whenever the
// text does not decode to exactly n.Value, so a mapping returned is always
// exact.
func (f *File) ValueOffsets(n *yaml.Node) (m ValueMap, ok bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ValueMap{}, false
	}
	sp := f.NodeSpan(n)
	t := f.Text
	_, p := skipProperties(t, sp.Start)
	if p >= len(t) {
		return ValueMap{}, false
	}
	var offs []int
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && (t[p] == '|' || t[p] == '>'):
		offs, ok = f.blockValue(p, n.Value)
	case n.Style&yaml.DoubleQuotedStyle != 0 && t[p] == '"':
		offs, ok = doubleQuotedValue(t, p, sp.End, n.Value)
	case n.Style&yaml.SingleQuotedStyle != 0 && t[p] == '\'':
		offs, ok = singleQuotedValue(t, p, sp.End, n.Value)
	default:
		if bytes.HasPrefix(t[p:], []byte(n.Value)) {
			offs = make([]int, len(n.Value)+1)
			for i := range offs {
				offs[i] = p + i
			}
			ok = true
		}
	}
	if !ok {
		return ValueMap{}, false
	}
	return ValueMap{offs: offs}, true
}

// blockLine is one line of a block scalar's body.
type blockLine struct {
	start, end int // the content (after the indentation) up to the line end
	brk        int // the line break's offset; -1 at the end of the text
	blank      bool
	more       bool // more indented than the block (folding keeps its breaks)
}

// blockValue decodes the block scalar whose indicator is at p, trying the
// indentation the header and first line give, then the others, until the
// decoded value is want.
func (f *File) blockValue(p int, want string) ([]int, bool) {
	m, t := f.Mapper, f.Text
	line := m.LineOf(p)
	hdrEnd := m.LineEnd(line)
	folded := t[p] == '>'
	chomp := byte(0)
	explicit := 0
	for i := p + 1; i < hdrEnd && t[i] != ' ' && t[i] != '\t' && t[i] != '#'; i++ {
		switch c := t[i]; {
		case c == '-' || c == '+':
			chomp = c
		case c >= '1' && c <= '9':
			explicit = int(c - '0')
		}
	}
	owner := indentOf(t[m.LineStart(line):hdrEnd])
	first := -1 // indentation of the first non-blank line
	for l := line + 1; l < m.LineCount(); l++ {
		s := t[m.LineStart(l):m.LineEnd(l)]
		if len(bytes.TrimLeft(s, " ")) > 0 {
			first = indentOf(s)
			break
		}
	}
	var candidates []int
	if explicit > 0 {
		candidates = append(candidates, owner+explicit)
	}
	if first >= 0 {
		candidates = append(candidates, first)
	}
	for i := 1; i <= max(first, owner+explicit); i++ {
		candidates = append(candidates, i)
	}
	if first < 0 {
		candidates = append(candidates, owner+1)
	}
	for _, indent := range candidates {
		offs, val := f.decodeBlock(line, indent, folded, chomp)
		if string(val) == want {
			return offs, true
		}
	}
	return nil, false
}

// decodeBlock decodes a block scalar's body with the given indentation.
func (f *File) decodeBlock(header, indent int, folded bool, chomp byte) ([]int, []byte) {
	m, t := f.Mapper, f.Text
	var lines []blockLine
	for l := header + 1; l < m.LineCount(); l++ {
		ls, le := m.LineStart(l), m.LineEnd(l)
		s := t[ls:le]
		brk := le
		if le >= len(t) {
			brk = -1
		}
		ind := indentOf(s)
		if ind == len(s) || (ind < indent && len(bytes.TrimLeft(s, " \t")) == 0) {
			if ind > indent { // spaces beyond the indentation are content
				lines = append(lines, blockLine{start: ls + indent, end: le, brk: brk, more: true})
				continue
			}
			lines = append(lines, blockLine{start: le, end: le, brk: brk, blank: true})
			continue
		}
		if ind < indent {
			break
		}
		if ind == 0 && (bytes.HasPrefix(s, []byte("---")) || bytes.HasPrefix(s, []byte("..."))) &&
			(len(s) == 3 || s[3] == ' ' || s[3] == '\t') {
			break // a document marker ends the block
		}
		c := t[ls+indent]
		lines = append(lines, blockLine{start: ls + indent, end: le, brk: brk, more: c == ' ' || c == '\t'})
	}
	lastText := -1
	for i, l := range lines {
		if !l.blank {
			lastText = i
		}
	}
	var offs []int
	var val []byte
	emit := func(b byte, off int) { val = append(val, b); offs = append(offs, off) }
	brkOff := func(l blockLine) int {
		if l.brk < 0 {
			return len(t)
		}
		return l.brk
	}
	end := len(t)
	for i := 0; i <= lastText; i++ {
		l := lines[i]
		if l.blank {
			emit('\n', brkOff(l))
			continue
		}
		for o := l.start; o < l.end; o++ {
			emit(t[o], o)
		}
		if i == lastText {
			end = l.end
			break
		}
		if l.brk < 0 {
			break
		}
		// The break after a text line: folding joins it with the next text
		// line by a space, unless blank lines come between (each is a
		// line break, this one is dropped) or either line is more indented.
		j := i + 1
		for j <= lastText && lines[j].blank {
			j++
		}
		if folded && !l.more && !lines[j].more {
			if j == i+1 {
				emit(' ', l.brk)
			}
			continue
		}
		emit('\n', l.brk)
	}
	// The breaks after the last text line, by the chomping indicator.
	if lastText >= 0 && lines[lastText].brk >= 0 {
		switch chomp {
		case '-':
		case '+':
			emit('\n', lines[lastText].brk)
			for _, l := range lines[lastText+1:] {
				if l.brk >= 0 {
					emit('\n', l.brk)
				}
			}
		default:
			emit('\n', lines[lastText].brk)
		}
		end = lines[lastText].brk
	} else if lastText < 0 && chomp == '+' {
		for _, l := range lines {
			if l.brk >= 0 {
				emit('\n', l.brk)
				end = l.brk
			}
		}
	}
	offs = append(offs, end)
	return offs, val
}

func singleQuotedValue(t []byte, p, end int, want string) ([]int, bool) {
	var offs []int
	var val []byte
	for i := p + 1; i < end; i++ {
		switch t[i] {
		case '\n', '\r':
			return nil, false // folded over lines
		case '\'':
			if i+1 < end && t[i+1] == '\'' {
				val, offs = append(val, '\''), append(offs, i)
				i++
				continue
			}
			offs = append(offs, i)
			return offs, string(val) == want
		}
		val, offs = append(val, t[i]), append(offs, i)
	}
	return nil, false
}

// doubleQuotedValue decodes a double-quoted scalar written on one line;
// an escape's bytes map to its backslash.
func doubleQuotedValue(t []byte, p, end int, want string) ([]int, bool) {
	var offs []int
	var val []byte
	simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
		'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	for i := p + 1; i < end; i++ {
		switch t[i] {
		case '\n', '\r':
			return nil, false
		case '"':
			offs = append(offs, i)
			return offs, string(val) == want
		case '\\':
			if i+1 >= end {
				return nil, false
			}
			at := i
			var s string
			if r, ok := simple[t[i+1]]; ok {
				s = r
				i++
			} else {
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[t[i+1]]
				if n == 0 || i+2+n > end {
					return nil, false
				}
				code, err := strconv.ParseUint(string(t[i+2:i+2+n]), 16, 32)
				if err != nil {
					return nil, false
				}
				s = string(rune(code))
				i += 1 + n
			}
			for k := 0; k < len(s); k++ {
				val, offs = append(val, s[k]), append(offs, at)
			}
			continue
		}
		val, offs = append(val, t[i]), append(offs, i)
	}
	return nil, false
}
