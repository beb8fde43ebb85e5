// This file defines Mapper, the only code that converts byte offsets to and
// from line/character positions (UTF-8, UTF-16, UTF-32), and Span.

package document

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Encoding is the unit in which a Position's Character counts.
type Encoding uint8

const (
	UTF16 Encoding = iota // UTF-16 code units: LSP's default
	UTF8                  // bytes
	UTF32                 // Unicode code points
)

func (e Encoding) String() string {
	switch e {
	case UTF16:
		return "utf-16"
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

// Position is a 0-based line and a 0-based character offset within it,
// counted in the code units of some Encoding.
type Position struct{ Line, Character int }

// Range is a pair of Positions.
type Range struct{ Start, End Position }

// Span is a half-open range [Start, End) of byte offsets into a text.
type Span struct{ Start, End int }

// Contains reports whether off lies in [Start, End] (the end included, so
// that a cursor just after a word still touches it).
func (s Span) Contains(off int) bool { return s.Start <= off && off <= s.End }

// Len is the number of bytes in s.
func (s Span) Len() int { return s.End - s.Start }

// IsZero reports whether s is the zero Span.
func (s Span) IsZero() bool { return s == Span{} }

// Mapper converts byte offsets of one text to and from line/character
// positions. It is the only code in crd-lsp that knows UTF-16.
//
// Lines end at "\n", "\r\n" or a lone "\r", the three terminators LSP and
// YAML both recognise; the terminator belongs to no line's characters.
// Invalid UTF-8 bytes count as one code unit each, in every encoding.
//
// A byte-order mark at the start of the text is invisible, as in editors:
// line 0 counts its characters from after it, and offsets inside it map to
// the start of line 0.
type Mapper struct {
	text  []byte
	lines []int // byte offset of the start of each line
	bom   int   // length of a leading byte-order mark
}

// NewMapper indexes text's lines. It keeps text, which must not change.
func NewMapper(text []byte) *Mapper {
	lines := make([]int, 1, 1+bytes.Count(text, []byte("\n"))+bytes.Count(text, []byte("\r")))
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines = append(lines, i+1)
		}
	}
	bom := 0
	if len(text) >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF {
		bom = 3
	}
	return &Mapper{text: text, lines: lines, bom: bom}
}

// lineChars returns the offset where the characters of line start: the
// line's start, or after the byte-order mark on line 0.
func (m *Mapper) lineChars(line int) int {
	if line == 0 {
		return m.bom
	}
	return m.lines[line]
}

// LineCount is the number of lines; a text ending in a terminator has an
// empty last line, and the empty text has one line.
func (m *Mapper) LineCount() int { return len(m.lines) }

// LineStart returns the byte offset where the 0-based line starts; it
// clamps line to the text.
func (m *Mapper) LineStart(line int) int {
	line = max(0, min(line, len(m.lines)-1))
	return m.lines[line]
}

// LineEnd returns the offset of the 0-based line's terminator, or the end
// of the text for the last line; it clamps line to the text.
func (m *Mapper) LineEnd(line int) int {
	line = max(0, min(line, len(m.lines)-1))
	if line+1 == len(m.lines) {
		return len(m.text)
	}
	end := m.lines[line+1] - 1 // the last byte of the terminator
	if m.text[end] == '\n' && end > m.lines[line] && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// LineOf returns the 0-based line containing offset, clamped to the text.
// An offset inside a line terminator belongs to the line it ends.
func (m *Mapper) LineOf(offset int) int {
	return max(0, sort.SearchInts(m.lines, offset+1)-1)
}

// Position converts a byte offset to a Position in enc. An offset inside a
// multi-byte character maps to that character's start, and one inside a
// "\r\n" terminator to the end of its line.
func (m *Mapper) Position(offset int, enc Encoding) (Position, error) {
	if offset < 0 || offset > len(m.text) {
		return Position{}, fmt.Errorf("offset %d outside the text (length %d)", offset, len(m.text))
	}
	line := m.LineOf(offset)
	start := m.lineChars(line)
	offset = max(offset, start)
	if end := m.LineEnd(line); offset > end {
		offset = end
	}
	for offset > start && offset < len(m.text) && !utf8.RuneStart(m.text[offset]) && runeStartBefore(m.text, start, offset) {
		offset--
	}
	return Position{Line: line, Character: units(m.text[start:offset], enc)}, nil
}

// runeStartBefore reports whether the continuation byte at off belongs to a
// valid multi-byte character that starts before it (and after lo).
func runeStartBefore(t []byte, lo, off int) bool {
	for s := off - 1; s >= lo && s >= off-3; s-- {
		if utf8.RuneStart(t[s]) {
			_, size := utf8.DecodeRune(t[s:])
			return s+size > off
		}
	}
	return false
}

// units counts the code units of b in enc.
func units(b []byte, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(b)
	case UTF32:
		return utf8.RuneCount(b)
	}
	n := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		n += utf16Len(r)
	}
	return n
}

// utf16Len is the number of UTF-16 code units of r; an invalid byte (the
// error rune) counts as one.
func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// Offset converts a Position in enc to a byte offset. A Character past the
// end of its line clamps to the line's end (the LSP rule); one that falls
// inside a character (between the halves of a UTF-16 surrogate pair, or
// inside a multi-byte UTF-8 sequence) snaps to that character's start. A
// negative position or a line past the last one is an error, except that
// character 0 of the line just after the last (LineCount()) is the end of
// the text, as some clients write "to the end of the document".
func (m *Mapper) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("invalid position %d:%d", p.Line, p.Character)
	}
	if p.Line == len(m.lines) && p.Character == 0 {
		return len(m.text), nil
	}
	if p.Line >= len(m.lines) {
		return 0, fmt.Errorf("line %d beyond the end of the text (%d lines)", p.Line, len(m.lines))
	}
	start, end := m.lineChars(p.Line), m.LineEnd(p.Line)
	if enc == UTF8 {
		off := start + min(p.Character, end-start)
		if off < end && runeStartBefore(m.text, start, off) && !utf8.RuneStart(m.text[off]) {
			for !utf8.RuneStart(m.text[off]) {
				off--
			}
		}
		return off, nil
	}
	n, off := 0, start
	for off < end {
		w, size := 1, 1
		if c := m.text[off]; c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRune(m.text[off:end])
			if enc == UTF16 {
				w = utf16Len(r)
			}
		}
		if n+w > p.Character {
			break
		}
		n += w
		off += size
	}
	return off, nil
}

// Range converts a Span to a Range in enc.
func (m *Mapper) Range(s Span, enc Encoding) (Range, error) {
	if s.End < s.Start {
		return Range{}, fmt.Errorf("span end %d before its start %d", s.End, s.Start)
	}
	start, err := m.Position(s.Start, enc)
	if err != nil {
		return Range{}, err
	}
	end, err := m.Position(s.End, enc)
	if err != nil {
		return Range{}, err
	}
	return Range{start, end}, nil
}

// Span converts a Range in enc to a Span.
func (m *Mapper) Span(r Range, enc Encoding) (Span, error) {
	start, err := m.Offset(r.Start, enc)
	if err != nil {
		return Span{}, err
	}
	end, err := m.Offset(r.End, enc)
	if err != nil {
		return Span{}, err
	}
	if end < start {
		return Span{}, fmt.Errorf("range end %d:%d before its start %d:%d", r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return Span{start, end}, nil
}

// LineCol returns the 1-based line and 1-based byte column of offset, the
// form compilers print (a byte-order mark is not counted). offset is
// clamped to the text.
func (m *Mapper) LineCol(offset int) (line, col int) {
	offset = max(0, min(offset, len(m.text)))
	l := m.LineOf(offset)
	return l + 1, max(0, offset-m.lineChars(l)) + 1
}

// Change is one edit of a text, as LSP's TextDocumentContentChangeEvent.
// A nil Range replaces the whole text.
type Change struct {
	Range *Range
	Text  string
}

// ApplyChanges applies changes in order, each to the result of the one
// before, as LSP incremental synchronisation requires. text is never
// modified; the result is always a fresh slice.
func ApplyChanges(text []byte, changes []Change, enc Encoding) ([]byte, error) {
	cur := append([]byte(nil), text...)
	for i, c := range changes {
		if c.Range == nil {
			cur = []byte(c.Text)
			continue
		}
		sp, err := NewMapper(cur).Span(*c.Range, enc)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", i, err)
		}
		next := make([]byte, 0, len(cur)-sp.Len()+len(c.Text))
		next = append(next, cur[:sp.Start]...)
		next = append(next, c.Text...)
		next = append(next, cur[sp.End:]...)
		cur = next
	}
	return cur, nil
}
