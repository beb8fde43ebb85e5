package document

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// TestBOMAfterMarker: kubectl reads each document after a "---" line as a
// stream of its own, so a byte-order mark at its start is no part of the
// first key. Positions still index the text as written.
func TestBOMAfterMarker(t *testing.T) {
	src := "apiVersion: v1\nkind: A\n---\n\ufeffapiVersion: v1\nkind: B\nspec: {x: 1}\n"
	f := Parse("t.yaml", 1, []byte(src))
	if len(f.Docs) != 2 {
		t.Fatalf("%d documents", len(f.Docs))
	}
	d := f.Docs[1]
	obj, err := d.Object()
	m, _ := obj.(map[string]any)
	if err != nil || m["apiVersion"] != "v1" || m["kind"] != "B" {
		t.Fatalf("second document decodes as %#v (%v)", obj, err)
	}
	k, v, ok := d.Spans(path(t, "apiVersion"))
	if !ok || src[k.Start:k.End] != "apiVersion" || src[v.Start:v.End] != "v1" {
		t.Errorf("apiVersion spans %v %v: %q %q", k, v, src[k.Start:k.End], src[v.Start:v.End])
	}
	if h, _ := f.At(k.Start + 2); h.Doc != d || h.Path.String() != "apiVersion" || !h.OnKey {
		t.Errorf("At inside the key: %s (onKey %v)", h.Path, h.OnKey)
	}
	_, x, _ := d.Spans(path(t, "spec.x"))
	if src[x.Start:x.End] != "1" {
		t.Errorf("spec.x span %q", src[x.Start:x.End])
	}
}

// TestWalkDeepNesting: Walk builds the paths of 10,000 nested lists in
// one buffer; a fresh path per node cost time and memory quadratic in the
// depth (a 20 KB line of "- " took seconds and a gigabyte).
func TestWalkDeepNesting(t *testing.T) {
	const depth = 10000
	d := Parse("t.yaml", 1, []byte(strings.Repeat("- ", depth)+"\n")).Docs[0]
	n, deepest := 0, 0
	allocs := testing.AllocsPerRun(1, func() {
		n, deepest = 0, 0
		d.Walk(func(p fieldpath.Path, k, v *yaml.Node) bool {
			n++
			deepest = max(deepest, len(p))
			return true
		})
	})
	if n != depth || deepest != depth {
		t.Fatalf("walked %d nodes, deepest path %d, want %d", n, deepest, depth)
	}
	if allocs > 100 {
		t.Errorf("Walk made %.0f allocations for %d nested lists, want a few", allocs, depth)
	}
}
