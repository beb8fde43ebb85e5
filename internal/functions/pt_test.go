package functions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// pair is a corpus Composition with a patch-and-transform step and an
// example XR of its composite type, from the same repository.
type pair struct {
	name      string // composition file (and XR file) relative to the corpus
	comp, xr  map[string]any
	ptSteps   int
	compFile  string
	xrFile    string
	xrIndexIn int
}

// corpusPairs finds every such pair: for each repository folder of the
// corpus (compositions/<owner-repo>/<tag>, workspaces/<name>), every
// Composition whose pipeline has a pt.fn.crossplane.io step, with every
// object of its compositeTypeRef's apiVersion and kind that does not
// select another Composition.
func corpusPairs(t *testing.T) []pair {
	t.Helper()
	dir := corpus.Dir(t)
	var roots []string
	tags, _ := filepath.Glob(filepath.Join(dir, "compositions", "*", "*"))
	ws, _ := filepath.Glob(filepath.Join(dir, "workspaces", "*"))
	roots = append(tags, ws...)
	type obj struct {
		file  string
		index int
		m     map[string]any
	}
	var pairs []pair
	for _, root := range roots {
		var comps, others []obj
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return err
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f := document.Parse(path, 0, text)
			for i, doc := range f.Docs {
				v, err := doc.Object()
				m, _ := v.(map[string]any)
				if err != nil || m == nil {
					continue
				}
				if m["kind"] == "Composition" {
					comps = append(comps, obj{path, i, m})
				} else {
					others = append(others, obj{path, i, m})
				}
			}
			return nil
		})
		for _, c := range comps {
			steps := functions.Steps(c.m)
			n := 0
			for _, st := range steps {
				if functions.IsPatchAndTransform(st) {
					n++
				}
			}
			if n == 0 {
				continue
			}
			spec, _ := c.m["spec"].(map[string]any)
			ref, _ := spec["compositeTypeRef"].(map[string]any)
			for _, o := range others {
				if o.m["apiVersion"] != ref["apiVersion"] || o.m["kind"] != ref["kind"] || !selects(o.m, c.m) {
					continue
				}
				rel := func(p string) string { r, _ := filepath.Rel(dir, p); return r }
				pairs = append(pairs, pair{
					name: fmt.Sprintf("%s with %s#%d", rel(c.file), rel(o.file), o.index),
					comp: c.m, xr: o.m, ptSteps: n, compFile: rel(c.file), xrFile: rel(o.file), xrIndexIn: o.index,
				})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	return pairs
}

// selects says whether an XR would use a Composition: no reference or
// selector, or a matching compositionRef / compositionSelector (v1 spec or
// v2 spec.crossplane).
func selects(xr, comp map[string]any) bool {
	spec, _ := xr["spec"].(map[string]any)
	if cp, ok := spec["crossplane"].(map[string]any); ok {
		spec = cp
	}
	md, _ := comp["metadata"].(map[string]any)
	if ref, ok := spec["compositionRef"].(map[string]any); ok {
		return ref["name"] == md["name"]
	}
	if sel, ok := spec["compositionSelector"].(map[string]any); ok {
		labels, _ := md["labels"].(map[string]any)
		ml, _ := sel["matchLabels"].(map[string]any)
		for k, v := range ml {
			if labels[k] != v {
				return false
			}
		}
	}
	return true
}

// ptRegistry runs function-patch-and-transform built from the module
// proxy, for every P&T step whatever its functionRef calls it.
func ptRegistry(t *testing.T) functions.Router {
	t.Helper()
	bin := fntest.PatchAndTransform(t)
	reg := functions.New(functions.Config{Executables: map[string]functions.Executable{"function-patch-and-transform": {Path: bin}}})
	t.Cleanup(func() { reg.Close() })
	run := functions.RunnerFunc(func(ctx context.Context, st functions.Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
		st.Function = "function-patch-and-transform"
		return reg.Run(ctx, st, req)
	})
	return func(st functions.Step) (functions.Runner, string) {
		if functions.IsPatchAndTransform(st) {
			return run, "function-patch-and-transform " + fntest.PatchAndTransformVersion
		}
		return nil, ""
	}
}

// TestPatchAndTransformCorpus renders every corpus Composition that uses
// function-patch-and-transform with its example XRs through the real
// function, and compares with crd-lsp's native renderer (internal/render,
// Lenient false): the composed resources must be equal, field for field,
// once the native output's Crossplane metadata is set aside (the
// reconciler adds it after the pipeline, not the function; each such field
// is checked to be what Crossplane sets before it is set aside).
//
// Differences that remain are listed in known with why; the test fails on
// any other difference, and on a listed one that no longer occurs.
func TestPatchAndTransformCorpus(t *testing.T) {
	pairs := corpusPairs(t)
	if len(pairs) < 8 {
		t.Fatalf("only %d Composition/XR pairs found in the corpus", len(pairs))
	}
	route := ptRegistry(t)
	known := map[string]string{
		// The multistep example runs P&T, then function-go-templating (not
		// configured here, so its step passes the desired state through),
		// then P&T again with resources that have no base: they patch what
		// go-templating composed. The real function stops with a Fatal
		// result ("has no base template, and was not produced by a
		// previous Function"); the native renderer notes the missing base
		// and renders the rest. Both agree on the first step's resources.
		"compositions/crossplane-contrib-function-patch-and-transform/v0.10.8/example/multistep/composition.yaml": "stops: go-templating not run",
	}
	seen := map[string]bool{}
	compared := 0
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			out := functions.Run(context.Background(), functions.Input{Composition: p.comp, XR: p.xr, Route: route, Timeout: time.Minute})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			md, _ := p.xr["metadata"].(map[string]any)
			ns, _ := md["namespace"].(string)
			native := patchandtransform.Render(patchandtransform.Input{Composition: p.comp, XR: p.xr, Namespaced: ns != ""})
			diff, n := compare(t, p, out, native)
			compared += n
			if n == 0 {
				t.Errorf("no composed resource to compare")
			}
			if why, ok := known[p.compFile]; ok {
				seen[p.compFile] = true
				if diff == "" {
					t.Errorf("listed as differing (%s), but native and real now agree: update the list", why)
				}
				t.Logf("known difference (%s):\n%s", why, diff)
				return
			}
			if diff != "" {
				t.Errorf("native renderer and function-patch-and-transform %s differ:\n%s", fntest.PatchAndTransformVersion, diff)
			}
		})
	}
	t.Logf("%d Composition/XR pairs, %d composed resources compared", len(pairs), compared)
	for f := range known {
		if !seen[f] {
			t.Errorf("%s is listed as a known difference but was not rendered", f)
		}
	}
}

// compare returns the differences between the real pipeline's desired
// composed resources and the native renderer's, and how many resources
// both composed.
func compare(t *testing.T, p pair, real functions.Output, native render.Output) (string, int) {
	var diffs []string
	for i, st := range real.Steps {
		if st.Err != nil {
			diffs = append(diffs, fmt.Sprintf("step %d (%s) failed: %v", i, st.Step.Name, st.Err))
		}
		for _, r := range st.Results {
			if r.Severity == functions.SeverityFatal {
				diffs = append(diffs, fmt.Sprintf("step %d (%s): Fatal: %s", i, st.Step.Name, r.Message))
			}
		}
	}
	for _, n := range native.Notes {
		if n.Severity == severity.Error {
			diffs = append(diffs, fmt.Sprintf("native note %s: %s", n.Path, n.Message))
		}
	}
	xmd, _ := p.xr["metadata"].(map[string]any)
	both := 0
	nat := map[string]map[string]any{}
	for _, r := range native.Resources {
		if r.Object != nil {
			nat[r.Name] = plain(t, r.Object)
		}
	}
	for name, r := range real.Desired.Resources {
		n, ok := nat[name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: composed by the function only", name))
			continue
		}
		delete(nat, name)
		both++
		got := plain(t, r.Object)
		setAsideMetadata(t, name, n, got, xmd)
		if !reflect.DeepEqual(n, got) {
			a, _ := json.MarshalIndent(n, "", "  ")
			b, _ := json.MarshalIndent(got, "", "  ")
			diffs = append(diffs, fmt.Sprintf("%s differs:\n--- native\n%s\n--- function\n%s", name, a, b))
		}
	}
	for name := range nat {
		diffs = append(diffs, fmt.Sprintf("%s: rendered natively only", name))
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "\n"), both
}

// plain puts an object through the protocol's encoding, as both sides
// reach Crossplane that way (whole numbers become int64).
func plain(t *testing.T, m map[string]any) map[string]any {
	s, err := functions.ToStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return functions.FromStruct(s)
}

// setAsideMetadata removes from the native object what Crossplane's
// reconciler adds after the pipeline (and the function therefore does not
// return), checking each value is exactly Crossplane's, unless the
// function's output has the same field (the template set it).
func setAsideMetadata(t *testing.T, name string, native, real map[string]any, xmd map[string]any) {
	t.Helper()
	md, _ := native["metadata"].(map[string]any)
	rmd, _ := real["metadata"].(map[string]any)
	xname, _ := xmd["name"].(string)
	check := func(what string, got, want any) {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: native %s = %v, want Crossplane's %v", name, what, got, want)
		}
	}
	if _, ok := rmd["generateName"]; !ok {
		if v, ok := md["generateName"]; ok {
			check("generateName", v, xname+"-")
			delete(md, "generateName")
		}
	}
	if _, ok := rmd["namespace"]; !ok {
		if v, ok := md["namespace"]; ok {
			check("namespace", v, xmd["namespace"])
			delete(md, "namespace")
		}
	}
	if _, ok := rmd["ownerReferences"]; !ok {
		if v, ok := md["ownerReferences"].([]any); ok {
			check("owner reference name", v[0].(map[string]any)["name"], xname)
			delete(md, "ownerReferences")
		}
	}
	rl, _ := rmd["labels"].(map[string]any)
	if l, ok := md["labels"].(map[string]any); ok {
		for _, k := range []string{"crossplane.io/composite", "crossplane.io/claim-name", "crossplane.io/claim-namespace"} {
			if _, inReal := rl[k]; !inReal {
				if v, ok := l[k]; ok {
					if k == "crossplane.io/composite" {
						check("composite label", v, xname)
					}
					delete(l, k)
				}
			}
		}
		if len(l) == 0 && rl == nil {
			delete(md, "labels")
		}
	}
	ra, _ := rmd["annotations"].(map[string]any)
	if a, ok := md["annotations"].(map[string]any); ok {
		if _, inReal := ra["crossplane.io/composition-resource-name"]; !inReal {
			if v, ok := a["crossplane.io/composition-resource-name"]; ok {
				check("composition-resource-name", v, name)
				delete(a, "crossplane.io/composition-resource-name")
			}
		}
		if len(a) == 0 && ra == nil {
			delete(md, "annotations")
		}
	}
	if len(md) == 0 && rmd == nil {
		delete(native, "metadata")
	}
}
