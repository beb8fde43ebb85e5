package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// pipelineBench loads testdata/render/pipeline (P&T, crd-lsp's test
// function, P&T patching what it composed; an XRD, a CRD, an example XR).
func pipelineBench(b *testing.B) (*document.File, Env) {
	b.Helper()
	dir := filepath.Join("..", "..", "testdata", "render", "pipeline")
	read := func(name string) []byte {
		t, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	st, err := workspace.Builtins(2)
	if err != nil {
		b.Fatal(err)
	}
	st = st.WithFiles([]schemas.FileInput{
		{Source: workspace.Source("/ws/xrd.yaml"), Path: "/ws/xrd.yaml", Content: read("xrd.yaml")},
		{Source: workspace.Source("/ws/crd.yaml"), Path: "/ws/crd.yaml", Content: read("crd.yaml")},
	})
	ex, _ := ExampleIn("/ws/examples/xr.yaml", read("examples/xr.yaml"), func(_, k string) bool { return k == "XApp" })
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2, Render: Given(RenderInputs{Examples: func(schemas.GVK) []Example { return []Example{ex} }})}}
	return document.Parse("/ws/composition.yaml", 1, read("composition.yaml")), env
}

func benchPipeline(b *testing.B) (*functions.Registry, *functions.Pipeline) {
	reg := functions.New(functions.Config{Executables: map[string]functions.Executable{"function-test": {Path: fntest.TestFunction(b)}}})
	return reg, &functions.Pipeline{Registry: reg, Timeout: 30 * time.Second}
}

func diagnoseOnce(b *testing.B, f *document.File, env Env, want int) {
	if n := len(Diagnose(context.Background(), f, env)); n != want {
		b.Fatalf("%d diagnostics, want %d", n, want)
	}
}

// BenchmarkDiagnosePipelineWarm is a keystroke's analysis of a Composition
// whose pipeline runs a real function, with the function's process warm:
// the pipeline runs twice (the smallest composite and the example), each
// calling the function once over loopback gRPC.
func BenchmarkDiagnosePipelineWarm(b *testing.B) {
	f, env := pipelineBench(b)
	reg, p := benchPipeline(b)
	defer reg.Close()
	env.Options.Pipeline = p
	diagnoseOnce(b, f, env, 4) // starts the process
	for b.Loop() {
		diagnoseOnce(b, f, env, 4)
	}
}

// BenchmarkDiagnosePipelineNative is the same Composition with no
// function configured: P&T natively, the function's step passed through.
func BenchmarkDiagnosePipelineNative(b *testing.B) {
	f, env := pipelineBench(b)
	for b.Loop() {
		diagnoseOnce(b, f, env, 2)
	}
}

// BenchmarkDiagnosePipelineFirst is the first analysis after the function
// is configured: the Registry starts the function's process (the SDK's
// flags, a loopback port) and waits for its first answer; then it stops.
func BenchmarkDiagnosePipelineFirst(b *testing.B) {
	f, env := pipelineBench(b)
	fntest.TestFunction(b) // built (or found in the cache) before timing
	for b.Loop() {
		reg, p := benchPipeline(b)
		env.Options.Pipeline = p
		diagnoseOnce(b, f, env, 4)
		b.StopTimer()
		reg.Close()
		b.StartTimer()
	}
}
