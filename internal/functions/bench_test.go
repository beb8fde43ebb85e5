package functions_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
)

func benchRegistry(b *testing.B) *functions.Registry {
	b.Helper()
	reg := functions.New(functions.Config{Executables: map[string]functions.Executable{
		"function-test": {Path: fntest.TestFunction(b)},
		"crossplane-contrib-function-patch-and-transform": {Path: fntest.PatchAndTransform(b)},
	}})
	b.Cleanup(func() { reg.Close() })
	return reg
}

func mustMap(b *testing.B, s string) map[string]any {
	var m map[string]any
	if err := sigsyaml.Unmarshal([]byte(s), &m); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkRunFunctionWarm: one RunFunction round trip to a warm local
// process (the test function composing one resource).
func BenchmarkRunFunctionWarm(b *testing.B) {
	reg := benchRegistry(b)
	st := functions.Step{Name: "s", Function: "function-test", Input: mustMap(b, `{apiVersion: test.crd-lsp.dev/v1, kind: Script, compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap, data: {a: b}}}]}`)}
	in, _ := functions.ToStruct(st.Input)
	xr, _ := functions.ToStruct(mustMap(b, `{apiVersion: example.org/v1, kind: XApp, metadata: {name: app}, spec: {size: 3}}`))
	req := &fnv1.RunFunctionRequest{Input: in, Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: xr}}, Desired: &fnv1.State{}}
	ctx := context.Background()
	if _, err := reg.Run(ctx, st, req); err != nil { // start it
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := reg.Run(ctx, st, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipeline3Steps: a three-step pipeline on warm processes: real
// function-patch-and-transform rendering upbound's configuration-aws-network
// (16 resources), then the test function twice (context passing, an echo
// of the request).
func BenchmarkPipeline3Steps(b *testing.B) {
	reg := benchRegistry(b)
	dir := corpus.Dir(b)
	read := func(rel string) map[string]any {
		text, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			b.Fatal(err)
		}
		v, err := document.Parse(rel, 0, text).Docs[0].Object()
		if err != nil {
			b.Fatal(err)
		}
		return v.(map[string]any)
	}
	comp := read("compositions/upbound-configuration-aws-network/v0.14.0/apis/basic/composition.yaml")
	xr := read("compositions/upbound-configuration-aws-network/v0.14.0/examples/network-xr.yaml")
	spec := comp["spec"].(map[string]any)
	spec["pipeline"] = append(spec["pipeline"].([]any)[:1],
		mustMap(b, `{step: context, functionRef: {name: function-test}, input: {apiVersion: test.crd-lsp.dev/v1, kind: Script, setContext: {a: b}}}`),
		mustMap(b, `{step: echo, functionRef: {name: function-test}, input: {apiVersion: test.crd-lsp.dev/v1, kind: Script, echo: echo}}`))
	in := functions.Input{Composition: comp, XR: xr, Route: reg.Route, Timeout: time.Minute}
	out := functions.Run(context.Background(), in)
	if out.Stopped != -1 || len(out.Desired.Resources) != 17 {
		b.Fatalf("stopped %d, %d resources, runners %q %q %q", out.Stopped, len(out.Desired.Resources), out.Steps[0].Runner, out.Steps[1].Runner, out.Steps[2].Runner)
	}
	for b.Loop() {
		if out := functions.Run(context.Background(), in); out.Stopped != -1 {
			b.Fatal(out.Steps)
		}
	}
}
