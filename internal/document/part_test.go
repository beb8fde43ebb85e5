package document

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// partTexts are texts whose documents ParsePart must parse exactly as
// Parse: markers, "..." ends, comments before markers, a byte-order mark,
// CRLF, syntax errors, duplicate keys (whose message names a line), and
// anchors.
var partTexts = []string{
	"a: 1\n",
	"\ufeff---\na: 1\n---\nb: [\n---\nc: 3\nc: 4\n",
	"# head\n---\na: &x {k: v}\nb: *x\n...\n# after end\n---\nd: \"é\"\n...\n",
	"---\r\na: 1\r\n---\r\nb:\r\n  - 1\r\n  - x: y\r\n    x: z\r\n",
	"---\n\ufeffa: 1\n---\nb: |\n  line\n\n---\n",
	"",
	"---\n---\n---\n",
}

func TestParsePartIsParse(t *testing.T) {
	for _, text := range partTexts {
		whole := Parse("f.yaml", 0, []byte(text))
		m, spans := Split([]byte(text))
		if len(spans) != len(whole.Docs) {
			t.Fatalf("%q: Split gives %d documents, Parse %d", text, len(spans), len(whole.Docs))
		}
		// Every way of cutting the documents into runs of n.
		for n := 1; n <= len(spans); n++ {
			for first := 0; first < len(spans); first += n {
				end := min(first+n, len(spans))
				part := ParsePart("f.yaml", []byte(text), m, spans[first:end], first)
				for i, d := range part.Docs {
					w := whole.Docs[first+i]
					if got, want := describeDoc(part, d), describeDoc(whole, w); got != want {
						t.Errorf("%q, documents %d-%d, document %d:\n got %s\nwant %s", text, first, end, first+i, got, want)
					}
				}
			}
		}
	}
}

// describeDoc prints what analysis reads of a document: its index, span,
// errors, and every node's kind, value, line, column and span.
func describeDoc(f *File, d *Doc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %v %v", d.Index, d.Span, d.Errors)
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		fmt.Fprintf(&b, " [%d %q %d:%d %v]", n.Kind, n.Value, n.Line, n.Column, f.NodeSpan(n))
		for _, c := range n.Content {
			walk(c)
		}
		walk(n.Alias)
	}
	walk(d.Root)
	return b.String()
}

func TestSplitIsParse(t *testing.T) {
	for _, text := range partTexts {
		whole := Parse("f.yaml", 0, []byte(text))
		m, spans := Split([]byte(text))
		var want []Span
		for _, d := range whole.Docs {
			want = append(want, d.Span)
		}
		if !reflect.DeepEqual(spans, want) || m.LineCount() != whole.Mapper.LineCount() {
			t.Errorf("%q: Split %v (%d lines), Parse %v (%d lines)", text, spans, m.LineCount(), want, whole.Mapper.LineCount())
		}
	}
}
