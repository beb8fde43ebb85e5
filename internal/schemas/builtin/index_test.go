package builtin

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin/internal/generate"
)

// bundles are the embedded bundles that have an index, by file name.
var bundles = map[string]struct{ data, index []byte }{
	"kubernetes-v" + NewestKubernetes + ".yaml": {kubernetesData, kubernetesIndex},
	"crossplane-v1.20.11.yaml":                  {crossplane1Data, crossplane1Index},
	"crossplane-v2.3.4.yaml":                    {crossplane2Data, crossplane2Index},
	"functions.yaml":                            {functionsData, functionsIndex},
}

// TestIndexIsCurrent checks every committed index against the index the
// generator makes of the committed bundle now (an older minor's: of the
// whole bundle its difference rebuilds), with the schema store's scanner
// as it is now: a bundle edited by hand, or a scanner that reads kinds,
// versions or descriptions differently, fails here even where
// TestGeneratedIsCurrent cannot run (no corpus or module proxy).
func TestIndexIsCurrent(t *testing.T) {
	wholes := map[string][]byte{}
	for name, b := range bundles {
		wholes[name] = b.data
	}
	embedded := map[string][]byte{}
	for name, b := range bundles {
		embedded[name+generate.IndexSuffix] = b.index
	}
	for _, m := range KubernetesMinors[:len(KubernetesMinors)-1] {
		set, err := KubernetesMinor(m)
		if err != nil {
			t.Fatal(err)
		}
		name := "kubernetes-v" + m + ".yaml"
		wholes[name] = bundleOf(t, set)
		if embedded[name+generate.IndexSuffix], err = olderKubernetes.ReadFile("data/" + name + generate.IndexSuffix); err != nil {
			t.Fatal(err)
		}
	}
	if len(embedded) != len(generate.Indexed()) {
		t.Errorf("%d embedded indexes, the generator writes %d", len(embedded), len(generate.Indexed()))
	}
	for _, name := range generate.Indexed() {
		index, ok := embedded[name]
		if !ok {
			t.Errorf("%s is not embedded", name)
			continue
		}
		want, err := generate.Index(wholes[strings.TrimSuffix(name, generate.IndexSuffix)])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(index, want) {
			t.Errorf("%s is stale: run go generate ./internal/schemas/builtin/ (first difference at byte %d)", name, firstDiff(index, want))
		}
	}
}

// TestIndexedSplitsAsScan checks that a set split by its index holds the
// documents, in order and under the names, that scanning the bundle
// finds, each with its index.
func TestIndexedSplitsAsScan(t *testing.T) {
	for name, b := range bundles {
		scanned, err := read(name, b.data, "x", "", KindKubernetes)
		if err != nil {
			t.Fatal(err)
		}
		indexed, err := readIndexed(name, b.data, b.index, "x", "", KindKubernetes)
		if err != nil {
			t.Fatal(err)
		}
		if len(indexed.Files) != len(scanned.Files) {
			t.Fatalf("%s: %d documents by the index, %d by scanning", name, len(indexed.Files), len(scanned.Files))
		}
		for i, f := range indexed.Files {
			s := scanned.Files[i]
			if f.Name != s.Name || !bytes.Equal(f.Data, s.Data) || cap(f.Data) != len(f.Data) {
				t.Errorf("%s document %d: %q (%d bytes) by the index, %q (%d bytes) by scanning", name, i, f.Name, len(f.Data), s.Name, len(s.Data))
			}
			if len(f.Index) == 0 || s.Index != nil {
				t.Errorf("%s: index %q by the index, %q by scanning", f.Name, f.Index, s.Index)
			}
		}
	}
}

// TestIndexRefused: an index that does not fit its bundle is an error,
// never a document cut from elsewhere.
func TestIndexRefused(t *testing.T) {
	data := []byte("---\n# source: a\nkind: X\n")
	for _, index := range []string{
		"",
		"16\t8\ta\n",                // no definitions field
		"16\t9\ta\t[]\n",            // runs past the bundle
		"-1\t8\ta\t[]\n",            // before it
		"16\tx\ta\t[]\n",            // not a number
		"16\t8\ta\t[]",              // no newline
		"16\t8\ta\t[]\n17\t99\tb\n", // a bad second line
	} {
		if _, err := readIndexed("t.yaml", data, []byte(index), "x", "", KindKubernetes); err == nil {
			t.Errorf("index %q: no error", index)
		}
	}
	set, err := readIndexed("t.yaml", data, []byte("16\t8\ta\t[]\n"), "x", "", KindKubernetes)
	if err != nil || len(set.Files) != 1 || string(set.Files[0].Data) != "kind: X\n" || string(set.Files[0].Index) != "[]" {
		t.Errorf("a good index: %+v, %v", set, err)
	}
}

// TestOlderMinorsLazy: an older minor's document that is the newest's
// text is the newest's (no copy), with the same index; one that is an
// edit of the newest's is built only when first read, and every document
// has its index.
func TestOlderMinorsLazy(t *testing.T) {
	newest, err := Kubernetes()
	if err != nil {
		t.Fatal(err)
	}
	byData := map[string][]byte{}
	for _, f := range newest.Files {
		byData[string(f.Data)] = f.Index
	}
	for _, minor := range KubernetesMinors[:len(KubernetesMinors)-1] {
		set, err := KubernetesMinor(minor)
		if err != nil {
			t.Fatal(err)
		}
		shared, edited, own := 0, 0, 0
		for _, f := range set.Files {
			if len(f.Index) == 0 {
				t.Errorf("%s %s: no index", minor, f.Name)
			}
			if f.build != nil {
				if f.Data != nil {
					t.Errorf("%s %s: built on first read, yet has Data", minor, f.Name)
				}
				edited++
				continue
			}
			if ix, same := byData[string(f.Data)]; same {
				if !bytes.Equal(f.Index, ix) {
					t.Errorf("%s %s: the newest's text without the newest's index", minor, f.Name)
				}
				shared++
			} else {
				own++
			}
		}
		if shared == 0 || edited == 0 {
			t.Errorf("Kubernetes %s: %d documents shared with the newest, %d edits of them; want some of each", minor, shared, edited)
		}
		t.Logf("Kubernetes %s: %d documents shared with the newest, %d edits of them, %d of its own", minor, shared, edited, own)
	}

	// Reading one edited document builds that one only, once.
	set, err := KubernetesMinor(KubernetesMinors[0])
	if err != nil {
		t.Fatal(err)
	}
	var built []File
	for _, f := range set.Files {
		if f.build != nil {
			built = append(built, f)
		}
	}
	a, err := built[0].Text()
	if err != nil || len(a) == 0 {
		t.Fatalf("%s: %v", built[0].Name, err)
	}
	if b, _ := built[0].Text(); &a[0] != &b[0] {
		t.Errorf("%s built twice", built[0].Name)
	}
	again, _ := KubernetesMinor(KubernetesMinors[0])
	for _, f := range again.Files {
		if f.Name == built[0].Name {
			if c, _ := f.Text(); &c[0] != &a[0] {
				t.Errorf("%s built again for another caller", f.Name)
			}
		}
	}
}
