package lsp_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// BenchmarkComposedFlood: a real function (the test function) composes N
// ConfigMaps that each fail validation (CRD_LSP_FLOOD_N, default 35,000:
// about the most whose answer fits gRPC's 4 MiB; beyond it the step fails
// with ResourceExhausted, a clean finding). It reports the time from
// didOpen to the capped diagnostics (analysis-ms), the first hover sent
// right after the didOpen, answered while the analysis runs (hover-ms),
// the process's heap (heap-MiB, in-process server) and shutdown's time.
//
//	go test ./internal/lsp -run '^$' -bench ComposedFlood -benchtime 1x
func BenchmarkComposedFlood(b *testing.B) {
	n := 35000
	if v, err := strconv.Atoi(os.Getenv("CRD_LSP_FLOOD_N")); err == nil && v > 0 {
		n = v
	}
	bin := fntest.TestFunction(b)
	var text strings.Builder
	text.WriteString(`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: flood
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XApp
  mode: Pipeline
  pipeline:
  - step: flood
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      compose:
`)
	for i := range n {
		fmt.Fprintf(&text, "      - {name: c%d, resource: {apiVersion: v1, kind: ConfigMap, data: {a: 1}}}\n", i)
	}
	var analysis, hover, shutdown time.Duration
	var heap uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := copyPipelineTB(b)
		e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": bin}}})
		e.AwaitSchemas(60 * time.Second)
		b.StartTimer()
		start := time.Now()
		e.Open("flood.yaml", text.String())
		h := time.Now()
		e.Hover("examples/xr.yaml", 0, 2)
		hover = max(hover, time.Since(h))
		e.Await("the flood's diagnostics", 300*time.Second, func() bool { return len(e.Diagnostics("flood.yaml")) > 0 })
		analysis = max(analysis, time.Since(start))
		b.StopTimer()
		b.Logf("%d diagnostics, the first: %s", len(e.Diagnostics("flood.yaml")), lsptest.Message(e.Diagnostics("flood.yaml")[0]))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapSys)
		s := time.Now()
		if err := e.Shutdown(); err != nil {
			b.Fatal(err)
		}
		shutdown = max(shutdown, time.Since(s))
	}
	b.ReportMetric(float64(analysis.Milliseconds()), "analysis-ms")
	b.ReportMetric(float64(hover.Milliseconds()), "hover-ms")
	b.ReportMetric(float64(heap>>20), "heap-MiB")
	b.ReportMetric(float64(shutdown.Milliseconds()), "shutdown-ms")
}
