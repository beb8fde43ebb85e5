package document

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// sameFile fails unless got (parsed reusing an earlier version) answers
// every question as want (parsed from scratch) does.
func sameFile(t *testing.T, got, want *File) {
	t.Helper()
	if len(got.Docs) != len(want.Docs) {
		t.Fatalf("%d documents, want %d", len(got.Docs), len(want.Docs))
	}
	for i, w := range want.Docs {
		g := got.Docs[i]
		if g.Span != w.Span || g.firstLine != w.firstLine || fmt.Sprint(g.Errors) != fmt.Sprint(w.Errors) || (g.Root == nil) != (w.Root == nil) {
			t.Fatalf("doc %d: span %v line %d errors %v, want %v %d %v", i, g.Span, g.firstLine, g.Errors, w.Span, w.firstLine, w.Errors)
		}
		// (Object decodes the document's text, not its nodes: the same
		// for both. It is not compared: sigs.k8s.io/yaml's result is not
		// always deterministic, e.g. for keys 9 and 09.)
		walk := func(d *Doc) []string {
			var out []string
			d.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
				ks, vs, _ := d.Spans(p)
				e := fmt.Sprintf("%s %d:%d %v %v", p, v.Line, v.Column, ks, vs)
				if k != nil {
					e += fmt.Sprintf(" key %d:%d %v", k.Line, k.Column, d.File.NodeSpan(k))
				}
				out = append(out, e+fmt.Sprint(d.File.NodeSpan(v)))
				return true
			})
			return out
		}
		if g, w := walk(g), walk(w); strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Fatalf("doc %d walks\n%s\nwant\n%s", i, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
	for off := 0; off <= len(want.Text); off += 7 {
		gh, gok := got.At(off)
		wh, wok := want.At(off)
		if gok != wok || gh.Doc.Index != wh.Doc.Index || gh.Path.String() != wh.Path.String() || gh.OnKey != wh.OnKey {
			t.Fatalf("At(%d) = %s (doc %d), want %s (doc %d)", off, gh.Path, gh.Doc.Index, wh.Path, wh.Doc.Index)
		}
	}
}

const incDocs = `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  k: "v"
---
# a comment
apiVersion: v1
kind: ConfigMap
metadata: &m
  name: b
  labels: {x: "1", "y": 2}
data:
  long: |
    text
    more
---
base: &b {q: 1}
use: *b
merged:
  <<: *b
  r: é😀
...
---
- 1
- [2, 3]
`

// TestParseWithinReusesUnchangedDocuments: after random edits, a File
// parsed with the previous version's documents is indistinguishable from
// one parsed from scratch.
func TestParseWithinReusesUnchangedDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	edits := []string{"x", "\n", "\n\n", ": ", "---\n", "  ", "é", "#", "[", "\t"}
	text := incDocs
	prev := Parse("t.yaml", 1, []byte(text))
	for n := 0; n < 400; n++ {
		off := rng.IntN(len(text) + 1)
		for off > 0 && off < len(text) && (text[off]&0xC0) == 0x80 {
			off-- // a character boundary
		}
		end := min(len(text), off+rng.IntN(3))
		for end < len(text) && (text[end]&0xC0) == 0x80 {
			end++
		}
		if rng.IntN(4) == 0 {
			text = text[:off] + text[end:]
		} else {
			text = text[:off] + edits[rng.IntN(len(edits))] + text[off:]
		}
		if n%50 == 49 {
			text = incDocs // back to a clean file now and then
		}
		got := ParseWithin("t.yaml", int32(n+2), []byte(text), Limits{}, prev)
		sameFile(t, got, Parse("t.yaml", 1, []byte(text)))
		prev = got
	}
}

// TestParseWithinSharesNodes: a keystroke in the first of many documents
// parses that one only; the others keep their nodes (on the same lines)
// or get copies (below an inserted line).
func TestParseWithinSharesNodes(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n---\n", i)
	}
	text := b.String()
	v1 := Parse("t.yaml", 1, []byte(text))
	v2 := ParseWithin("t.yaml", 2, []byte(strings.Replace(text, "name: c0", "name: c00", 1)), Limits{}, v1)
	shared := 0
	for i := 1; i < len(v2.Docs); i++ {
		if v2.Docs[i].Root == v1.Docs[i].Root {
			shared++
		}
	}
	if shared != len(v2.Docs)-1 {
		t.Errorf("%d of %d unchanged documents share their nodes", shared, len(v2.Docs)-1)
	}
	v3 := ParseWithin("t.yaml", 3, []byte(strings.Replace(text, "name: c0", "name: c0\n  namespace: x", 1)), Limits{}, v2)
	sameFile(t, v3, Parse("t.yaml", 3, v3.Text))
}

func TestParseWithinLimits(t *testing.T) {
	f := ParseWithin("t.yaml", 1, []byte("a: 1\n---\nb: 2\n---\nc: 3\n"), Limits{MaxDocuments: 2}, nil)
	if hit, ok := f.NotParsed(); !ok || !hit.Documents || hit.Have != 3 || hit.Limit != 2 || len(f.Docs) != 1 || f.Docs[0].Root != nil {
		t.Errorf("document limit: %+v %v, %d docs", hit, ok, len(f.Docs))
	}
	f = ParseWithin("t.yaml", 1, []byte(strings.Repeat("a", 100)), Limits{MaxBytes: 99}, nil)
	if hit, ok := f.NotParsed(); !ok || hit.Documents || hit.Have != 100 || hit.Limit != 99 {
		t.Errorf("size limit: %+v %v", hit, ok)
	}
	if _, ok := f.At(50); ok {
		t.Error("At found something in an unparsed file")
	}
	if _, ok := Parse("t.yaml", 1, []byte("a: 1\n")).NotParsed(); ok {
		t.Error("Parse has no limits")
	}
}
