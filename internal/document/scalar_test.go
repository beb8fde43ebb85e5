package document

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// checkValueMap verifies a mapping against the text: every value byte
// maps to that very byte in the text, except line breaks (which map to the
// break, "\n" or the "\r" of "\r\n"), spaces a folded scalar made of a
// break, and escapes of a double-quoted scalar (which map to the
// backslash); offsets never decrease.
func checkValueMap(t *testing.T, f *File, n *yaml.Node, m ValueMap, where string) {
	t.Helper()
	if m.Len() != len(n.Value) {
		t.Fatalf("%s: map of %d bytes for a value of %d", where, m.Len(), len(n.Value))
	}
	prev := -1
	for i := 0; i < len(n.Value); i++ {
		off, c := m.Offset(i), n.Value[i]
		if off < prev || off >= len(f.Text) {
			t.Fatalf("%s: value byte %d maps to %d after %d", where, i, off, prev)
		}
		prev = off
		got := f.Text[off]
		switch {
		case got == c:
		case (c == '\n' || c == ' ') && (got == '\n' || got == '\r'):
		case got == '\\' && n.Style&yaml.DoubleQuotedStyle != 0:
		default:
			t.Fatalf("%s: value byte %d %q maps to %q at %d", where, i, c, got, off)
		}
	}
}

func TestValueOffsets(t *testing.T) {
	for _, tc := range []struct {
		text, path, want string
		// at: a substring of the value and the line:col (1-based, bytes)
		// where the text has it
		at, pos string
	}{
		{"a: |\n  line1\n  {{ x }}\n", "a", "line1\n{{ x }}\n", "{{ x }}", "3:3"},
		{"a: |-\n  x\n\n", "a", "x", "x", "2:3"},
		{"a: |+\n  x\n\n\nb: 1\n", "a", "x\n\n\n", "x", "2:3"},
		{"a: |2\n    indented\n  x\n", "a", "  indented\nx\n", "x", "3:3"},
		{"a:\n  b: |4-\n        deep\n      x\n", "a.b", "  deep\nx", "deep", "3:9"},
		{"a: >\n  one\n  two\n\n  three\n    more\n  four\n", "a", "one two\nthree\n  more\nfour\n", "four", "7:3"},
		{"a: >-\n  x\n  y\n", "a", "x y", "y", "3:3"},
		{"a: |\r\n  x\r\n  y\r\n", "a", "x\ny\n", "y", "3:3"},
		{"a: |\n  é{{ x }}\n", "a", "é{{ x }}\n", "{{", "2:5"},
		{"a: |\n  x\n    \n  y\n", "a", "x\n  \ny\n", "y", "4:3"},
		{"a: |\n  x", "a", "x", "x", "2:3"},
		{"a: |\n\n  x\n", "a", "\nx\n", "x", "3:3"},
		{"a: |  # comment\n  x\n", "a", "x\n", "x", "2:3"},
		{"t:\n- |\n  {{ a }}\n  ---\n  b: c\n- d\n", "t[0]", "{{ a }}\n---\nb: c\n", "b: c", "5:3"},
		{"a: &anchor |\n   x\n", "a", "x\n", "x", "2:4"},
		{"a: \"x\\ty\\u00e9z\"\n", "a", "x\tyéz", "z", "1:15"},
		{"a: 'it''s here'\n", "a", "it's here", "here", "1:11"},
		{"a: plain value # c\n", "a", "plain value", "value", "1:10"},
		{"---\na: |\n  x\n---\nb: 1\n", "a", "x\n", "x", "3:3"},
		{"a:\n  b: |2-\n\n\n    Valid\n  c: 1\n", "a.b", "\n\nValid", "Valid", "5:5"},
		{"- key: |2\n     foo\n  other: x\n", "[0].key", " foo\n", "foo", "2:6"},
	} {
		f := Parse("t.yaml", 0, []byte(tc.text))
		var d *Doc
		for _, doc := range f.Docs {
			if doc.Root != nil {
				d = doc
				break
			}
		}
		p, err := fieldpath.Parse(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		_, n, ok := d.Lookup(p)
		if !ok {
			t.Fatalf("%q: no %s", tc.text, tc.path)
		}
		if n.Value != tc.want {
			t.Fatalf("%q: yaml.v3 decodes %q, the test expects %q", tc.text, n.Value, tc.want)
		}
		m, ok := f.ValueOffsets(n)
		if !ok {
			t.Errorf("%q: no mapping", tc.text)
			continue
		}
		checkValueMap(t, f, n, m, fmt.Sprintf("%q", tc.text))
		i := strings.Index(n.Value, tc.at)
		sp := m.Span(Span{i, i + len(tc.at)})
		line, col := f.Mapper.LineCol(sp.Start)
		if got := fmt.Sprintf("%d:%d", line, col); got != tc.pos || string(f.Text[sp.Start:sp.End]) != tc.at {
			t.Errorf("%q: %q at %s = %q, want %s", tc.text, tc.at, got, f.Text[sp.Start:sp.End], tc.pos)
		}
		if end := m.Offset(m.Len()); end < sp.End || end > len(f.Text) {
			t.Errorf("%q: the value ends at %d", tc.text, end)
		}
	}
	// Not mapped: a flow scalar folded over lines, and nodes that are not
	// scalars.
	f := Parse("t.yaml", 0, []byte("a: \"one\n  two\"\nb: [1]\n"))
	_, n, _ := f.Docs[0].Lookup(fieldpath.Path{fieldpath.Field("a")})
	if _, ok := f.ValueOffsets(n); ok {
		t.Errorf("a folded double-quoted scalar was mapped")
	}
	_, n, _ = f.Docs[0].Lookup(fieldpath.Path{fieldpath.Field("b")})
	if _, ok := f.ValueOffsets(n); ok {
		t.Errorf("a sequence was mapped")
	}
}

// TestValueOffsetsCorpus maps every block scalar of the corpus's
// Compositions, examples and workspaces (all must map: templates, scripts,
// descriptions) and every 16th other scalar that can be, and checks each
// mapping. The CRDs (crds/ and the workspaces' schemas/, 120 MB of
// descriptions) are left to TestCorpusRoundTrip.
func TestValueOffsetsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	blocks, others, seen := 0, 0, 0
	for _, p := range corpusFiles(t) {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sep := string(os.PathSeparator)
		if len(text) > 1<<20 || strings.Contains(p, sep+"crds"+sep) || strings.Contains(p, sep+"schemas"+sep) {
			continue
		}
		f := Parse(p, 0, text)
		for _, d := range f.Docs {
			d.Walk(func(path fieldpath.Path, _, v *yaml.Node) bool {
				if v == nil || v.Kind != yaml.ScalarNode {
					return true
				}
				block := v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
				if seen++; !block && seen%16 != 0 {
					return true
				}
				m, ok := f.ValueOffsets(v)
				if block && !ok {
					t.Errorf("%s: block scalar %s not mapped", p, path)
					return true
				}
				if ok {
					checkValueMap(t, f, v, m, p+": "+path.String())
					if block {
						blocks++
					} else {
						others++
					}
				}
				return true
			})
		}
	}
	if blocks < 50 {
		t.Errorf("only %d block scalars in the corpus", blocks)
	}
	t.Logf("%d block scalars and %d other scalars mapped", blocks, others)
}
