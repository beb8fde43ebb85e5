package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"gopkg.in/yaml.v3"
)

func mustParse(t *testing.T, p string) fieldpath.Path {
	t.Helper()
	var out fieldpath.Path
	for _, part := range strings.Split(p, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, fieldpath.Field(name))
		}
		for rest != "" {
			idx, more, _ := strings.Cut(rest, "]")
			n := 0
			for _, c := range idx {
				n = n*10 + int(c-'0')
			}
			out = append(out, fieldpath.Index(n))
			rest = strings.TrimPrefix(more, "[")
		}
	}
	return out
}

const threeDocs = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: second\n data:\n  b: \"2\"\n---\napiVersion: v1\nkind: ConfigMap\n"

func TestSyntaxErrorInMiddleDocument(t *testing.T) {
	f := Parse("x.yaml", 1, []byte(threeDocs))
	if len(f.Docs) != 3 {
		t.Fatalf("%d docs, want 3", len(f.Docs))
	}
	if f.Docs[0].Root == nil || f.Docs[2].Root == nil || len(f.Docs[0].Errors)+len(f.Docs[2].Errors) != 0 {
		t.Fatalf("documents 1 and 3 should parse cleanly: %v %v", f.Docs[0].Errors, f.Docs[2].Errors)
	}
	errs := f.Docs[1].Errors
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	line, col := f.Mapper.LineCol(errs[0].Span.Start)
	if line != 10 || col != 2 || errs[0].Message != "did not find expected key" {
		t.Errorf("error at %d:%d %q, want 10:2 \"did not find expected key\"", line, col, errs[0].Message)
	}
}

func TestSpansAndAt(t *testing.T) {
	src := "# head\napiVersion: v1\nspec:\n  name: \"a b\"   # c\n  list:\n    - x\n    - key: 'it''s'\n      blk: |\n        one\n        two\n\n  é: 😀z\n  flow: {a: [1, 2], b: c}\n  empty:\n  plain: multi\n    line\n"
	f := Parse("t.yaml", 1, []byte(src))
	d := f.Docs[0]
	if len(d.Errors) != 0 {
		t.Fatal(d.Errors)
	}
	cases := []struct{ path, key, value string }{
		{"apiVersion", "apiVersion", "v1"},
		{"spec.name", "name", `"a b"`},
		{"spec.list[0]", "", "x"},
		{"spec.list[1].key", "key", `'it''s'`},
		{"spec.list[1].blk", "blk", "|\n        one\n        two"},
		{"spec.é", "é", "😀z"},
		{"spec.flow", "flow", "{a: [1, 2], b: c}"},
		{"spec.flow.a[1]", "", "2"},
		{"spec.empty", "empty", ""},
		{"spec.plain", "plain", "multi\n    line"},
	}
	for _, c := range cases {
		k, v, ok := d.Spans(mustParse(t, c.path))
		if !ok {
			t.Errorf("%s: not found", c.path)
			continue
		}
		if got := src[k.Start:k.End]; got != c.key {
			t.Errorf("%s: key %q, want %q", c.path, got, c.key)
		}
		if got := src[v.Start:v.End]; got != c.value {
			t.Errorf("%s: value %q, want %q", c.path, got, c.value)
		}
		if c.key != "" {
			h, ok := f.At(k.Start)
			if !ok || h.Path.String() != mustParse(t, c.path).String() || !h.OnKey {
				t.Errorf("At(key of %s) = %v onKey=%v", c.path, h.Path, h.OnKey)
			}
		}
	}
	// Cursor after "empty:" on its line is the empty value.
	off := strings.Index(src, "empty:") + len("empty:")
	if h, _ := f.At(off); h.Path.String() != "spec.empty" || h.OnKey {
		t.Errorf("At(after empty:) = %v onKey=%v", h.Path, h.OnKey)
	}
	if p, _, _ := d.Nearest(mustParse(t, "spec.list[1].missing.deeper")); p.String() != "spec.list[1]" {
		t.Errorf("Nearest = %v", p)
	}
}

func TestObjectAnchorsAndYAML11(t *testing.T) {
	src := "base: &b\n  x: 1\n  v: on\nuse:\n  <<: *b\n  z: 2.5\nbig: 9007199254740993\n"
	f := Parse("t.yaml", 1, []byte(src))
	obj, err := f.Docs[0].Object()
	if err != nil {
		t.Fatal(err)
	}
	m := obj.(map[string]any)
	use := m["use"].(map[string]any)
	if use["x"] != int64(1) || use["v"] != true || use["z"] != 2.5 || m["big"] != int64(9007199254740993) {
		t.Errorf("object = %#v", m)
	}
	if k, v, ok := f.Docs[0].Lookup(mustParse(t, "use.x")); !ok || k.Value != "x" || v.Value != "1" {
		t.Errorf("Lookup through merge key failed")
	}
}

func TestDuplicateKeys(t *testing.T) {
	f := Parse("t.yaml", 1, []byte("a: 1\nb: 2\na: 3\n"))
	errs := f.Docs[0].Errors
	if len(errs) != 1 || errs[0].Span != (Span{10, 11}) {
		t.Fatalf("errors = %v", errs)
	}
}

func TestEdgeDocuments(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "---\n", "---\n---\n", "...\n", "a: 1\n...\n---\nb: 2\n", "\ufeffa: 1\n", "a: [1\n", "\t\tb: 2\n", "key: \"unterminated\n"} {
		f := Parse("t.yaml", 1, []byte(src))
		for _, d := range f.Docs {
			if d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start > d.Span.End {
				t.Errorf("%q: bad doc span %v", src, d.Span)
			}
			for _, e := range d.Errors {
				if e.Span.Start > e.Span.End || e.Span.End > len(src) {
					t.Errorf("%q: bad error span %v", src, e)
				}
			}
			_, _ = d.Object()
			d.Walk(func(fieldpath.Path, *yaml.Node, *yaml.Node) bool { return true })
		}
		for off := 0; off <= len(src); off++ {
			f.At(off)
		}
	}
	f := Parse("t.yaml", 1, []byte("\ufeffa: 1\n"))
	if _, v, _ := f.Docs[0].Spans(mustParse(t, "a")); v != (Span{6, 7}) {
		t.Errorf("BOM: value span %v", v)
	}
}

func corpusDir(t testing.TB) string {
	dir := os.Getenv("CRD_LSP_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus not found at %s", dir)
		}
		t.Skipf("corpus not found at %s", dir)
	}
	return dir
}

// TestCorpusRoundTrip checks, for every node of every corpus YAML file, that
// Spans(path) covers the node's text and At() inside it returns the path.
func TestCorpusRoundTrip(t *testing.T) {
	root := corpusDir(t)
	files := 0
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return err
		}
		files++
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f := Parse(p, 1, text)
		big := len(text) > 200<<10
		for _, d := range f.Docs {
			if len(d.Errors) > 0 {
				t.Errorf("%s: %v", p, d.Errors)
				continue
			}
			n := 0
			d.Walk(func(path fieldpath.Path, k, v *yaml.Node) bool {
				n++
				ks, vs, ok := d.Spans(path)
				if !ok {
					t.Errorf("%s: %s: Spans not found", p, path)
					return false
				}
				if k != nil && string(text[ks.Start:ks.End]) != k.Value && !strings.ContainsAny(string(text[ks.Start:ks.End]), "\"'") {
					t.Errorf("%s: %s: key text %q, want %q", p, path, text[ks.Start:ks.End], k.Value)
				}
				if v.Kind == yaml.ScalarNode && v.Style == 0 && v.Value != "" && !strings.Contains(v.Value, "\n") && strings.Join(strings.Fields(string(text[vs.Start:vs.End])), " ") != strings.Join(strings.Fields(v.Value), " ") {
					t.Errorf("%s: %s: value text %q, want %q", p, path, text[vs.Start:vs.End], v.Value)
				}
				if big && n%37 != 0 {
					return true
				}
				if k != nil {
					if h, ok := f.At(ks.Start); !ok || !h.OnKey || !h.Path.Equal(path) {
						t.Errorf("%s: At(key %s) = %s onKey=%v", p, path, h.Path, h.OnKey)
					}
				}
				if v.Kind == yaml.ScalarNode && vs.End > vs.Start {
					if h, ok := f.At(vs.Start + (vs.End-vs.Start)/2); !ok || h.OnKey || !h.Path.Equal(path) {
						t.Errorf("%s: At(value %s) = %s onKey=%v", p, path, h.Path, h.OnKey)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 2000 {
		t.Errorf("only %d corpus files seen", files)
	}
}
