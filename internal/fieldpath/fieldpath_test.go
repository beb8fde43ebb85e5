package fieldpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fuzztest"
)

func TestParse(t *testing.T) {
	F, I, W := Field, Index, Wildcard
	cases := []struct {
		in   string
		want Path
	}{
		// The accepted cases of crossplane-runtime's TestParse.
		{"spec", Path{F("spec")}},
		{"[0]", Path{I(0)}},
		{"metadata.name", Path{F("metadata"), F("name")}},
		{"fields[1].state.current", Path{F("fields"), I(1), F("state"), F("current")}},
		{"items[0]", Path{F("items"), I(0)}},
		{"spec.containers[0].name", Path{F("spec"), F("containers"), I(0), F("name")}},
		{"nested[0][1].name", Path{F("nested"), I(0), I(1), F("name")}},
		{"spec[containers][0].name", Path{F("spec"), F("containers"), I(0), F("name")}},
		{"data[.config.yml]", Path{F("data"), F(".config.yml")}},
		{"metadata.labels['app.hash']", Path{F("metadata"), F("labels"), F("app.hash")}},
		// More of the same grammar.
		{"", nil},
		{"a.b[0]", Path{F("a"), F("b"), I(0)}},
		{"a[b.c]", Path{F("a"), F("b.c")}},
		{"metadata.labels[crossplane.io/claim-name]", Path{F("metadata"), F("labels"), F("crossplane.io/claim-name")}},
		{`metadata.annotations["crossplane.io/external-name"]`, Path{F("metadata"), F("annotations"), F("crossplane.io/external-name")}},
		{"spec.containers[*].name", Path{F("spec"), F("containers"), W(), F("name")}},
		{"spec.*.name", Path{F("spec"), W(), F("name")}},
		{"['*']", Path{W()}},
		{"a.0", Path{F("a"), F("0")}},         // dotted digits are a field
		{"0", Path{F("0")}},                   // even at the start
		{"[007]", Path{I(7)}},                 // leading zeros: still an index
		{"[4294967295]", Path{I(4294967295)}}, // max uint32
		{"[4294967296]", Path{F("4294967296")}},
		{"[-1]", Path{F("-1")}},
		{"[+1]", Path{F("+1")}},
		{"[1.5]", Path{F("1.5")}},
		{"a[0]b", Path{F("a"), I(0), F("b")}}, // no '.' needed after ']'
		{"a.'b'", Path{F("a"), F("b")}},
		{"a.it's", Path{F("a"), F("it's")}},
		{"['']", Path{F("")}},
		{"a b.c d", Path{F("a b"), F("c d")}},
		{"é.日本[😀.x]", Path{F("é"), F("日本"), F("😀.x")}},
		{"[a][b]", Path{F("a"), F("b")}},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in     string
		offset int
		msg    string
	}{
		// The rejected cases of crossplane-runtime's TestParse, same positions.
		{".metadata.name", 0, "unexpected '.'"},
		{"metadata.name.", 13, "unexpected '.'"},
		{"spec.containers.[0].name", 16, "unexpected '['"},
		{"metadata..name", 9, "unexpected '.'"},
		{"metadata.]name", 9, "unexpected ']'"},
		{"spec[bracketed[name]]", 14, "unexpected '['"},
		{"spec[name", 4, "unterminated '['"},
		{"spec[]", 5, "unexpected ']'"},
		// More.
		{".", 0, "unexpected '.'"},
		{"a.", 1, "unexpected '.'"},
		{"[0].", 3, "unexpected '.'"},
		{"]", 0, "unexpected ']'"},
		{"a]", 1, "unexpected ']'"},
		{"a[0]]", 4, "unexpected ']'"},
		{"[", 0, "unterminated '['"},
		{"a[0][", 4, "unterminated '['"},
		{"a[[0]", 2, "unexpected '['"},
		{"é.]", 3, "unexpected ']'"}, // byte offsets, not runes
		{"a[0]..b", 5, "unexpected '.'"},
	}
	for _, c := range cases {
		p, err := Parse(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, %v; want a *SyntaxError", c.in, p, err)
			continue
		}
		if se.Offset != c.offset || se.Msg != c.msg || p != nil {
			t.Errorf("Parse(%q): offset %d %q, want %d %q", c.in, se.Offset, se.Msg, c.offset, c.msg)
		}
	}
	_, err := Parse("spec[name")
	if got, want := err.Error(), "fieldpath: unterminated '[' at offset 4"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestString(t *testing.T) {
	F, I, W := Field, Index, Wildcard
	cases := []struct {
		p    Path
		want string
	}{
		{nil, ""},
		{Path{F("spec")}, "spec"},
		{Path{I(0)}, "[0]"},
		{Path{F("spec"), F("resources"), I(2), F("patches"), I(0), F("toFieldPath")}, "spec.resources[2].patches[0].toFieldPath"},
		{Path{F("metadata"), F("labels"), F("crossplane.io/claim-name")}, "metadata.labels[crossplane.io/claim-name]"},
		{Path{F("a"), W(), F("b")}, "a[*].b"},
		{Path{F("a"), F("0")}, "a.0"},
		{Path{F("0")}, "0"},
		{Path{I(1), F("x")}, "[1].x"},
		{Path{F("a"), F("")}, `a[""]`},
		{Path{F("data"), F(".config.yml"), F("k")}, "data[.config.yml].k"},
	}
	for _, c := range cases {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.p, got, c.want)
		}
		back, err := Parse(c.want)
		if err != nil || !back.Equal(c.p) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", c.want, back, err, c.p)
		}
	}
}

func TestPathMethods(t *testing.T) {
	p, _ := Parse("a.b[3]")
	if got := p.Parent().String(); got != "a.b" {
		t.Errorf("Parent = %q", got)
	}
	if s, ok := p.Last(); !ok || s != Index(3) {
		t.Errorf("Last = %v %v", s, ok)
	}
	if _, ok := Path(nil).Last(); ok {
		t.Error("root has a last segment")
	}
	q := p.Parent()
	c1, c2 := q.Child(Field("x")), q.Child(Field("y"))
	if c1.String() != "a.b.x" || c2.String() != "a.b.y" || p.String() != "a.b[3]" {
		t.Errorf("Child aliases: %s %s %s", c1, c2, p)
	}
	if !p.HasPrefix(q) || q.HasPrefix(p) || !p.HasPrefix(nil) {
		t.Error("HasPrefix")
	}
}

// representable reports whether every field of p can be written in the
// grammar (see Path.String).
func representable(p Path) bool {
	for _, s := range p {
		if s.Kind == KindIndex && (s.Index < 0 || s.Index > maxIndex) {
			return false
		}
		if s.Kind == KindField && (s.Field == "*" || strings.ContainsAny(s.Field, "[]") ||
			strings.Trim(s.Field, `'"`) != s.Field) {
			return false
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "a.b[0]", "a[b.c]", "metadata.labels[crossplane.io/claim-name]",
		"x[*].y", "['a.b']", "a..b", "[", "]", "a[0]b", "é[😀]", "[4294967296]", "['']"} {
		f.Add(s)
	}
	f.Fuzz(fuzzParse)
}

func fuzzParse(t *testing.T, s string) {
	{
		p, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset >= len(s) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		// Whatever parses renders back to a string that parses to the same path.
		out := p.String()
		back, err := Parse(out)
		if err != nil || !back.Equal(p) {
			t.Fatalf("Parse(%q) = %#v; String %q; reparsed %#v, %v", s, p, out, back, err)
		}
		// And a path built from the parsed fields round-trips when representable.
		if representable(p) && out != "" {
			if again := back.String(); again != out {
				t.Fatalf("String not stable: %q then %q", out, again)
			}
		}
	}
}

func FuzzStringRoundTrip(f *testing.F) {
	f.Add("a", "b.c", 3, true)
	f.Add("*", "", 0, false)
	f.Fuzz(fuzzStringRoundTrip)
}

func fuzzStringRoundTrip(t *testing.T, a, b string, i int, idxFirst bool) {
	{
		p := Path{Field(a), Field(b), Index(i)}
		if idxFirst {
			p = Path{Index(i), Field(a), Field(b)}
		}
		if !representable(p) {
			return
		}
		back, err := Parse(p.String())
		if err != nil || !back.Equal(p) {
			t.Fatalf("%#v: String %q parsed to %#v, %v", p, p.String(), back, err)
		}
	}
}

// TestFuzzMutations runs the fuzz targets on mutations of their corpus
// for a bounded time (see internal/fuzztest).
func TestFuzzMutations(t *testing.T) {
	t.Run("FuzzParse", func(t *testing.T) { fuzztest.Mutate(t, "FuzzParse", fuzzParse) })
	t.Run("FuzzStringRoundTrip", func(t *testing.T) { fuzztest.Mutate(t, "FuzzStringRoundTrip", fuzzStringRoundTrip) })
}
