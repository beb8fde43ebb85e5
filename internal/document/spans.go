// This file computes the exact byte extent of every node (NodeSpan), which
// yaml.v3 gives only as a start line and column.

package document

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// NodeSpan returns the exact extent of n in the text:
//
//   - plain scalars from the first to the last character of their text,
//     also when folded over several lines, without trailing comments
//   - quoted scalars including their quotes (escapes and line breaks
//     inside them included)
//   - block scalars (| and >) from the indicator to the end of the last
//     content line (trailing blank lines and comments are not included)
//   - flow collections from the opening to the closing bracket
//   - block collections from their first to their last character
//   - aliases as written: *name
//   - an empty value ("key:" or "-" with nothing after it) as the empty
//     span just after the ':' or '-'; a mapping entry written without ':'
//     ("{a}" in a flow mapping, "? a") has its empty value just after its
//     key (yaml.v3 places it at the next token, which may be the next
//     entry's key, on a later line)
//
// Anchors and tags written before a node (&a, !!str) are part of its span.
// The spans of a File's nodes are computed once, at Parse; n must be a
// node of f (other nodes get a best-effort span computed on the fly).
func (f *File) NodeSpan(n *yaml.Node) Span {
	if n == nil {
		return Span{}
	}
	if sp, ok := f.spans[n]; ok {
		return sp
	}
	return f.computeSpan(n, len(f.Text), unknownIndent)
}

// unknownIndent stands for a block indentation not known (a node that is
// not the File's): a block scalar's header line's indentation is taken.
const unknownIndent = -2

// indexSpans computes and records the spans of n and its descendants.
// limit is where the next node after n starts (or the document's end):
// n's text cannot reach it. indent is the block indentation yaml.v3's
// scanner has where n is written (see blockIndent; -1 at the root).
func (f *File) indexSpans(n *yaml.Node, limit, indent int) {
	if _, done := f.spans[n]; done {
		return
	}
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		inner := f.blockIndent(n, indent)
		for i, c := range n.Content {
			next := limit
			if i+1 < len(n.Content) {
				next = f.nodeStart(n.Content[i+1])
			}
			f.indexSpans(c, next, inner)
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if v := n.Content[i+1]; isEmptyValue(v) {
					at := f.emptyValueAt(f.spans[n.Content[i]].End)
					f.spans[v] = Span{at, at}
				}
			}
		}
	}
	f.spans[n] = f.computeSpan(n, limit, indent)
}

// isEmptyValue: nothing is written for n (an implicit null).
func isEmptyValue(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "" && n.Tag == "!!null" && n.Style == 0 && n.Anchor == ""
}

// emptyValueAt is where the empty value of the mapping entry whose key
// ends at keyEnd is: just after its ':', or just after the key when the
// entry has none ("{a}", "? a").
func (f *File) emptyValueAt(keyEnd int) int {
	t := f.Text
	p := keyEnd
	for p < len(t) && isBlank(t[p]) {
		p++
	}
	if p < len(t) && t[p] == ':' {
		return p + 1
	}
	return keyEnd
}

// blockIndent is the indentation yaml.v3's scanner has inside the
// collection n, written where it had outer: for a block mapping, its keys'
// column; for a block sequence, its '-' column (0-based, in code points).
// An explicit indentation indicator ("|2") counts from it, so it is not
// always the indentation of the indicator's line ("- key: |2", "- - |2").
func (f *File) blockIndent(n *yaml.Node, outer int) int {
	if len(n.Content) == 0 || n.Style&yaml.FlowStyle != 0 {
		return outer
	}
	if n.Kind == yaml.MappingNode {
		return n.Content[0].Column - 1
	}
	t := f.Text
	p := f.nodeStart(n.Content[0])
	for p > 0 && isBlank(t[p-1]) {
		p--
	}
	if p == 0 || t[p-1] != '-' {
		return n.Column - 1
	}
	line := f.Mapper.LineOf(p - 1)
	start := f.Mapper.LineStart(line)
	if line == 0 {
		start = min(start+f.bom, p-1)
	}
	return utf8.RuneCount(t[start : p-1])
}

// nodeStart is the byte offset where yaml.v3 placed n: its 1-based line
// (made absolute by Doc.rebase) and 1-based column counted in code points.
func (f *File) nodeStart(n *yaml.Node) int {
	line := n.Line - 1
	if line < 0 {
		return 0
	}
	if line >= f.Mapper.LineCount() {
		return len(f.Text)
	}
	return f.columnOffset(line, n.Column)
}

// longLine is the length from which a line's code points are indexed once
// instead of being counted for every node on it (minified JSON files are
// one long line with thousands of nodes).
const longLine = 512

// columnOffset converts a 1-based column in code points on a 0-based line
// to a byte offset.
func (f *File) columnOffset(line, col int) int {
	start, end := f.Mapper.LineStart(line), f.Mapper.LineEnd(line)
	if line == 0 {
		start = min(start+f.bom, end)
	}
	if col <= 1 {
		return start
	}
	t := f.Text
	if end-start > longLine {
		tab, ok := f.runes[line]
		if !ok {
			tab = runeTable(t[start:end])
			if f.parsing { // afterwards the File is shared: no writes
				if f.runes == nil {
					f.runes = map[int][]int32{}
				}
				f.runes[line] = tab
			}
		}
		if tab == nil { // ASCII
			return min(start+col-1, end)
		}
		if col-1 < len(tab) {
			return start + int(tab[col-1])
		}
		return end
	}
	off := start
	for c := 1; c < col && off < end; c++ {
		if t[off] < utf8.RuneSelf {
			off++
		} else {
			_, size := utf8.DecodeRune(t[off:end])
			off += size
		}
	}
	return off
}

// runeTable returns the offset of every code point of an non-ASCII line,
// or nil for an ASCII one.
func runeTable(b []byte) []int32 {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return nil
	}
	tab := make([]int32, 0, len(b))
	for i := 0; i < len(b); {
		tab = append(tab, int32(i))
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return tab
}

func (f *File) computeSpan(n *yaml.Node, limit, indent int) Span {
	start := f.nodeStart(n)
	t := f.Text
	limit = max(start, min(limit, len(t)))
	if start >= len(t) {
		return Span{start, start}
	}
	switch n.Kind {
	case yaml.AliasNode:
		return Span{start, min(start+1+len(n.Value), len(t))}
	case yaml.MappingNode, yaml.SequenceNode:
		_, p := skipProperties(t, start)
		if p < len(t) && (t[p] == '{' || t[p] == '[') {
			// The closing bracket comes before the next node (or the
			// document's end), whatever the quotes in between say.
			return Span{start, matchBracket(t[:max(limit, p)], p)}
		}
		end := start
		for _, c := range n.Content {
			if sp, ok := f.spans[c]; ok {
				end = max(end, sp.End)
			} else {
				end = max(end, f.computeSpan(c, limit, unknownIndent).End)
			}
		}
		return Span{start, end}
	case yaml.ScalarNode:
		return Span{start, f.scalarEnd(n, start, limit, indent)}
	}
	return Span{start, start}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipProperties moves past the "&anchor" and "!tag" properties at p:
// propEnd is the end of the last property (p when there is none) and next
// where the content starts after the white space (line breaks included).
func skipProperties(t []byte, p int) (propEnd, next int) {
	propEnd, next = p, p
	for next < len(t) && (t[next] == '&' || t[next] == '!') {
		for next < len(t) && !isBlank(t[next]) {
			next++
		}
		propEnd = next
		for next < len(t) && isBlank(t[next]) {
			next++
		}
	}
	return propEnd, next
}

// matchBracket returns the offset just after the bracket closing the flow
// collection opened at t[p], honouring quotes and comments.
func matchBracket(t []byte, p int) int {
	depth := 0
	for i := p; i < len(t); i++ {
		switch t[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			// A quote inside a plain scalar (a"b) is an ordinary character.
			if i == 0 || !isPlainChar(t[i-1]) {
				i = endDoubleQuoted(t, i) - 1
			}
		case '\'':
			// A quote inside a plain scalar (it's) is an ordinary character.
			if i == 0 || !isPlainChar(t[i-1]) {
				i = endSingleQuoted(t, i) - 1
			}
		case '#':
			if i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
				for i < len(t) && t[i] != '\n' && t[i] != '\r' {
					i++
				}
			}
		}
	}
	return len(t)
}

func isPlainChar(b byte) bool {
	return !isBlank(b) && b != ',' && b != '[' && b != '{' && b != ':'
}

func endDoubleQuoted(t []byte, p int) int {
	for i := p + 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(t)
}

func endSingleQuoted(t []byte, p int) int {
	for i := p + 1; i < len(t); i++ {
		if t[i] == '\'' {
			if i+1 < len(t) && t[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(t)
}

func (f *File) scalarEnd(n *yaml.Node, start, limit, indent int) int {
	t := f.Text
	propEnd, p := skipProperties(t, start)
	if p >= len(t) {
		return propEnd
	}
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0 && t[p] == '"':
		return endDoubleQuoted(t, p)
	case n.Style&yaml.SingleQuotedStyle != 0 && t[p] == '\'':
		return endSingleQuoted(t, p)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && (t[p] == '|' || t[p] == '>'):
		return f.blockScalarEnd(p, limit, indent)
	}
	if n.Value == "" {
		return propEnd // nothing written, or only properties
	}
	if v := n.Value; bytes.HasPrefix(t[p:], []byte(v)) {
		return p + len(v) // a plain scalar written on one line
	}
	return f.plainEnd(p, n.Value)
}

// plainEnd finds the end of a plain scalar folded over several lines (or
// written differently from its value) by matching the words of its value
// against the words of the text, line by line, until a comment.
func (f *File) plainEnd(p int, value string) int {
	want := fields(value)
	if len(want) == 0 {
		return p
	}
	t, m := f.Text, f.Mapper
	end, k := p, 0
	for l := m.LineOf(p); l < m.LineCount() && k < len(want); l++ {
		from, to := max(m.LineStart(l), p), m.LineEnd(l)
		for i := from; i < to && k < len(want); {
			r, size := utf8.DecodeRune(t[i:to])
			if unicode.IsSpace(r) {
				i += size
				continue
			}
			if r == '#' {
				if l > m.LineOf(p) || i > p {
					return end // a comment ends the scalar
				}
			}
			w := i
			for w < to {
				r, size := utf8.DecodeRune(t[w:to])
				if unicode.IsSpace(r) {
					break
				}
				w += size
			}
			word := string(t[i:w])
			switch {
			case word == want[k]:
				end = w
			case len(word) > len(want[k]) && word[:len(want[k])] == want[k]:
				return i + len(want[k]) // "last," in a flow collection
			default:
				return end
			}
			k++
			i = w
		}
	}
	return end
}

// fields splits s at white space, as plainEnd reads the text.
func fields(s string) []string { return strings.FieldsFunc(s, unicode.IsSpace) }

// blockScalarEnd returns the end of the last content line of the literal or
// folded block scalar whose indicator is at p, written where the block
// indentation is owner (see blockIndent; unknownIndent: the indicator's
// line's). Content lines are those after the indicator's line that are
// indented at least as much as the first non-blank one (or as the explicit
// indentation indicator says, counted from owner) and more than owner, up
// to the first line indented less and never reaching limit, where the next
// node starts.
func (f *File) blockScalarEnd(p, limit, owner int) int {
	m, t := f.Mapper, f.Text
	line := m.LineOf(p)
	end := m.LineEnd(line)
	if owner == unknownIndent {
		owner = indentOf(t[m.LineStart(line):end])
	}
	// The header: indicators, then maybe a comment, to the line end.
	indent := -1
	for i := p + 1; i < end && t[i] != ' ' && t[i] != '\t' && t[i] != '#'; i++ {
		if c := t[i]; c >= '1' && c <= '9' {
			indent = max(owner, 0) + int(c-'0')
		}
	}
	owner = max(owner, 0) // content is indented by one space at least
	for l := line + 1; l < m.LineCount(); l++ {
		ls, le := m.LineStart(l), m.LineEnd(l)
		if ls >= limit {
			break
		}
		s := t[ls:le]
		if len(bytes.TrimLeft(s, " ")) == 0 {
			continue // blank lines belong to the block but end no span
		}
		ind := indentOf(s)
		if indent < 0 {
			if ind <= owner {
				break
			}
			indent = ind
		}
		if ind < indent {
			break
		}
		end = min(le, limit)
	}
	return end
}

func indentOf(s []byte) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}
