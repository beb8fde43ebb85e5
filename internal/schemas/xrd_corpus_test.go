package schemas

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The platform-ref-aws v0.6.0 examples (claims and an XR) validate cleanly
// against the schemas derived from its XRDs, and its compositions (resources
// mode) against Crossplane v1.20's Composition CRD. Crossplane v2 removed
// resources mode; against v2.3.4 each composition gets exactly the errors
// the v2 API server gives.
func TestXRDCorpusExamples(t *testing.T) {
	root := filepath.Join(corpus(t), "compositions", "upbound-platform-ref-aws", "v0.6.0")
	st := storeOf(t, "crds/crossplane/v1.20.11/apiextensions.crossplane.io_compositions.yaml")
	v2 := lookup(t, storeOf(t, xpDir+"/apiextensions.crossplane.io_compositions.yaml"), GVK{Group: "apiextensions.crossplane.io", Version: "v1", Kind: "Composition"})
	var defs, examples []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			switch {
			case filepath.Base(p) == "definition.yaml":
				defs = append(defs, p)
			case strings.Contains(p, "/examples/") || filepath.Base(p) == "composition.yaml":
				examples = append(examples, p)
			}
		}
		return nil
	})
	for _, p := range defs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st = st.WithFile(Source{Kind: SourceWorkspace, Name: p, File: p}, p, b)
	}
	if len(defs) < 5 || len(examples) < 5 {
		t.Fatalf("%d definitions, %d examples", len(defs), len(examples))
	}
	checked := 0
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range splitDocs(b) {
			o := obj(t, string(doc))
			if o == nil {
				continue
			}
			av, _ := o["apiVersion"].(string)
			kind, _ := o["kind"].(string)
			g, v, found := strings.Cut(av, "/")
			if !found {
				g, v = "", av
			}
			sc, ok := st.Lookup(GVK{Group: g, Version: v, Kind: kind})
			if !ok {
				continue // e.g. a Function or ProviderConfig
			}
			checked++
			if errs := sc.Validate(context.Background(), o); len(errs) > 0 {
				t.Errorf("%s (%s):\n%s", p, kind, dump(errs))
			}
			if kind == "Composition" && filepath.Base(filepath.Dir(p)) == "sqlinstance" {
				expect(t, v2.Validate(context.Background(), o),
					want{"spec", true, "cel", "an array of pipeline steps is required in Pipeline mode"},
					want{"spec.resources", true, "unknown-field", `unknown field "resources"`})
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d documents checked", checked)
	}
	t.Logf("%d documents checked", checked)
}
