package workspace

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin"
)

// scannedBuiltins is loadBuiltins as it was before the generated
// indexes: every document's text given to the store, which scans it.
func scannedBuiltins(t *testing.T, major int, minor string) *schemas.Store {
	t.Helper()
	batch, err := builtinInputs(major, minor, func(src schemas.Source, path string, f builtin.File) (schemas.FileInput, error) {
		data, err := f.Text()
		return schemas.FileInput{Source: src, Path: path, Content: data}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return schemas.NewStore().WithFiles(batch)
}

// kindLine is what the editor lists and reports of a kind, and what
// picks its schema.
func kindLine(k schemas.KindInfo) string {
	sc := k.Schema
	minor := ""
	if k.Source.Kubernetes != nil {
		minor = k.Source.Kubernetes.Minor
	}
	return fmt.Sprintf("%v scope=%v plural=%q source=%s/%s/%s/%s description=%q crd=%q path=%q claim=%q legacy=%v isClaim=%v fromXRD=%v",
		k.GVK, k.Scope, k.Plural, k.Source.Name, k.Source.Version, k.Source.File, minor, k.Description,
		sc.CRDName, sc.Path, sc.ClaimKind, sc.LegacyXR, sc.IsClaim(), sc.FromXRD())
}

// TestBuiltinsIndexedAsScanned: the built-in stores made from the
// generated indexes list every kind as scanning the documents does
// (hover, completion and the choice of schema read these), for each
// Crossplane major and a Kubernetes minor with and without its own
// documents; and a schema of each reads the same definition.
func TestBuiltinsIndexedAsScanned(t *testing.T) {
	for _, c := range []struct {
		major int
		minor string
	}{{0, builtin.NewestKubernetes}, {1, builtin.NewestKubernetes}, {2, builtin.NewestKubernetes}, {2, builtin.KubernetesMinors[0]}} {
		indexed, err := BuiltinsFor(c.major, c.minor)
		if err != nil {
			t.Fatal(err)
		}
		scanned := scannedBuiltins(t, c.major, c.minor)
		got, want := indexed.Kinds(), scanned.Kinds()
		if len(got) != len(want) || indexed.Len() != scanned.Len() {
			t.Fatalf("Crossplane %d, Kubernetes %s: %d kinds (%d definitions) indexed, %d (%d) scanned", c.major, c.minor, len(got), indexed.Len(), len(want), scanned.Len())
		}
		for i := range got {
			if g, w := kindLine(got[i]), kindLine(want[i]); g != w {
				t.Errorf("indexed: %s\nscanned: %s", g, w)
			}
		}
		for _, k := range []schemas.GVK{{Group: "apps", Version: "v1", Kind: "Deployment"}, {Version: "v1", Kind: "ConfigMap"}, {Group: "apiextensions.crossplane.io", Version: "v1", Kind: "Composition"}} {
			a, okA := indexed.Lookup(k)
			b, okB := scanned.Lookup(k)
			if okA != okB {
				t.Fatalf("%v: indexed %v, scanned %v", k, okA, okB)
			}
			if !okA {
				continue
			}
			ca, errA := a.CRD()
			cb, errB := b.CRD()
			if errA != nil || errB != nil || ca.Name != cb.Name || a.Invalid() != b.Invalid() {
				t.Errorf("%v: indexed %v (%v), scanned %v (%v)", k, ca.Name, errA, cb.Name, errB)
			}
		}
	}
}

// TestBuiltinInputReadsOnUse: a built-in document with a generated index
// is listed without its text being read, and its text is read — and
// checked against the index — when its schema is first used. The
// document's text here is damaged after indexing: the listing is still
// the index's, the use reports the mismatch.
func TestBuiltinInputReadsOnUse(t *testing.T) {
	k8s, err := builtin.Kubernetes()
	if err != nil {
		t.Fatal(err)
	}
	var f builtin.File
	for _, d := range k8s.Files {
		if bytes.HasSuffix([]byte(d.Name), []byte("#Deployment")) {
			f = d
		}
	}
	if f.Index == nil {
		t.Fatalf("no indexed Deployment document among %d", len(k8s.Files))
	}
	src := schemas.Source{Kind: schemas.SourceBuiltin, Name: "kubernetes", File: f.Name}
	damaged := bytes.Clone(f.Data)
	copy(damaged, bytes.Repeat([]byte{'#'}, 64)) // apiVersion, kind, name: gone
	st := schemas.NewStore().WithFiles([]schemas.FileInput{builtinInput(src, "builtin:"+f.Name, builtin.File{Name: f.Name, Data: damaged, Index: f.Index})})
	sc, ok := st.Lookup(schemas.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	if !ok || sc.Plural != "deployments" || sc.Description == "" {
		t.Fatalf("the index's Deployment: %v %+v", ok, sc)
	}
	if _, err := sc.CRD(); err == nil {
		t.Error("a damaged document's schema was built without complaint")
	}
	errs := sc.Validate(context.Background(), map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "a"}})
	if len(errs) == 0 {
		t.Error("validating against a damaged document found nothing")
	}

	// The intact text reads as the index says.
	st = schemas.NewStore().WithFiles([]schemas.FileInput{builtinInput(src, "builtin:"+f.Name, f)})
	sc, _ = st.Lookup(schemas.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	if crd, err := sc.CRD(); err != nil || crd.Spec.Names.Kind != "Deployment" {
		t.Errorf("the intact Deployment document: %v", err)
	}
}
