package document

import (
	"fmt"
	"os"
	"path/filepath"
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
		for _, d := range f.Docs {
			if len(d.Errors) > 0 {
				rel, _ := filepath.Rel(corpusDir(t), p)
				if want := knownInvalid[filepath.ToSlash(rel)]; want == "" || !strings.Contains(fmt.Sprint(d.Errors), want) {
					fail("%v", d.Errors)
				}
				continue
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
					if msg := spanMatches(f, ks, k); msg != "" {
						fail("%s: key: %s", path, msg)
					}
				} else if ks != (Span{}) {
					fail("%s: list item with a key span %v", path, ks)
				}
				if msg := spanMatches(f, vs, v); msg != "" {
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

// knownInvalid are corpus files, verbatim from upstream, that really hold a
// YAML error (by path in the corpus, and the error).
var knownInvalid = map[string]string{
	// Crossplane v2.3.4's e2e manifests: metadata.name written twice.
	"workspaces/crossplane-e2e/apiextensions/composition/legacy-propagate-field-removals/setup/functions.yaml": `mapping key "name" already defined at line 6`,
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

// spanMatches says how the text at s fails to be node n ("" if it is).
func spanMatches(f *File, s Span, n *yaml.Node) string {
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
			if s.Len() != 0 || s.Start == 0 || (text[s.Start-1] != ':' && text[s.Start-1] != '-') {
				return fmt.Sprintf("empty value span %v not just after ':' or '-'", s)
			}
		case n.Style == 0 && n.Anchor == "" && !strings.ContainsAny(n.Value, "\n") && got == n.Value:
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
