package document

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// mapperText has é (2 bytes), CJK (3 bytes each), a tab, 😀 (4 bytes, a
// UTF-16 surrogate pair), and all three line terminators:
//
//	line 0: "aéb"      bytes 0-3,   "\r\n" at 4-5
//	line 1: "日本\tx"  bytes 6-13,  "\n" at 14
//	line 2: "😀z"      bytes 15-19, "\r" at 20
//	line 3: "last"     bytes 21-24, EOF at 25
const mapperText = "aéb\r\n日本\tx\n😀z\rlast"

func TestMapperPosition(t *testing.T) {
	m := NewMapper([]byte(mapperText))
	if m.LineCount() != 4 {
		t.Fatalf("LineCount = %d", m.LineCount())
	}
	cases := []struct {
		off          int
		u16, u8, u32 Position
		comment      string
	}{
		{0, Position{0, 0}, Position{0, 0}, Position{0, 0}, "start"},
		{1, Position{0, 1}, Position{0, 1}, Position{0, 1}, "é"},
		{2, Position{0, 1}, Position{0, 1}, Position{0, 1}, "inside é snaps to its start"},
		{3, Position{0, 2}, Position{0, 3}, Position{0, 2}, "b"},
		{4, Position{0, 3}, Position{0, 4}, Position{0, 3}, "\\r: end of line 0"},
		{5, Position{0, 3}, Position{0, 4}, Position{0, 3}, "inside \\r\\n: end of line 0"},
		{6, Position{1, 0}, Position{1, 0}, Position{1, 0}, "日"},
		{9, Position{1, 1}, Position{1, 3}, Position{1, 1}, "本"},
		{12, Position{1, 2}, Position{1, 6}, Position{1, 2}, "tab"},
		{13, Position{1, 3}, Position{1, 7}, Position{1, 3}, "x"},
		{14, Position{1, 4}, Position{1, 8}, Position{1, 4}, "\\n"},
		{15, Position{2, 0}, Position{2, 0}, Position{2, 0}, "😀"},
		{17, Position{2, 0}, Position{2, 0}, Position{2, 0}, "inside 😀"},
		{19, Position{2, 2}, Position{2, 4}, Position{2, 1}, "z after a surrogate pair"},
		{20, Position{2, 3}, Position{2, 5}, Position{2, 2}, "lone \\r"},
		{21, Position{3, 0}, Position{3, 0}, Position{3, 0}, "last line"},
		{25, Position{3, 4}, Position{3, 4}, Position{3, 4}, "EOF"},
	}
	for _, c := range cases {
		for _, e := range []struct {
			enc  Encoding
			want Position
		}{{UTF16, c.u16}, {UTF8, c.u8}, {UTF32, c.u32}} {
			got, err := m.Position(c.off, e.enc)
			if err != nil || got != e.want {
				t.Errorf("Position(%d /*%s*/, %v) = %v, %v; want %v", c.off, c.comment, e.enc, got, err, e.want)
			}
		}
	}
	for _, off := range []int{-1, 26} {
		if _, err := m.Position(off, UTF16); err == nil {
			t.Errorf("Position(%d): no error", off)
		}
	}
}

func TestMapperOffset(t *testing.T) {
	m := NewMapper([]byte(mapperText))
	cases := []struct {
		p    Position
		enc  Encoding
		want int // -1: error
	}{
		{Position{0, 0}, UTF16, 0},
		{Position{0, 2}, UTF16, 3},
		{Position{0, 3}, UTF16, 4},
		{Position{0, 99}, UTF16, 4}, // past the end of the line: clamp before "\r\n"
		{Position{1, 1}, UTF16, 9},
		{Position{1, 3}, UTF16, 13},
		{Position{2, 1}, UTF16, 15}, // between the halves of 😀: its start
		{Position{2, 2}, UTF16, 19},
		{Position{2, 3}, UTF16, 20},
		{Position{2, 4}, UTF16, 20},
		{Position{3, 4}, UTF16, 25},
		{Position{3, 5}, UTF16, 25},
		{Position{2, 1}, UTF32, 19},
		{Position{2, 2}, UTF32, 20},
		{Position{1, 2}, UTF32, 12},
		{Position{0, 2}, UTF8, 1}, // inside é: its start
		{Position{0, 3}, UTF8, 3},
		{Position{1, 2}, UTF8, 6}, // inside 日
		{Position{1, 3}, UTF8, 9},
		{Position{2, 3}, UTF8, 15}, // inside 😀
		{Position{2, 4}, UTF8, 19},
		{Position{2, 9}, UTF8, 20},
		{Position{4, 0}, UTF16, 25}, // line == LineCount at character 0: EOF
		{Position{4, 0}, UTF8, 25},
		{Position{4, 1}, UTF16, -1}, // a line past EOF
		{Position{5, 0}, UTF16, -1},
		{Position{-1, 0}, UTF16, -1},
		{Position{0, -1}, UTF16, -1},
	}
	for _, c := range cases {
		got, err := m.Offset(c.p, c.enc)
		if c.want < 0 {
			if err == nil {
				t.Errorf("Offset(%v, %v) = %d, want an error", c.p, c.enc, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Offset(%v, %v) = %d, %v; want %d", c.p, c.enc, got, err, c.want)
		}
	}
}

// TestMapperRoundTrip: for every character start (not inside a line
// terminator), Offset(Position(off)) == off in every encoding.
func TestMapperRoundTrip(t *testing.T) {
	texts := []string{mapperText, "", "\n", "\r\n\r\n", "\ufeffé\n😀", "a\xffb\n\xe2\x82", strings.Repeat("日😀a", 1000) + "\n"}
	for _, text := range texts {
		m := NewMapper([]byte(text))
		for off := 0; off <= len(text); off++ {
			if off < len(text) && (text[off] == '\n' || (text[off] == '\r' && off > 0 && text[off-1] != '\r')) && off > 0 && text[off-1] == '\r' {
				continue
			}
			if off < len(text) && !utf8.RuneStart(text[off]) && utf8.ValidString(text) {
				continue
			}
			if off < 3 && strings.HasPrefix(text, "\ufeff") {
				continue
			}
			for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
				p, err := m.Position(off, enc)
				if err != nil {
					t.Fatalf("%q: Position(%d): %v", text, off, err)
				}
				back, err := m.Offset(p, enc)
				if err != nil || back != off {
					t.Errorf("%q: %v: Position(%d) = %v, Offset = %d, %v", text, enc, off, p, back, err)
				}
			}
		}
	}
}

func TestMapperBOM(t *testing.T) {
	text := "\ufeffa: é😀x\nb: 1\n"
	m := NewMapper([]byte(text))
	x := strings.Index(text, "x")
	if p, _ := m.Position(x, UTF16); p != (Position{0, 6}) {
		t.Errorf("Position(x) = %v, want 0:6 (the BOM is invisible)", p)
	}
	if p, _ := m.Position(1, UTF16); p != (Position{0, 0}) {
		t.Errorf("Position(inside BOM) = %v, want 0:0", p)
	}
	if off, _ := m.Offset(Position{0, 0}, UTF16); off != 3 {
		t.Errorf("Offset(0:0) = %d, want 3 (after the BOM)", off)
	}
	if off, _ := m.Offset(Position{0, 6}, UTF16); off != x {
		t.Errorf("Offset(0:6) = %d, want %d", off, x)
	}
	if l, c := m.LineCol(x); l != 1 || c != 10 {
		t.Errorf("LineCol(x) = %d:%d, want 1:10", l, c)
	}
	if l, c := m.LineCol(strings.Index(text, "1")); l != 2 || c != 4 {
		t.Errorf("LineCol(1) = %d:%d, want 2:4", l, c)
	}
}

func TestMapperLongLine(t *testing.T) {
	line := strings.Repeat("é", 1<<19) // 1 MiB
	text := []byte(line + "😀end\nnext")
	m := NewMapper(text)
	end := len(line) + 4
	if p, _ := m.Position(end, UTF16); p != (Position{0, 1<<19 + 2}) {
		t.Errorf("Position = %v", p)
	}
	if p, _ := m.Position(end, UTF8); p != (Position{0, end}) {
		t.Errorf("Position UTF8 = %v", p)
	}
	if off, _ := m.Offset(Position{0, 1<<19 + 2}, UTF16); off != end {
		t.Errorf("Offset = %d, want %d", off, end)
	}
	if off, _ := m.Offset(Position{1, 2}, UTF16); off != end+3+1+2 {
		t.Errorf("Offset(1:2) = %d", off)
	}
	if l, c := m.LineCol(end); l != 1 || c != end+1 {
		t.Errorf("LineCol = %d:%d", l, c)
	}
}

func TestMapperRangeSpan(t *testing.T) {
	m := NewMapper([]byte(mapperText))
	r, err := m.Range(Span{3, 19}, UTF16)
	if err != nil || r != (Range{Position{0, 2}, Position{2, 2}}) {
		t.Errorf("Range = %v, %v", r, err)
	}
	s, err := m.Span(r, UTF16)
	if err != nil || s != (Span{3, 19}) {
		t.Errorf("Span = %v, %v", s, err)
	}
	if _, err := m.Span(Range{Position{1, 0}, Position{0, 0}}, UTF16); err == nil {
		t.Error("Span of a reversed range: no error")
	}
	if _, err := m.Range(Span{5, 99}, UTF16); err == nil {
		t.Error("Range past EOF: no error")
	}
	if _, err := m.Range(Span{5, 4}, UTF16); err == nil {
		t.Error("Range of a reversed span: no error")
	}
	if l, c := m.LineCol(13); l != 2 || c != 8 {
		t.Errorf("LineCol(13) = %d:%d, want 2:8", l, c)
	}
	if l, c := m.LineCol(999); l != 4 || c != 5 {
		t.Errorf("LineCol(999) = %d:%d, want 4:5 (clamped)", l, c)
	}
}

func rng(l1, c1, l2, c2 int) *Range { return &Range{Position{l1, c1}, Position{l2, c2}} }

func TestApplyChanges(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		enc     Encoding
		changes []Change
		want    string // "" with wantErr
		wantErr bool
	}{
		{"replace a surrogate pair (UTF-16)", "a😀b\nc", UTF16, []Change{{rng(0, 1, 0, 3), "X"}}, "aXb\nc", false},
		{"replace a surrogate pair (UTF-8)", "a😀b\nc", UTF8, []Change{{rng(0, 1, 0, 5), "X"}}, "aXb\nc", false},
		{"replace a surrogate pair (UTF-32)", "a😀b\nc", UTF32, []Change{{rng(0, 1, 0, 2), "X"}}, "aXb\nc", false},
		{"insert after a non-BMP char on a later line", "x\n😀é\n", UTF16, []Change{{rng(1, 3, 1, 3), "!"}}, "x\n😀é!\n", false},
		{"edit spanning lines", "line1\nline2\nline3", UTF16, []Change{{rng(0, 2, 2, 3), "--"}}, "li--e3", false},
		{"delete a CRLF line", "a\r\nb\r\nc", UTF16, []Change{{rng(1, 0, 2, 0), ""}}, "a\r\nc", false},
		{"in order, each on the previous result", "abc", UTF16, []Change{
			{rng(0, 0, 0, 0), "x"},  // xabc
			{rng(0, 1, 0, 2), "Y"},  // xYbc
			{rng(0, 4, 0, 4), "\n"}, // xYbc\n
			{rng(1, 0, 1, 0), "😀"},  // xYbc\n😀
			{rng(1, 2, 1, 2), "z"},  // after the pair
		}, "xYbc\n😀z", false},
		{"full replacement then an edit", "old", UTF16, []Change{{nil, "new\ntext"}, {rng(1, 0, 1, 4), "T"}}, "new\nT", false},
		{"character past the line end clamps", "ab\ncd", UTF16, []Change{{rng(0, 100, 0, 100), "!"}}, "ab!\ncd", false},
		{"multi-line non-BMP edit (UTF-8)", "😀a\n日b\nc", UTF8, []Change{{rng(0, 4, 1, 3), "-"}}, "😀-b\nc", false},
		{"multi-line non-BMP edit (UTF-16)", "😀a\n日b\nc", UTF16, []Change{{rng(0, 2, 1, 1), "-"}}, "😀-b\nc", false},
		{"replace to line == LineCount, character 0", "ab\ncd", UTF16, []Change{{rng(0, 1, 2, 0), "X"}}, "aX", false},
		{"no changes", "same", UTF16, nil, "same", false},
		{"line past EOF", "ab", UTF16, []Change{{rng(3, 0, 3, 0), "x"}}, "", true},
		{"reversed range", "ab\ncd", UTF16, []Change{{rng(1, 0, 0, 0), "x"}}, "", true},
	}
	for _, c := range cases {
		in := []byte(c.text)
		orig := bytes.Clone(in)
		got, err := ApplyChanges(in, c.changes, c.enc)
		if !bytes.Equal(in, orig) {
			t.Errorf("%s: input modified", c.name)
		}
		if c.wantErr {
			if err == nil {
				t.Errorf("%s: no error, got %q", c.name, got)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
		if len(got) > 0 && len(in) > 0 && &got[0] == &in[0] {
			t.Errorf("%s: result aliases the input", c.name)
		}
	}
}
