package document

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

func path(t testing.TB, s string) fieldpath.Path {
	t.Helper()
	p, err := fieldpath.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSplitDocuments(t *testing.T) {
	cases := []struct {
		src   string
		docs  []string // the text of each document's Span
		roots []bool   // whether each has a Root
	}{
		{"", []string{""}, []bool{false}},
		{"# only a comment\n", []string{"# only a comment\n"}, []bool{false}},
		{"---\n", []string{"---\n"}, []bool{false}},
		{"---\n---\n", []string{"---\n", "---\n"}, []bool{false, false}},
		{"a: 1\n---\nb: 2\n", []string{"a: 1\n", "---\nb: 2\n"}, []bool{true, true}},
		{"# c\n---\na: 1\n", []string{"# c\n---\na: 1\n"}, []bool{true}},
		{"a: 1\n...\n---\nb: 2\n", []string{"a: 1\n...\n", "---\nb: 2\n"}, []bool{true, true}},
		{"a: 1\n...\n# trailing\n", []string{"a: 1\n...\n# trailing\n"}, []bool{true}},
		{"a: 1\n...\nb: 2\n", []string{"a: 1\n...\n", "b: 2\n"}, []bool{true, true}},
		{"%YAML 1.1\n---\na: 1\n", []string{"%YAML 1.1\n---\na: 1\n"}, []bool{true}},
		{"--- |\n  text\n", []string{"--- |\n  text\n"}, []bool{true}},
		{"a: 1\n---   \nb: 2", []string{"a: 1\n", "---   \nb: 2"}, []bool{true, true}},
		{"a: 1\n--- # c\nb: 2", []string{"a: 1\n", "--- # c\nb: 2"}, []bool{true, true}},
		{"a: ---\n----\n", []string{"a: ---\n----\n"}, []bool{false}}, // "----" is not a marker (and a syntax error here)
		{"a: 1\r\n---\r\nb: 2\r\n", []string{"a: 1\r\n", "---\r\nb: 2\r\n"}, []bool{true, true}},
		{"a: 1\r---\rb: 2\r", []string{"a: 1\r", "---\rb: 2\r"}, []bool{true, true}},
		{"\ufeff---\na: 1\n---\nb: 2\n", []string{"\ufeff---\na: 1\n", "---\nb: 2\n"}, []bool{true, true}},
		{"---\n---\na: 1\n---\n", []string{"---\n", "---\na: 1\n", "---\n"}, []bool{false, true, false}},
	}
	for _, c := range cases {
		f := Parse("t.yaml", 1, []byte(c.src))
		var got []string
		var roots []bool
		for i, d := range f.Docs {
			got = append(got, c.src[d.Span.Start:d.Span.End])
			roots = append(roots, d.Root != nil)
			if d.Index != i || d.File != f {
				t.Errorf("%q: doc %d: Index %d, File %p", c.src, i, d.Index, d.File)
			}
		}
		if !reflect.DeepEqual(got, c.docs) || !reflect.DeepEqual(roots, c.roots) {
			t.Errorf("%q: docs %q roots %v; want %q %v", c.src, got, roots, c.docs, c.roots)
		}
	}
}

const threeDocs = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: second\n data:\n  b: \"2\"\n---\napiVersion: v1\nkind: ConfigMap\n"

func TestSyntaxErrorInMiddleDocument(t *testing.T) {
	f := Parse("x.yaml", 1, []byte(threeDocs))
	if len(f.Docs) != 3 {
		t.Fatalf("%d docs, want 3", len(f.Docs))
	}
	for _, i := range []int{0, 2} {
		if d := f.Docs[i]; d.Root == nil || len(d.Errors) != 0 {
			t.Errorf("doc %d: Root %v, errors %v", i, d.Root, d.Errors)
		}
	}
	if f.Docs[1].Root != nil {
		t.Error("doc 2 has a Root despite its syntax error")
	}
	errs := f.Docs[1].Errors
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	line, col := f.Mapper.LineCol(errs[0].Span.Start)
	if line != 10 || col != 2 || errs[0].Message != "did not find expected key" || threeDocs[errs[0].Span.Start:errs[0].Span.End] != "data:" {
		t.Errorf("error at %d:%d %q on %q; want 10:2 \"did not find expected key\" on \"data:\"",
			line, col, errs[0].Message, threeDocs[errs[0].Span.Start:errs[0].Span.End])
	}
	// Positions in the third document are absolute.
	k, _, _ := f.Docs[2].Spans(path(t, "kind"))
	if l, c := f.Mapper.LineCol(k.Start); l != 14 || c != 1 {
		t.Errorf("doc 3 kind at %d:%d, want 14:1", l, c)
	}
	if f.Docs[2].Root.Line != 13 {
		t.Errorf("doc 3 Root.Line = %d, want 13 (absolute)", f.Docs[2].Root.Line)
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	cases := []struct {
		src, msg, at string // at: the text from the error's start to its line end
		line         int
	}{
		{"a: 1\n\tb: 2\n", "found a tab character that violates indentation", "\tb: 2", 2},
		{"a: 1\nb:\n\t- x\n", "found character that cannot start any token", "\t- x", 3},
		{"key: \"unterminated\nnext: 1\nz: 2\n", "found unexpected end of stream", "\"unterminated", 1},
		{"a: [1, 2\nb: 3\n", "did not find expected ',' or ']'", "a: [1, 2", 1},
		{"a:\n  b: 1\n c: 2\n", "did not find expected key", "c: 2", 3},
		{"a:\n  b: 1\n    c: 2\n", "mapping values are not allowed in this context", "c: 2", 3},
		{"- a\nb: 1\n", "did not find expected '-' indicator", "b: 1", 2},
		{"a: 1\n# c\n\n  - x\n", "did not find expected key", "- x", 4},
		{"a: &x 1\nb: *y\n", "unknown anchor 'y' referenced", "b: *y", 2},
		{"a: @x\n", "found character that cannot start any token", "@x", 1},
		{"x: 1\n---\nz: 1\nkey: 'it\n\n# trailing\n", "found unexpected end of stream", "'it", 4},
		{"\ufeffa: @x\r\nb: 1\r\n", "found character that cannot start any token", "@x", 1},
		{"é: 😀\n  bad: 1\n", "mapping values are not allowed in this context", "bad: 1", 2},
	}
	for _, c := range cases {
		f := Parse("t.yaml", 1, []byte(c.src))
		var errs []Error
		for _, d := range f.Docs {
			errs = append(errs, d.Errors...)
		}
		if len(errs) != 1 {
			t.Errorf("%q: errors %v", c.src, errs)
			continue
		}
		e := errs[0]
		line, _ := f.Mapper.LineCol(e.Span.Start)
		if e.Message != c.msg || line != c.line || c.src[e.Span.Start:e.Span.End] != c.at {
			t.Errorf("%q: %q at line %d on %q; want %q at line %d on %q", c.src, e.Message, line, c.src[e.Span.Start:e.Span.End], c.msg, c.line, c.at)
		}
	}
}

func TestDuplicateKeys(t *testing.T) {
	src := "a: 1\nb:\n  x: 1\n  x: 2\na: 3\n"
	f := Parse("t.yaml", 1, []byte(src))
	d := f.Docs[0]
	if d.Root == nil {
		t.Fatal("no Root: duplicate keys are not a syntax error")
	}
	var got []string
	for _, e := range d.Errors {
		l, c := f.Mapper.LineCol(e.Span.Start)
		got = append(got, fmt.Sprintf("%d:%d-%d %s", l, c, e.Span.Len(), e.Message))
	}
	want := []string{`4:3-1 mapping key "x" already defined at line 3, column 3: kubectl keeps the last value, but the API server rejects YAML with duplicate keys`,
		`5:1-1 mapping key "a" already defined at line 1, column 1: kubectl keeps the last value, but the API server rejects YAML with duplicate keys`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
	if _, err := d.Object(); !errors.Is(err, ErrSyntax) {
		t.Errorf("Object: %v, want ErrSyntax", err)
	}
	// Lookup finds the last of duplicate keys, the one decoding keeps.
	if _, v, ok := d.Lookup(path(t, "a")); !ok || v.Value != "3" {
		t.Errorf("Lookup(a) = %v", v)
	}
	// Merge keys are not duplicates of each other or of real keys.
	f = Parse("t.yaml", 1, []byte("b: &b {x: 1}\nc: &c {y: 1}\nm:\n  <<: *b\n  <<: *c\n  x: 2\n"))
	if len(f.Docs[0].Errors) != 0 {
		t.Errorf("merge keys: %v", f.Docs[0].Errors)
	}
}

func TestObject(t *testing.T) {
	src := "base: &b\n  x: 1\n  v: on\nuse:\n  <<: *b\n  z: 2.5\n  w: 1.0\nbig: 9007199254740993\n" +
		"bools: [yes, No, y, off, true, \"yes\"]\noct: 0777\nhex: 0x1F\nnull1:\nnull2: ~\nstr: \"1\"\n1: numkey\nlist: [a, *b]\n"
	f := Parse("t.yaml", 1, []byte(src))
	obj, err := f.Docs[0].Object()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"base":  map[string]any{"x": int64(1), "v": true},
		"use":   map[string]any{"x": int64(1), "v": true, "z": 2.5, "w": int64(1)},
		"big":   int64(9007199254740993),
		"bools": []any{true, false, true, false, true, "yes"},
		"oct":   int64(511),
		"hex":   int64(31),
		"null1": nil,
		"null2": nil,
		"str":   "1",
		"1":     "numkey",
		"list":  []any{"a", map[string]any{"x": int64(1), "v": true}},
	}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("Object =\n%#v\nwant\n%#v", obj, want)
	}
	for _, c := range []struct {
		src  string
		want any
	}{
		{"", nil},
		{"# c\n", nil},
		{"---\n", nil},
		{"- 1\n- x\n", []any{int64(1), "x"}},
		{"\ufeffa: 1\r\n", map[string]any{"a": int64(1)}},
		{"a: 1\n---\nb: 2\n", map[string]any{"a": int64(1)}},
		{"x: 1.5e3\n", map[string]any{"x": int64(1500)}}, // JSON 1500, as kubectl sends it
		{"x: 1.25\n", map[string]any{"x": 1.25}},
	} {
		got, err := Parse("t.yaml", 1, []byte(c.src)).Docs[0].Object()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: Object = %#v, %v; want %#v", c.src, got, err, c.want)
		}
	}
	f = Parse("t.yaml", 1, []byte("a: 1\n---\nb: [\n---\nc: 3\n"))
	if _, err := f.Docs[1].Object(); !errors.Is(err, ErrSyntax) {
		t.Errorf("syntax error: %v", err)
	}
	if got, err := f.Docs[2].Object(); err != nil || !reflect.DeepEqual(got, map[string]any{"c": int64(3)}) {
		t.Errorf("doc after an error: %v, %v", got, err)
	}
}

// TestNodeLinesAndColumns pins down how yaml.v3 counts (and so what
// nodeStart converts): Line is absolute after Parse, Column is 1-based in
// code points, a BOM is not counted, "\r\n" and a lone "\r" end one line.
func TestNodeLinesAndColumns(t *testing.T) {
	src := "\ufeffk: v\r\n\"é😀\": {a: x}\rz:\tw\n"
	f := Parse("t.yaml", 1, []byte(src))
	d := f.Docs[0]
	_, a, _ := d.Lookup(path(t, `[é😀].a`))
	if a == nil || a.Line != 2 || a.Column != 11 {
		t.Fatalf("node a: %+v", a)
	}
	if sp := f.NodeSpan(a); src[sp.Start:sp.End] != "x" {
		t.Errorf("span of a: %q", src[sp.Start:sp.End])
	}
	_, w, _ := d.Lookup(path(t, "z"))
	if w.Line != 3 || w.Column != 4 {
		t.Errorf("node w at %d:%d", w.Line, w.Column)
	}
	if sp := f.NodeSpan(w); src[sp.Start:sp.End] != "w" {
		t.Errorf("span of w: %q", src[sp.Start:sp.End])
	}
	k, _, _ := d.Spans(path(t, "k"))
	if k != (Span{3, 4}) {
		t.Errorf("key k span %v, want 3-4 (after the BOM)", k)
	}
	if r, _ := f.Mapper.Range(f.NodeSpan(a), UTF16); r != (Range{Position{1, 11}, Position{1, 12}}) {
		t.Errorf("UTF-16 range of a: %v", r)
	}
}

func TestParseNeverPanics(t *testing.T) {
	inputs := []string{"", "\ufeff", "\xff\xfe", "\r", "\r\r\n", "---", "...", "--- |", "a: |", "- ", "-", ":", "? ", "? a\n: b\n",
		"a: [1", "a: {", "*x", "&a [*a]", "a: &a\n  b: *a\n", "<<: *x", "<<: [*x]", "a: !!binary x", "\t\tb: 2\n",
		"key: \"unterminated\n", "a: 'x''", strings.Repeat("[", 100000), strings.Repeat("- ", 5000) + "x",
		"a:\n  - b\n  -\n  - {c: [d, {e: f}]}\n", "%YAML 1.1\n%TAG ! tag:x,2000:\n--- !foo\na: 1\n", "a: b\x00c\n",
		"? [a, b]\n: c\n", "{? a: b}\n", "[a: b, c]\n", "&k key: v\n*k : w\n", "a: |2\n    x\n  y\n", "a: >+\n\n  x\n\n\nb: 1\n"}
	for _, src := range inputs {
		f := Parse("t.yaml", 1, []byte(src))
		checkFileInvariants(t, f)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: [x, y]\n", "a: |\n  x\n", "k: &a {x: *a}", threeDocs, "\ufeffé: 😀\r\n", "- ? a\n  : b\n"} {
		f.Add(s)
	}
	f.Fuzz(fuzzParse)
}

func fuzzParse(t *testing.T, src string) {
	checkFileInvariants(t, Parse("t.yaml", 1, []byte(src)))
}

// checkFileInvariants checks what must hold for any input: documents cover
// the text in order, spans are within it, and every query answers.
func checkFileInvariants(t *testing.T, f *File) {
	t.Helper()
	n := len(f.Text)
	if len(f.Docs) == 0 {
		t.Fatalf("%q: no documents", f.Text)
	}
	at := 0
	for _, d := range f.Docs {
		if d.Span.Start != at || d.Span.End < d.Span.Start || d.Span.End > n {
			t.Fatalf("%q: doc %d span %v (previous end %d)", f.Text, d.Index, d.Span, at)
		}
		at = d.Span.End
		for _, e := range d.Errors {
			if e.Span.Start < d.Span.Start || e.Span.End > d.Span.End || e.Span.Start > e.Span.End || strings.HasPrefix(e.Message, "yaml:") {
				t.Errorf("%q: doc %d: bad error %v", f.Text, d.Index, e)
			}
		}
		_, _ = d.Object()
		d.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
			if len(p) > 200 {
				return false // deep nesting: the queries are linear in depth
			}
			ks, vs, ok := d.Spans(p)
			if ok && (ks.Start > ks.End || vs.Start > vs.End || vs.End > n || ks.End > n) {
				t.Errorf("%q: %s: spans %v %v", f.Text, p, ks, vs)
			}
			if np, _, nv := d.Nearest(p.Child(fieldpath.Field("zz"))); ok && (!np.Equal(p) && !isScalarParent(v) || nv != vs) {
				t.Errorf("%q: Nearest(%s.zz) = %s %v, want %s %v", f.Text, p, np, nv, p, vs)
			}
			return true
		})
	}
	if at != n {
		t.Fatalf("%q: documents end at %d of %d", f.Text, at, n)
	}
	step := 1
	if n > 5000 {
		step = n / 997
	}
	for off := -1; off <= n+1; off += step {
		f.At(off)
		f.DocAt(off)
	}
}

func isScalarParent(v *yaml.Node) bool { return v.Kind != yaml.MappingNode }
