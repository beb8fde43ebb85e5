package schemas

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// TestOpenAPIValidatorReuse holds the validator that keeps kube-openapi's
// field and item validators to what the API server's own validator (a
// fresh kube-openapi SchemaValidator per object) says: the real examples
// of provider-upjet-azure against their real CRDs, each also with every
// string turned into a number and every list doubled (type errors, new
// list indexes), validated twice, from several goroutines, in different
// orders.
func TestOpenAPIValidatorReuse(t *testing.T) {
	ws := filepath.Join(corpus(t), "workspaces", "provider-upjet-azure-examples")
	st := NewStore()
	crds, err := filepath.Glob(filepath.Join(ws, "schemas", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs under %s: %v", ws, err)
	}
	for _, f := range crds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st = st.WithFile(Source{Kind: SourceWorkspace, Name: f, File: f}, f, b)
	}
	type doc struct {
		vv  *versionValidator
		obj map[string]any
	}
	var docs []doc
	err = filepath.WalkDir(filepath.Join(ws, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, part := range bytes.Split(b, []byte("\n---")) {
			o := obj(t, string(part))
			if o == nil {
				continue
			}
			gvk, ok := gvkOf(o)
			if !ok {
				continue
			}
			sc, ok := st.Lookup(gvk)
			if !ok {
				continue
			}
			vv := sc.validatorFor()
			if vv.validator == nil {
				continue
			}
			docs = append(docs, doc{vv, o}, doc{vv, mutate(o).(map[string]any)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 100 {
		t.Fatalf("only %d documents with a schema", len(docs))
	}
	fresh := make([]string, len(docs))
	failing := 0
	for i, d := range docs {
		r := validate.NewSchemaValidator(d.vv.validator.root.Schema, nil, "", strfmt.Default).Validate(d.obj)
		fresh[i] = resultText(r)
		if fresh[i] != "" {
			failing++
		}
	}
	if failing < len(docs)/2 {
		t.Fatalf("only %d of %d documents have errors: the mutation does not reach the validator", failing, len(docs))
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pass := range 2 {
				for k := range docs {
					i := k
					if (w+pass)%2 == 1 {
						i = len(docs) - 1 - k
					}
					if got := resultText(docs[i].vv.validator.Validate(docs[i].obj)); got != fresh[i] {
						t.Errorf("document %d (%s): reused validators say\n%s\nthe API server's say\n%s", i, docs[i].vv.gvk, got, fresh[i])
						return
					}
				}
			}
		}()
	}
	testfixtures.Wait(t, wg.Wait, "the validators reused concurrently")
}

func gvkOf(o map[string]any) (GVK, bool) {
	av, _ := o["apiVersion"].(string)
	kind, _ := o["kind"].(string)
	group, version, ok := strings.Cut(av, "/")
	if !ok || kind == "" {
		return GVK{}, false
	}
	return GVK{Group: group, Version: version, Kind: kind}, true
}

// mutate copies v with every string replaced by a number and every list
// doubled.
func mutate(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			if k == "apiVersion" || k == "kind" {
				m[k] = e
				continue
			}
			m[k] = mutate(e)
		}
		return m
	case []any:
		var l []any
		for range 2 {
			for _, e := range v {
				l = append(l, mutate(e))
			}
		}
		return l
	case string:
		return int64(len(v))
	}
	return v
}

func resultText(r *validate.Result) string {
	var s []string
	for _, e := range r.Errors {
		s = append(s, e.Error())
	}
	slices.Sort(s)
	return strings.Join(s, "\n")
}
