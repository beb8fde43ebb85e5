package document

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// corpusDir locates the shared corpus (see internal/corpus: $CRD_LSP_CORPUS,
// else ../shared/corpus beside the repository root; missing, the test is
// skipped, except under CI=true where it fails).
func corpusDir(t testing.TB) string {
	t.Helper()
	return corpus.Dir(t)
}

func corpusFiles(t testing.TB) []string {
	root := corpusDir(t)
	var files []string
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !de.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorpusRoundTrip checks, for every node of every YAML file of the
// corpus, that Lookup(path) finds the very node Walk gave, that its spans
// cover exactly its text (the text decodes back to the node's value), and
// that At() at offsets inside the key and scalar value spans returns the
// same path, on and off the key. At is checked at every offset of keys and
// short values in files up to 50 KB, at the start, middle and end of spans
// of every 3rd node in larger ones, and of every 37th node only in files
// over 200 KB.
func TestCorpusRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	files := corpusFiles(t)
	if len(files) < 2000 {
		t.Errorf("only %d corpus YAML files", len(files))
	}
	// The files are checked in as many parallel shards as there are CPUs:
	// the round trip is CPU-bound and takes about a minute on one.
	var nodes, hits atomic.Int64
	shards := runtime.GOMAXPROCS(0)
	t.Run("shards", func(t *testing.T) {
		for shard := range shards {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				for i := shard; i < len(files); i += shards {
					checkRoundTrip(t, files[i], &nodes, &hits)
				}
			})
		}
	})
	t.Logf("%d files, %d nodes, %d At queries", len(files), nodes.Load(), hits.Load())
}

// checkRoundTrip is TestCorpusRoundTrip for one file.
func checkRoundTrip(t *testing.T, p string, nodes, hits *atomic.Int64) {
	{
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := Parse(p, 1, text)
		checkDocsCover(t, f)
		big := len(text) > 200<<10
		small := len(text) <= 50<<10 // At at every offset of keys and short values
		name, _ := filepath.Rel(filepath.Dir(filepath.Dir(p)), p)
		fails := 0
		fail := func(format string, args ...any) {
			if fails++; fails <= 5 {
				t.Errorf(name+": "+format, args...)
			}
		}
		agreesWithYAMLv3(f, fail)
		for _, d := range f.Docs {
			if len(d.Errors) > 0 {
				continue // agreesWithYAMLv3 judged them
			}
			n := 0
			d.Walk(func(path fieldpath.Path, k, v *yaml.Node) bool {
				n++
				nodes.Add(1)
				lk, lv, ok := d.Lookup(path)
				if !ok || lk != k || lv != v {
					fail("%s: Lookup found another node", path)
					return true
				}
				ks, vs, _ := d.Spans(path)
				if k != nil {
					if msg := spanMatches(f, ks, k, nil); msg != "" {
						fail("%s: key: %s", path, msg)
					}
				} else if ks != (Span{}) {
					fail("%s: list item with a key span %v", path, ks)
				}
				if msg := spanMatches(f, vs, v, &valueOf{d, path, k != nil, ks}); msg != "" {
					fail("%s: value: %s", path, msg)
				}
				if big && n%37 != 0 || !small && n%3 != 0 {
					return true // sample At in larger files: the test stays well under a minute
				}
				// At over the key span (all of it) and the scalar value span.
				var offs []int
				if k != nil {
					if small {
						for o := ks.Start; o <= ks.End; o++ {
							offs = append(offs, o)
						}
					} else {
						offs = append(offs, ks.Start, ks.Start+ks.Len()/2, ks.End)
					}
				}
				nk := len(offs)
				if v.Kind == yaml.ScalarNode && vs.Len() > 0 {
					if small && vs.Len() <= 24 {
						for o := vs.Start; o <= vs.End; o++ {
							offs = append(offs, o)
						}
					} else {
						offs = append(offs, vs.Start, vs.Start+vs.Len()/2, vs.End-1, vs.End)
					}
				}
				for i, o := range offs {
					hits.Add(1)
					h, ok := f.At(o)
					if !ok || !h.Path.Equal(path) || h.OnKey != (i < nk) || h.Key != k || h.Value != v {
						fail("%s: At(%d) = %s onKey=%v; want onKey=%v", path, o, h.Path, h.OnKey, i < nk)
						return true
					}
				}
				return true
			})
		}
	}
}

// agreesWithYAMLv3 checks f's errors against gopkg.in/yaml.v3 itself:
// a syntax error in exactly the documents yaml.v3 fails to parse, and a
// duplicate key in exactly those whose decoding yaml.v3 refuses for one.
// (The corpus holds templates, Helm's and others, that are YAML only once
// rendered: crd-lsp must say so where yaml.v3 does, and only there.)
//
// One yaml.v3 decoder reads the whole stream, as it splits documents
// itself: up to its first error, the documents crd-lsp parses must be
// those it decodes (their content starting on the same lines) and none may
// have a syntax error; the document where it fails must be crd-lsp's
// first with one. A decoder cannot go on after an error: from there, each
// document's text is given to yaml.Unmarshal on its own.
func agreesWithYAMLv3(f *File, fail func(string, ...any)) {
	var lines []int // where each non-empty document yaml.v3 decodes starts
	streamErr := yamlv3(func() error {
		dec := yaml.NewDecoder(bytes.NewReader(f.Text))
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			if len(n.Content) > 0 && !isEmptyContent(n.Content[0]) {
				lines = append(lines, n.Content[0].Line)
			}
		}
	})
	syntax := func(d *Doc) []Error {
		var errs []Error
		for _, e := range d.Errors {
			if !e.Duplicate {
				errs = append(errs, e)
			}
		}
		return errs
	}
	i, alone := 0, false // documents matched with the stream's; judged alone
	for _, d := range f.Docs {
		for _, e := range d.Errors {
			if e.Span.Start < d.Span.Start || e.Span.End > d.Span.End {
				fail("doc %d: error %v outside the document %v", d.Index, e, d.Span)
			}
		}
		errs := syntax(d)
		if !alone && len(errs) > 0 {
			if streamErr == nil {
				fail("doc %d: %v, but yaml.v3 decodes the file", d.Index, errs)
			} else if i != len(lines) {
				fail("doc %d: %v, but yaml.v3 decodes %d documents after it before failing (%v)", d.Index, errs, len(lines)-i, streamErr)
			}
			alone = true
		}
		if alone {
			from := d.Span.Start
			if from == 0 {
				from = f.bom
			}
			err := yamlv3(func() error { var n yaml.Node; return yaml.Unmarshal(f.Text[from:d.Span.End], &n) })
			if (err != nil) != (len(errs) > 0) {
				fail("doc %d: syntax errors %v; yaml.v3 on its own: %v", d.Index, errs, err)
			}
		} else if d.Root != nil {
			switch {
			case i < len(lines) && lines[i] != d.Root.Line:
				fail("doc %d: content on line %d, yaml.v3's document %d on line %d", d.Index, d.Root.Line, i, lines[i])
			case i >= len(lines) && streamErr == nil:
				fail("doc %d: content on line %d, yaml.v3 decodes %d documents", d.Index, d.Root.Line, len(lines))
			case i >= len(lines):
				fail("doc %d: no syntax error, yaml.v3 fails there: %v", d.Index, streamErr)
			}
			i++
		}
		if d.Root == nil || len(errs) > 0 {
			continue
		}
		// Duplicate keys: yaml.v3 refuses them when decoding into Go values.
		var dups []string
		for _, e := range d.Errors {
			if e.Duplicate {
				dups = append(dups, e.Message)
			}
		}
		err := yamlv3(func() error { var v any; return d.Root.Decode(&v) })
		m := dupRE.FindString(fmt.Sprint(err))
		switch {
		case m == "" && len(dups) > 0:
			fail("doc %d: %v; yaml.v3 decodes it: %v", d.Index, dups, err)
		case m != "" && !strings.Contains(strings.Join(dups, "\n"), m):
			fail("doc %d: yaml.v3 says %q; crd-lsp: %v", d.Index, m, dups)
		}
	}
	if !alone && streamErr != nil {
		fail("yaml.v3 fails (%v), crd-lsp reports no syntax error", streamErr)
	} else if !alone && i != len(lines) {
		fail("%d documents with content, yaml.v3 decodes %d", i, len(lines))
	}
}

var dupRE = regexp.MustCompile(`mapping key .* already defined at line \d+`)

// yamlv3 runs a yaml.v3 call, a panic being its error.
func yamlv3(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return call()
}

// isEmptyContent: a document with nothing written (as Parse reads it).
func isEmptyContent(c *yaml.Node) bool {
	return c.Kind == yaml.ScalarNode && c.Tag == "!!null" && c.Value == "" && c.Anchor == "" && c.Style&yaml.TaggedStyle == 0
}

// checkDocsCover checks the documents tile the text.
func checkDocsCover(t *testing.T, f *File) {
	at := 0
	for _, d := range f.Docs {
		if d.Span.Start != at {
			t.Errorf("%s: doc %d starts at %d, want %d", f.URI, d.Index, d.Span.Start, at)
		}
		at = d.Span.End
	}
	if at != len(f.Text) {
		t.Errorf("%s: docs end at %d of %d", f.URI, at, len(f.Text))
	}
}

// valueOf is where a value node is: its document, its path, and its
// key's span (hasKey false for a list item or the root).
type valueOf struct {
	doc    *Doc
	path   fieldpath.Path
	hasKey bool
	key    Span
}

// spanMatches says how the text at s fails to be node n ("" if it is); at
// is where n is when it is a value, nil for a key.
func spanMatches(f *File, s Span, n *yaml.Node, at *valueOf) string {
	text := f.Text
	if s.Start < 0 || s.End > len(text) || s.Start > s.End {
		return fmt.Sprintf("span %v outside the text", s)
	}
	got := string(text[s.Start:s.End])
	switch n.Kind {
	case yaml.AliasNode:
		if got != "*"+n.Value {
			return "alias text " + quote(got)
		}
	case yaml.ScalarNode:
		switch {
		case n.Value == "" && n.Tag == "!!null" && n.Style == 0:
			// Just after ':' or '-', or after the key of an entry
			// written without ':' ("{a}", "? a").
			afterKey := at != nil && at.hasKey && s.Start == at.key.End && !strings.HasPrefix(strings.TrimLeft(string(text[s.Start:]), " \t\r\n"), ":")
			if s.Len() != 0 || s.Start == 0 || (text[s.Start-1] != ':' && text[s.Start-1] != '-' && !afterKey) {
				return fmt.Sprintf("empty value span %v not just after ':', '-' or a key without ':'", s)
			}
		case n.Style == 0 && n.Anchor == "" && !strings.ContainsAny(n.Value, "\n") && got == n.Value:
		case at != nil && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && explicitIndent.MatchString(got):
			// An explicit indentation indicator counts from the enclosing
			// block's indentation, so the text cannot be decoded alone:
			// the document up to the span's end must hold the same value
			// there, and the span must end on the scalar's content.
			from := at.doc.Span.Start
			if from == 0 {
				from = f.bom
			}
			prefix := string(text[from:s.End]) + "\n"
			g := Parse("prefix", 0, []byte(prefix))
			if len(g.Docs) != 1 || g.Docs[0].Root == nil {
				return "the document up to " + quote(got) + " does not decode"
			}
			_, m, ok := g.Docs[0].Lookup(at.path)
			if !ok || m.Value != n.Value && !(strings.Contains(got[:strings.IndexAny(got+"\n", "\n")], "+") && strings.TrimRight(m.Value, "\n") == strings.TrimRight(n.Value, "\n")) {
				return "text " + quote(got) + " ends before the value"
			}
			if c := got[len(got)-1]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				return "text " + quote(got) + " ends after the value"
			}
		default:
			// Decode the text on its own: it must give the same value.
			// (The line break that follows is added: a block scalar's
			// last one is not part of its span. At the end of a file
			// without one, there is none to add.)
			var m yaml.Node
			if s.End < len(text) {
				got += "\n"
			}
			if err := yaml.Unmarshal([]byte(got), &m); err != nil || len(m.Content) != 1 {
				return "text " + quote(got) + " does not decode"
			}
			want, v := n.Value, m.Content[0].Value
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && strings.Contains(got[:strings.IndexAny(got+"\n", "\n")], "+") {
				// Keep chomping: the trailing blank lines are not in the span.
				want, v = strings.TrimRight(want, "\n"), strings.TrimRight(v, "\n")
			}
			if v != want {
				return "text " + quote(got) + " decodes to " + quote(v) + ", want " + quote(want)
			}
		}
	case yaml.MappingNode, yaml.SequenceNode:
		if len(n.Content) == 0 {
			if !strings.HasSuffix(got, "}") && !strings.HasSuffix(got, "]") {
				return "empty collection " + quote(got)
			}
			break
		}
		if n.Style&yaml.FlowStyle != 0 {
			if !strings.HasSuffix(got, "}") && !strings.HasSuffix(got, "]") {
				return "flow collection " + quote(got)
			}
			break
		}
		// A block collection spans from (at most) its first child's start
		// to its last child's end.
		first, last := f.NodeSpan(n.Content[0]), f.NodeSpan(n.Content[len(n.Content)-1])
		if s.Start > first.Start || s.End != last.End {
			return fmt.Sprintf("block collection %v, children from %v to %v", s, first, last)
		}
	}
	return ""
}

// explicitIndent: a block scalar header with an indentation indicator.
var explicitIndent = regexp.MustCompile(`^(?:[&!][^ \t\n]*[ \t\n]+)*[|>][-+]?[1-9]`)

func quote(s string) string {
	if len(s) > 80 {
		s = s[:40] + "…" + s[len(s)-40:]
	}
	return strings.ReplaceAll(strings.ReplaceAll(`"`+s+`"`, "\n", `\n`), "\t", `\t`)
}

// benchFile reads a corpus file for the benchmarks: a 3,099-line CRD and
// the largest file of the corpus (1.7 MB).
func benchFile(b *testing.B, name string) []byte {
	text, err := os.ReadFile(filepath.Join(corpusDir(b), name))
	if err != nil {
		b.Skip(err)
	}
	return text
}

var benchFiles = []struct{ name, path string }{
	{"3k-lines", "crds/providers/provider-upjet-aws-subset/v2.6.0/crds/rds.aws.m.upbound.io_clusters.yaml"},
	{"1.7MB", "crds/provider-aws-full/v2.6.0/crds/firehose.aws.upbound.io_deliverystreams.yaml"},
}

func BenchmarkParse(b *testing.B) {
	for _, bf := range benchFiles {
		b.Run(bf.name, func(b *testing.B) {
			text := benchFile(b, bf.path)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Parse("bench.yaml", 1, text)
			}
		})
	}
}

func BenchmarkAt(b *testing.B) {
	for _, bf := range benchFiles {
		b.Run(bf.name, func(b *testing.B) {
			text := benchFile(b, bf.path)
			f := Parse("bench.yaml", 1, text)
			i := 0
			for b.Loop() {
				i = (i + 7919) % len(text) // spread over the file
				if _, ok := f.At(i); !ok {
					b.Fatal("no hit")
				}
			}
		})
	}
}

func BenchmarkObject(b *testing.B) {
	text := benchFile(b, benchFiles[0].path)
	f := Parse("bench.yaml", 1, text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := f.Docs[0].Object(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSyntaxError: a 3,000-line file with a bad indentation near
// its end, positioned by re-parsing prefixes.
func BenchmarkParseSyntaxError(b *testing.B) {
	text := string(benchFile(b, benchFiles[0].path))
	i := strings.LastIndex(text, "\n    storage:") // near the end
	if i < 0 {
		b.Skip("corpus file changed")
	}
	broken := []byte(text[:i+1] + text[i+2:]) // indented by 3 instead of 4
	if f := Parse("bench.yaml", 1, broken); len(f.Docs[0].Errors) == 0 {
		b.Fatal("no error")
	}
	b.SetBytes(int64(len(broken)))
	for b.Loop() {
		Parse("bench.yaml", 1, broken)
	}
}
