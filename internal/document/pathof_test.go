package document

import (
	"strings"
	"testing"
)

func TestPathOf(t *testing.T) {
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n  list:\n  - one\n"
	f := Parse("t.yaml", 0, []byte(text))
	span := func(sub string) Span {
		i := strings.Index(text, sub)
		return Span{i, i + len(sub)}
	}
	for _, tc := range []struct {
		span Span
		want string
	}{
		{span("name"), "metadata.name"},
		{Span{span("x\n").Start, span("x\n").Start + 1}, "metadata.name"},
		{span("one"), "data.list[0]"},
		{Span{span("\ndata:").Start + 1, span("\ndata:").Start + 5}, "data"},
		{Span{span("a: b").Start, span("a: b").End}, "data.a"},
		{Span{0, len(text)}, ""},                                          // the whole document
		{Span{span("apiVersion").Start, span("kind: ConfigMap").End}, ""}, // two fields
	} {
		p, ok := f.PathOf(tc.span)
		if got := p.String(); got != tc.want || ok != (tc.want != "") {
			t.Errorf("PathOf(%q) = %q, %v; want %q", text[tc.span.Start:tc.span.End], got, ok, tc.want)
		}
	}
}
