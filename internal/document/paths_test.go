package document

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

const spansSrc = `# head
apiVersion: v1
spec:
  name: "a b\"c"   # comment
  list:
    - x
    - key: 'it''s'
      blk: |
        one
        two

      fold: >-
        folded
        text
      # comment in the mapping
  é: 😀z
  flow: {a: [1, 2], "b c": {d: e}}
  empty:
  tilde: ~
  plain: multi
    line   # c
  quoted: "multi
    line"
  "a.b": dotted
  1: numeric
  anchored: &anc
    x: 1
  alias: *anc
  merged:
    <<: *anc
    y: 2
  tagged: !!str 5
  nested:
  - - deep
  - other: |+
      keep

  after: 1
`

func TestSpans(t *testing.T) {
	f := Parse("t.yaml", 1, []byte(spansSrc))
	d := f.Docs[0]
	if len(d.Errors) != 0 {
		t.Fatal(d.Errors)
	}
	cases := []struct{ path, key, value string }{
		{"apiVersion", "apiVersion", "v1"},
		{"spec.name", "name", `"a b\"c"`},
		{"spec.list[0]", "", "x"},
		{"spec.list[1].key", "key", `'it''s'`},
		{"spec.list[1].blk", "blk", "|\n        one\n        two"},
		{"spec.list[1].fold", "fold", ">-\n        folded\n        text"},
		{"spec.list[1]", "", "key: 'it''s'\n      blk: |\n        one\n        two\n\n      fold: >-\n        folded\n        text"},
		{"spec.é", "é", "😀z"},
		{"spec.flow", "flow", `{a: [1, 2], "b c": {d: e}}`},
		{"spec.flow.a", "a", "[1, 2]"},
		{"spec.flow.a[1]", "", "2"},
		{"spec.flow[b c]", `"b c"`, "{d: e}"},
		{"spec.flow[b c].d", "d", "e"},
		{"spec.empty", "empty", ""},
		{"spec.tilde", "tilde", "~"},
		{"spec.plain", "plain", "multi\n    line"},
		{"spec.quoted", "quoted", "\"multi\n    line\""},
		{"spec[a.b]", `"a.b"`, "dotted"},
		{"spec.1", "1", "numeric"},
		{"spec.anchored", "anchored", "&anc\n    x: 1"},
		{"spec.alias", "alias", "*anc"},
		{"spec.alias.x", "x", "1"},  // through the alias: the anchor's text
		{"spec.merged.x", "x", "1"}, // through the merge key: the anchor's text
		{"spec.merged.y", "y", "2"},
		{"spec.merged[<<]", "<<", "*anc"},
		{"spec.tagged", "tagged", "!!str 5"},
		{"spec.nested[0][0]", "", "deep"},
		{"spec.nested[0]", "", "- deep"},
		{"spec.nested[1].other", "other", "|+\n      keep"},
		{"spec.after", "after", "1"},
	}
	for _, c := range cases {
		p := path(t, c.path)
		k, v, ok := d.Spans(p)
		if !ok {
			t.Errorf("%s: not found", c.path)
			continue
		}
		if got := spansSrc[k.Start:k.End]; got != c.key || (c.key == "" && k != Span{}) {
			t.Errorf("%s: key %q %v, want %q", c.path, got, k, c.key)
		}
		if got := spansSrc[v.Start:v.End]; got != c.value {
			t.Errorf("%s: value %q, want %q", c.path, got, c.value)
		}
	}
	// The empty value is the empty span just after the colon.
	_, v, _ := d.Spans(path(t, "spec.empty"))
	if want := strings.Index(spansSrc, "empty:") + len("empty:"); v != (Span{want, want}) {
		t.Errorf("empty value span %v, want %d", v, want)
	}
	// The root's value is the whole mapping, without the leading comment.
	if _, root, _ := d.Spans(nil); spansSrc[root.Start:root.End] != strings.TrimSpace(strings.TrimPrefix(spansSrc, "# head\n")) {
		t.Errorf("root span %v", root)
	}
	for _, missing := range []string{"nope", "spec.list[2]", "spec.list[-1]", "spec.name.x", "spec.list[*]", "apiVersion[0]"} {
		if _, _, ok := d.Spans(path(t, missing)); ok {
			t.Errorf("%s: found", missing)
		}
	}
}

// TestSpansBlockIndentAndEmptyValues: an explicit indentation indicator
// counts from the block collection's indentation, which is not the
// indicator's line's after "- " ("- key: |2", "- - |2"), and an entry
// without ':' has its empty value just after its key. want is the value's
// text; for an empty value, the text before it must end with before.
func TestSpansBlockIndentAndEmptyValues(t *testing.T) {
	for _, tc := range []struct{ text, path, want, before string }{
		{"- key: |2\n     foo\n  other: x\n", "[0].key", "|2\n     foo", ""},
		{"- key: |2\n     foo\n\n  other: x\n", "[0].key", "|2\n     foo", ""},
		{"- - |2\n     foo\n  - x\n", "[0][0]", "|2\n     foo", ""},
		{"a:\n  b: |2-\n\n\n    Valid\n  c: 1\n", "a.b", "|2-\n\n\n    Valid", ""},
		{"x:\n- |1\n  y\nz: 1\n", "x[0]", "|1\n  y", ""},
		{"|2\n   x\n", "", "|2\n   x", ""},
		{"x: {a}\n", "x.a", "", "{a"},
		{"x: { a , b: 1}\n", "x.a", "", "{ a"},
		{"x: {{k}}\n", `x[""]`, "", "{{k}"},
		{"x: {a: }\n", "x.a", "", "{a:"},
		{"x: {a\n  }\n", "x.a", "", "{a"},
		{"? a\nb: 1\n", "a", "", "? a"},
		{"? a\n:\nb: 1\n", "a", "", "? a\n:"},
	} {
		f := Parse("t.yaml", 1, []byte(tc.text))
		d := f.Docs[0]
		if len(d.Errors) > 0 {
			t.Fatalf("%q: %v", tc.text, d.Errors)
		}
		_, v, ok := d.Spans(path(t, tc.path))
		if !ok {
			t.Fatalf("%q: no %s", tc.text, tc.path)
		}
		if got := tc.text[v.Start:v.End]; got != tc.want || !strings.HasSuffix(tc.text[:v.Start], tc.before) {
			t.Errorf("%q: %s is %q after %q, want %q after %q", tc.text, tc.path, got, tc.text[:v.Start], tc.want, tc.before)
		}
	}
}

func TestAt(t *testing.T) {
	f := Parse("t.yaml", 1, []byte(spansSrc))
	// at returns the offset of the n-th (0-based) occurrence of marker plus delta.
	at := func(marker string, delta int) int {
		i := strings.Index(spansSrc, marker)
		if i < 0 {
			t.Fatalf("no %q", marker)
		}
		return i + delta
	}
	cases := []struct {
		off   int
		path  string
		onKey bool
		desc  string
	}{
		{at("apiVersion", 0), "apiVersion", true, "key start"},
		{at("apiVersion", 5), "apiVersion", true, "key middle"},
		{at("apiVersion", 10), "apiVersion", true, "key end (cursor after the word)"},
		{at("apiVersion: v1", 11), "apiVersion", false, "between colon and value"},
		{at("apiVersion: v1", 12), "apiVersion", false, "value start"},
		{at("apiVersion: v1", 14), "apiVersion", false, "value end"},
		{at("\"a b", 3), "spec.name", false, "inside a quoted value"},
		{at("# comment", 2), "spec", false, "in a comment after a value: the enclosing mapping"},
		{at("- x", 2), "spec.list[0]", false, "list item"},
		{at("- key", 2), "spec.list[1].key", true, "key in a list item"},
		{at("blk: |", 5), "spec.list[1].blk", false, "block scalar indicator"},
		{at("blk: |", 4), "spec.list[1].blk", false, "after the colon of key: |"},
		{at("one", 1), "spec.list[1].blk", false, "block scalar content"},
		{at("é: 😀z", 5), "spec.é", false, "after a non-BMP character"},
		{at("é: 😀z", 1), "spec.é", true, "end of a non-ASCII key"},
		{at("[1, 2]", 4), "spec.flow.a[1]", false, "flow sequence item"},
		{at("{d: e}", 1), "spec.flow.b c.d", true, "flow mapping key"},
		{at("\"b c\"", 2), "spec.flow.b c", true, "quoted flow key"},
		{at("empty:", 6), "spec.empty", false, "after key: with no value"},
		{at("empty:", 3), "spec.empty", true, "on a key with no value"},
		{at("    line   #", 6), "spec.plain", false, "second line of a plain scalar"},
		{at("*anc", 2), "spec.alias", false, "on an alias"},
		{at("<<", 1), "spec.merged.<<", true, "merge key"},
		{at("- - deep", 4), "spec.nested[0][0]", false, "nested sequence"},
		{at("keep", 0), "spec.nested[1].other", false, "keep block scalar"},
		{at("# head", 0), "", false, "leading comment: the root"},
	}
	for _, c := range cases {
		h, ok := f.At(c.off)
		if !ok || h.Path.String() != c.path || h.OnKey != c.onKey || h.Doc != f.Docs[0] {
			t.Errorf("At(%d) %s: %q onKey=%v ok=%v; want %q onKey=%v", c.off, c.desc, h.Path, h.OnKey, ok, c.path, c.onKey)
			continue
		}
		k, v, _ := h.Doc.Lookup(h.Path)
		if len(h.Path) > 0 && (h.Key != k || h.Value != v) {
			t.Errorf("At(%d) %s: Key/Value differ from Lookup", c.off, c.desc)
		}
	}
}

func TestAtMultiDoc(t *testing.T) {
	src := "a: 1\n---\nb: [x, y]\n---\n# empty\n---\nc: 😀\n"
	f := Parse("t.yaml", 1, []byte(src))
	if len(f.Docs) != 4 {
		t.Fatalf("%d docs", len(f.Docs))
	}
	if h, ok := f.At(strings.Index(src, "y")); !ok || h.Doc.Index != 1 || h.Path.String() != "b[1]" {
		t.Errorf("At(y) = doc %d %s", h.Doc.Index, h.Path)
	}
	if h, ok := f.At(strings.Index(src, "# empty")); ok || h.Doc.Index != 2 {
		t.Errorf("At(empty doc) = %v doc %d", ok, h.Doc.Index)
	}
	if h, ok := f.At(len(src)); !ok || h.Doc.Index != 3 {
		t.Errorf("At(EOF) = %v doc %d", ok, h.Doc.Index)
	}
	if d := f.DocAt(strings.Index(src, "---")); d.Index != 1 {
		t.Errorf("DocAt(---) = %d, want 1 (a marker starts its document)", d.Index)
	}
}

func TestLookupAliases(t *testing.T) {
	src := "base: &b\n  x: 1\n  sub: {y: 2}\nover:\n  <<: [*b, {z: 3}]\n  x: 9\nref: *b\nlist: &l [a, b]\nlref: *l\n"
	f := Parse("t.yaml", 1, []byte(src))
	d := f.Docs[0]
	cases := []struct{ path, value string }{
		{"over.x", "9"},     // own key wins over merged
		{"over.sub.y", "2"}, // merged from the first source
		{"over.z", "3"},     // merged from the second
		{"ref.sub.y", "2"},  // through an alias
		{"lref[1]", "b"},    // a sequence through an alias
	}
	for _, c := range cases {
		_, v, ok := d.Lookup(path(t, c.path))
		if !ok || v.Value != c.value {
			t.Errorf("Lookup(%s) = %v, %v; want %q", c.path, v, ok, c.value)
		}
	}
	_, v, _ := d.Lookup(path(t, "ref"))
	if v.Kind != yaml.AliasNode || f.NodeSpan(v) != (Span{strings.Index(src, "*b\nlist"), strings.Index(src, "*b\nlist") + 2}) {
		t.Errorf("ref: %v %v", v.Kind, f.NodeSpan(v))
	}
	p, k, vs := d.Nearest(path(t, "ref.sub.missing.deeper"))
	if p.String() != "ref.sub" || src[k.Start:k.End] != "sub" || src[vs.Start:vs.End] != "{y: 2}" {
		t.Errorf("Nearest = %s %q %q", p, src[k.Start:k.End], src[vs.Start:vs.End])
	}
	if p, k, vs := d.Nearest(path(t, "nope.x")); len(p) != 0 || k != (Span{}) || vs.Start != 0 || vs.End != len(src)-1 {
		t.Errorf("Nearest(nope.x) = %q %v %v", p, k, vs)
	}
	empty := Parse("t.yaml", 1, []byte("a: 1\n---\n# nothing\n")).Docs[1]
	if p, k, vs := empty.Nearest(path(t, "a")); len(p) != 0 || k != (Span{}) || vs != (Span{empty.Span.Start, empty.Span.Start}) {
		t.Errorf("Nearest in an empty doc = %q %v %v", p, k, vs)
	}
}

func TestWalk(t *testing.T) {
	src := "a: 1\nb:\n  - x\n  - {c: d}\ne: &e [1]\nf: *e\n"
	d := Parse("t.yaml", 1, []byte(src)).Docs[0]
	var got []string
	d.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
		kind := "item"
		if k != nil {
			kind = "key " + k.Value
		}
		got = append(got, p.String()+" "+kind)
		return p.String() != "e" // skip e's children
	})
	want := "a key a|b key b|b[0] item|b[1] item|b[1].c key c|e key e|f key f"
	if strings.Join(got, "|") != want {
		t.Errorf("Walk:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// TestMergeBomb: merge keys that share sources are searched once each, so
// a lookup in a "billion laughs" of merges is fast (2^39 paths otherwise).
func TestMergeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 {x: 1}\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "a%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	d := Parse("t.yaml", 1, []byte(b.String())).Docs[0]
	if _, _, ok := d.Lookup(path(t, "a39.nope")); ok {
		t.Error("found a missing key")
	}
	if _, v, ok := d.Lookup(path(t, "a39.x")); !ok || v.Value != "1" {
		t.Error("merged key not found")
	}
	if _, err := d.Object(); err == nil {
		t.Error("Object of an aliasing bomb: no error")
	}
}

// TestConcurrentQueries: a File is shared read-only between goroutines
// (run with -race).
func TestConcurrentQueries(t *testing.T) {
	src := spansSrc + "long: [" + strings.Repeat("é, ", 300) + "x]\n"
	f := Parse("t.yaml", 1, []byte(src))
	foreign := &yaml.Node{Kind: yaml.ScalarNode, Value: "x", Line: 36, Column: 400}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for off := 0; off <= len(src); off += 7 {
				f.At(off)
				f.NodeSpan(foreign)
				f.Mapper.Position(off, UTF16)
			}
			f.Docs[0].Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
				f.Docs[0].Spans(p)
				return true
			})
			_, _ = f.Docs[0].Object()
		}()
	}
	for g := 0; g < 4; g++ {
		testfixtures.Await(t, done, "the concurrent readers of one file")
	}
	if h, _ := f.At(strings.LastIndex(src, "x]")); h.Path.String() != "long[300]" {
		t.Errorf("At(last item) = %s", h.Path)
	}
}

// TestLongLines: a 1 MB value on one line, and a minified JSON document
// with 100,000 nodes on one line (which would be quadratic if columns were
// counted from the line start for every node).
func TestLongLines(t *testing.T) {
	big := strings.Repeat("é😀", 1<<17) // 768 KiB
	src := "a: \"" + big + "\"\nb: [" + big + ", z]\n"
	f := Parse("t.yaml", 1, []byte(src))
	d := f.Docs[0]
	_, v, _ := d.Spans(path(t, "b[1]"))
	if src[v.Start:v.End] != "z" {
		t.Errorf("b[1] = %q", src[v.Start:v.End])
	}
	if r, _ := f.Mapper.Range(v, UTF16); r.Start != (Position{1, 4 + 3<<17 + 2}) {
		t.Errorf("UTF-16 position of z: %v", r.Start)
	}
	if h, _ := f.At(v.Start); h.Path.String() != "b[1]" {
		t.Errorf("At(z) = %s", h.Path)
	}

	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"n": "é%d"}`, i)
	}
	b.WriteString("]}")
	src = b.String()
	f = Parse("t.json", 1, []byte(src))
	d = f.Docs[0]
	_, v, ok := d.Spans(path(t, "items[99999].n"))
	if !ok || src[v.Start:v.End] != `"é99999"` {
		t.Fatalf("items[99999].n = %q", src[v.Start:v.End])
	}
	if h, _ := f.At(v.Start + 2); h.Path.String() != "items[99999].n" || h.OnKey {
		t.Errorf("At = %s %v", h.Path, h.OnKey)
	}
}

func TestLineColOf(t *testing.T) {
	f := Parse("x.yaml", 1, []byte("a: 1\n---\nkind: X\nspec:\n  list:\n    - name: n\n"))
	d := f.Docs[1]
	for _, tc := range []struct {
		path      string
		line, col int
	}{
		{"spec.list[0].name", 6, 7},    // the key
		{"spec.list[0]", 6, 7},         // a list item: its value
		{"spec.list[0].missing", 6, 7}, // the nearest existing ancestor
		{"spec.nope.deeper", 4, 1},
		{"", 3, 1},
	} {
		p, err := fieldpath.Parse(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if line, col := d.LineColOf(p); line != tc.line || col != tc.col {
			t.Errorf("LineColOf(%q) = %d:%d, want %d:%d", tc.path, line, col, tc.line, tc.col)
		}
	}
	// A document with nothing in it: its start (its "---" line).
	e := Parse("e.yaml", 1, []byte("a: 1\n---\n# only a comment\n"))
	if line, col := e.Docs[1].LineColOf(fieldpath.Path{fieldpath.Field("kind")}); line != 2 || col != 1 {
		t.Errorf("empty document: %d:%d, want 2:1", line, col)
	}
}
