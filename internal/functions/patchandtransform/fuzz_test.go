package patchandtransform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fuzztest"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// fromJSON decodes as document.Object does: integers are int64, other
// numbers float64.
func fromJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = conv(e)
			}
		case []any:
			for i, e := range x {
				x[i] = conv(e)
			}
		case json.Number:
			n, err := jsonnum.Number(string(x))
			if err != nil {
				return nil
			}
			return n
		}
		return v
	}
	return conv(v), true
}

// FuzzTransform: a transform never panics, and what it yields is within
// MaxValueSize.
func FuzzTransform(f *testing.F) {
	for _, c := range [][2]string{
		{`{"type":"string","string":{"type":"Replace","replace":{"search":"a","replace":"aaaaaaaaaa"}}}`, `"aaaaaaaaaaaaaaaaaaaa"`},
		{`{"type":"string","string":{"type":"Format","fmt":"%[1]s%[1]s%1000000s"}}`, `"x"`},
		{`{"type":"math","math":{"type":"Multiply","multiply":9223372036854775807}}`, `3`},
		{`{"type":"convert","convert":{"toType":"object","format":"json"}}`, `"{\"a\":[1,2]}"`},
		{`{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"^a(b+)$","result":{"x":1}}],"fallbackTo":"Input"}}`, `"abbb"`},
		{`{"type":"string","string":{"type":"Join","join":{"separator":", "}}}`, `[1,"a",{"b":null}]`},
		{`{"type":"map","map":{"a":[1,2,3]}}`, `"a"`},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(fuzzTransform)
}

func fuzzTransform(t *testing.T, transform, input string) {
	{
		tv, ok := fromJSON(transform)
		m, isMap := tv.(map[string]any)
		if !ok || !isMap {
			return
		}
		in, ok := fromJSON(input)
		if !ok {
			return
		}
		out, err := Transform(m, in)
		if err == nil {
			if err := checkValue("output", out); err != nil {
				t.Fatalf("Transform(%s, %s): %v", transform, input, err)
			}
		}
	}
}

// FuzzRender: rendering never fails inside (a panic would become a
// "rendering failed" note) and never produces an object over
// MaxObjectSize.
func FuzzRender(f *testing.F) {
	f.Add(`{"spec":{"mode":"Pipeline","pipeline":[{"step":"pt","functionRef":{"name":"function-patch-and-transform"},"input":{"apiVersion":"pt.fn.crossplane.io/v1beta1","kind":"Resources","resources":[{"name":"r","base":{"apiVersion":"v1","kind":"ConfigMap","data":{"l":[{"n":"a"},{"n":"b"}]}},"patches":[{"fromFieldPath":"spec.name","toFieldPath":"data.l[*].n","transforms":[{"type":"string","string":{"type":"Format","fmt":"%[1]s-%[1]s"}}]},{"type":"CombineFromComposite","toFieldPath":"data.c","combine":{"strategy":"string","variables":[{"fromFieldPath":"spec.name"},{"fromFieldPath":"metadata.name"}],"string":{"fmt":"%s/%s"}}}]}]}}]}}`,
		`{"apiVersion":"example.org/v1","kind":"XApp","metadata":{"name":"app","namespace":"ns"},"spec":{"name":"web"}}`, true)
	f.Add(`{"spec":{"resources":[{"base":{"apiVersion":"v1","kind":"ConfigMap"},"patches":[{"fromFieldPath":"spec.n","toFieldPath":"data.x[1024]","transforms":[{"type":"math","math":{"multiply":2}}]}]}],"patchSets":[{"name":"p","patches":[{"fromFieldPath":"a"}]}]}}`,
		`{"metadata":{"name":"x"},"spec":{"n":4}}`, false)
	f.Fuzz(fuzzRender)
}

func fuzzRender(t *testing.T, comp, xr string, lenient bool) {
	{
		cv, ok := fromJSON(comp)
		cm, isMap := cv.(map[string]any)
		if !ok || !isMap {
			return
		}
		xv, _ := fromJSON(xr)
		xm, _ := xv.(map[string]any)
		out := Render(Input{Composition: cm, XR: xm, Lenient: lenient})
		for _, n := range out.Notes {
			if strings.Contains(n.Message, "rendering failed") || strings.Contains(n.Message, "rendering this resource failed") {
				t.Fatalf("%s\nwith %s: %s", comp, xr, n.Message)
			}
		}
		for _, r := range out.Resources {
			if s := valueSize(r.Object, MaxObjectSize+1); s > MaxObjectSize+MaxValueSize {
				t.Fatalf("resource %q is %d bytes", r.Name, s)
			}
		}
	}
}

// TestFuzzMutations runs the fuzz targets on mutations of their corpus
// for a bounded time (see internal/fuzztest).
func TestFuzzMutations(t *testing.T) {
	t.Run("FuzzTransform", func(t *testing.T) { fuzztest.Mutate(t, "FuzzTransform", fuzzTransform) })
	t.Run("FuzzRender", func(t *testing.T) { fuzztest.Mutate(t, "FuzzRender", fuzzRender) })
}
