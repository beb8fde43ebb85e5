package loader

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// schemaDirKinds loads dir as a --schemas folder and lists what its store
// knows of it, with Widget's findings on an invalid object.
func schemaDirKinds(t *testing.T, dir string) string {
	t.Helper()
	w, _, _, err := Load(context.Background(), Config{SchemaDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st := w.DefaultStore()
	for _, k := range st.Kinds() {
		if strings.HasPrefix(k.Schema.Path, dir) {
			fmt.Fprintf(&b, "%s %s %s %s %s %q\n", k.GVK, k.Scope, k.Plural, k.Schema.CRDName, strings.TrimPrefix(k.Schema.Path, dir), k.Description)
		}
	}
	fmt.Fprintf(&b, "schema files: %d\n", w.SchemaFiles())
	if widget, ok := st.Lookup(schemas.GVK{Group: "load.example.org", Version: "v1", Kind: "Widget"}); ok {
		for _, e := range widget.Validate(context.Background(), map[string]any{"apiVersion": "load.example.org/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "n"}, "spec": map[string]any{"size": "big"}}) {
			fmt.Fprintf(&b, "Widget: %s %s\n", e.Path, e.Message)
		}
	}
	return b.String()
}

// With the decoded cache on, a --schemas folder is indexed once: a later
// load reads only files whose size or modification time changed, finds
// what a first load finds, and ignores a damaged index.
func TestSchemaDirIndex(t *testing.T) {
	cache := t.TempDir()
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The marker keeps this test's builds apart from other tests'.
	crds := strings.ReplaceAll(loadCRDs, "type: object\n", "type: object\n# schema dir index\n")
	write("crds.yaml", crds)
	write("notes.yaml", "a: 1\n")
	write("sub/xrd.yaml", `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xbuckets.index.example.org}
spec:
  group: index.example.org
  names: {kind: XBucket, plural: xbuckets}
  claimNames: {kind: Bucket, plural: buckets}
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        description: A bucket.
        type: object
`)
	without := schemaDirKinds(t, dir)
	for _, want := range []string{"XBucket", "Bucket", "Widget", "Gadget", "Widget: spec.size"} {
		if !strings.Contains(without, want) {
			t.Fatalf("the folder's schemas lack %s:\n%s", want, without)
		}
	}
	schemas.SetDecodedCache(cache, 0)
	defer schemas.SetDecodedCache("", 0)
	cold := schemaDirKinds(t, dir)
	indexFiles := func() []string {
		des, _ := os.ReadDir(cache)
		var out []string
		for _, de := range des {
			if strings.HasPrefix(de.Name(), "x") {
				out = append(out, filepath.Join(cache, de.Name()))
			}
		}
		return out
	}
	if len(indexFiles()) != 1 {
		t.Fatalf("%d folder indexes in the cache, want 1", len(indexFiles()))
	}
	warm := schemaDirKinds(t, dir)
	if cold != without || warm != without {
		t.Fatalf("loads differ:\nwithout the index:\n%s\ncold:\n%s\nwarm:\n%s", without, cold, warm)
	}

	// The warm load did not read crds.yaml: content of the same size
	// written behind the same modification time is not seen (its kinds
	// are the indexed ones), and using a schema reads the file and says it
	// changed.
	p := filepath.Join(dir, "crds.yaml")
	fi, _ := os.Stat(p)
	write("crds.yaml", strings.Replace(crds, "size: {type: integer}", "size: {type: boolean}", 1))
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(p); fi2.Size() != fi.Size() {
		t.Fatal("the test's edit changed the size")
	}
	w, _, _, err := Load(context.Background(), Config{SchemaDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	widget, ok := w.DefaultStore().Lookup(schemas.GVK{Group: "load.example.org", Version: "v1", Kind: "Widget"})
	if !ok {
		t.Fatal("Widget not indexed")
	}
	if _, err := widget.Structural(); err == nil || !strings.Contains(err.Error(), "changed on disk since it was indexed") {
		t.Errorf("a definition changed behind its index entry: %v", err)
	}

	// An edit that changes the modification time is seen at once.
	write("crds.yaml", strings.Replace(crds, "kind: Gadget, plural: gadgets", "kind: Gizmo, plural: gizmos", 1))
	later := fi.ModTime().Add(2 * time.Second)
	_ = os.Chtimes(p, later, later)
	edited := schemaDirKinds(t, dir)
	if !strings.Contains(edited, "Gizmo") || strings.Contains(edited, "Gadget") {
		t.Errorf("the edited file's kinds:\n%s", edited)
	}
	// A removed file is gone from the next load.
	os.Remove(filepath.Join(dir, "sub", "xrd.yaml"))
	if got := schemaDirKinds(t, dir); strings.Contains(got, "XBucket") {
		t.Errorf("a removed file's kinds remain:\n%s", got)
	}

	// A damaged index is ignored and written again.
	write("sub/xrd.yaml", "apiVersion: v1\nkind: ConfigMap\n")
	write("crds.yaml", crds)
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-5] ^= 0x20; return c },
	} {
		before := schemaDirKinds(t, dir)
		ix := indexFiles()[0]
		data, _ := os.ReadFile(ix)
		if err := os.WriteFile(ix, damage(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := schemaDirKinds(t, dir); got != before {
			t.Errorf("with a damaged index:\n%s\nwant:\n%s", got, before)
		}
		if again, _ := os.ReadFile(ix); bytes.Equal(again, damage(data)) {
			t.Error("the damaged index was not written again")
		}
	}
}
