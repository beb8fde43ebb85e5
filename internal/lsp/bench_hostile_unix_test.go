//go:build unix

package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// BenchmarkHostileInputs drives the crd-lsp binary through the hostile
// inputs of issue 16 — a 30 MB file, 100,000 documents, 9,000 documents
// edited, an 18 KB line of "- " completed, transforms that grow a string,
// a 100,000-value enum, watch events for a pipe, /dev/zero and a 400 MB
// file, odd cancel requests, crdLsp.render of /dev/zero, a schemas.exclude
// full of "**" — and of issue 25 — 10,000 watch events, 3,000 renames, a
// CRD rewritten across schemas.maxFileSize every 10 ms, 30,000 findings
// on one line — and after each asks for a hover on an ordinary file. It
// reports the slowest hover (hover-max-ms), the slowest step
// (step-max-ms) and the server's peak resident memory (peak-rss-MiB), and
// fails when a hover takes a second or the server passes 1 GiB.
//
//	go test ./internal/lsp -run '^$' -bench HostileInputs -benchtime 1x
func BenchmarkHostileInputs(b *testing.B) {
	for i := 0; i < b.N; i++ {
		hostileRun(b)
	}
}

func hostileRun(b *testing.B) {
	dir := b.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("crd.yaml", dbCRD)
	var enum strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&enum, "v%d, ", i)
	}
	write("enum-crd.yaml", strings.Replace(strings.Replace(dbCRD, "[postgres, mysql]", "["+strings.TrimSuffix(enum.String(), ", ")+"]", 1), "databases", "enumdbs", -1))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		b.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		b.Fatal(err)
	}
	huge, err := os.Create(filepath.Join(dir, "huge.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	if err := huge.Truncate(400 << 20); err != nil {
		b.Fatal(err)
	}
	huge.Close()

	b.StopTimer()
	e := lsptest.StartBinary(b, lsptest.Config{Dir: dir, WatchedFiles: true, Settings: map[string]any{
		"schemas": map[string]any{"exclude": []string{strings.Repeat("**/", 30) + "nothing.yaml"}},
	}})
	e.AwaitSchemas(60 * time.Second)
	e.Open("db.yaml", dbObject)
	e.AwaitDiagnostics("db.yaml", 1, 30*time.Second)
	b.StartTimer()

	var hoverMax, stepMax time.Duration
	step := func(name string, run func()) {
		start := time.Now()
		run()
		stepMax = max(stepMax, time.Since(start))
		h0 := time.Now()
		if h := e.Hover("db.yaml", 5, 4); h == nil {
			b.Errorf("after %s: no hover", name)
		}
		took := time.Since(h0)
		hoverMax = max(hoverMax, took)
		if took > time.Second {
			b.Errorf("after %s: hover took %v", name, took)
		}
	}
	docs := func(n int) string {
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  a: \"1\"\n---\n", i)
		}
		return s.String()
	}
	step("a 30 MB file", func() {
		e.Open("big.yaml", strings.Repeat("k: v\n", 6<<20))
		e.AwaitDiagnostics("big.yaml", 1, 30*time.Second)
	})
	step("100,000 documents", func() {
		e.Open("many.yaml", docs(100000))
		e.AwaitDiagnostics("many.yaml", 1, 30*time.Second)
	})
	step("9,000 documents", func() {
		e.Open("ten.yaml", docs(9000))
		e.AwaitDiagnostics("ten.yaml", 1, 60*time.Second)
	})
	step("a keystroke in 9,000 documents", func() {
		e.Edit("ten.yaml", lsptest.Edit{StartLine: 3, StartChar: 9, EndLine: 3, EndChar: 9, Text: "x"})
		e.AwaitDiagnostics("ten.yaml", 2, 30*time.Second)
	})
	step("completion on an 18 KB line of \"- \"", func() {
		e.Open("deep.yaml", strings.Repeat("- ", 9000)+"\n")
		e.AwaitDiagnostics("deep.yaml", 1, 30*time.Second)
		e.Completion("deep.yaml", 0, 18000)
	})
	step("transforms that grow a string", func() {
		e.Open("grow.yaml", growingComposition)
		e.AwaitDiagnostics("grow.yaml", 1, 30*time.Second)
	})
	// issue 25: a go-templating template nested 280,000 deep in a 4.2 MB
	// file (refused before parsing), and five 0.9 MB templates under the
	// limits (parsed, split and rendered).
	step("a go-templating template nested 280,000 deep", func() {
		e.Open("gotpl-deep.yaml", lsptest.GoTemplatingComposition(strings.Repeat("{{if 1}}", 280_000)+"x"+strings.Repeat("{{end}}", 280_000)))
		e.AwaitDiagnostics("gotpl-deep.yaml", 1, 30*time.Second)
	})
	step("five 0.9 MB go-templating templates", func() {
		body := strings.Repeat("{{ if .observed }}{{ .observed.composite.resource.metadata.name | upper | quote }}{{ end }}\n", 9500)
		e.Open("gotpl-wide.yaml", strings.Repeat(lsptest.GoTemplatingComposition(body)+"---\n", 5))
		e.AwaitDiagnostics("gotpl-wide.yaml", 1, 60*time.Second)
	})
	step("a value outside a 100,000-value enum", func() {
		e.Open("enum.yaml", strings.Replace(strings.Replace(dbObject, "Database", "Enumdb", 1), "oracle", "nope", 1))
		e.AwaitDiagnostics("enum.yaml", 1, 30*time.Second)
	})
	step("watch events for a pipe, /dev/zero and a 400 MB file", func() {
		var evs []protocol.FileEvent
		for _, n := range []string{"pipe.yaml", "zero.yaml", "huge.yaml"} {
			evs = append(evs, protocol.FileEvent{URI: uri.File(filepath.Join(dir, n)), Type: protocol.FileChangeTypeChanged})
		}
		if err := e.Server().DidChangeWatchedFiles(context.Background(), &protocol.DidChangeWatchedFilesParams{Changes: evs}); err != nil {
			b.Fatal(err)
		}
	})
	step("odd cancel requests", func() {
		for _, p := range []string{`{"id":null}`, `{"id":1.5}`, `{"id":true}`, `{"id":{}}`, `{"id":9223372036854775808}`} {
			if err := e.Notify("$/cancelRequest", jsonrpc2.RawMessage(p)); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Notify("$/cancelRequest", nil); err != nil {
			b.Fatal(err)
		}
	})
	step("crdLsp.render of /dev/zero", func() {
		arg := func(v any) protocol.LSPAny { j, _ := json.Marshal(v); return j }
		var out string
		_ = e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "crdLsp.render",
			Arguments: []protocol.LSPAny{arg("file:///dev/zero"), arg(0)}}, &out)
	})
	// Issue 25: watch storms (a branch switch, a CRD generator, a file
	// rewritten across schemas.maxFileSize while events arrive every 10
	// ms), and 30,000 findings on one line.
	notify := func(evs []protocol.FileEvent) {
		if err := e.Server().DidChangeWatchedFiles(context.Background(), &protocol.DidChangeWatchedFilesParams{Changes: evs}); err != nil {
			b.Fatal(err)
		}
	}
	step("10,000 watch events", func() {
		var evs []protocol.FileEvent
		for i := range 10000 {
			evs = append(evs, protocol.FileEvent{URI: uri.File(filepath.Join(dir, "gen", fmt.Sprintf("f%05d.yaml", i))), Type: protocol.FileChangeTypeCreated})
		}
		notify(evs)
	})
	step("3,000 renames", func() {
		if err := os.MkdirAll(filepath.Join(dir, "renamed"), 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 3000 {
			write(fmt.Sprintf("renamed/c%04d.yaml", i), fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i))
			notify([]protocol.FileEvent{
				{URI: uri.File(filepath.Join(dir, fmt.Sprintf("c%04d.yaml", i))), Type: protocol.FileChangeTypeDeleted},
				{URI: uri.File(filepath.Join(dir, fmt.Sprintf("renamed/c%04d.yaml", i))), Type: protocol.FileChangeTypeCreated},
			})
		}
	})
	stop := make(chan struct{})
	stormed := make(chan struct{})
	step("a CRD rewritten across schemas.maxFileSize every 10 ms", func() {
		var ub strings.Builder // 9 MiB of objects after the CRD: under the 10 MiB default
		ub.WriteString(dbCRD + "---\n")
		for ub.Len() < 9<<20 {
			ub.WriteString(docs(1))
		}
		under := ub.String()
		over := under + strings.Repeat("# padding\n", 200<<10) // 11 MiB
		crd := filepath.Join(dir, "storm-crd.yaml")
		go func() {
			defer close(stormed)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				text := under
				if i%2 == 1 {
					text = over
				}
				if err := os.WriteFile(crd, []byte(text), 0o644); err != nil {
					return
				}
				_ = e.Server().DidChangeWatchedFiles(context.Background(), &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uri.File(crd), Type: protocol.FileChangeTypeChanged}}})
			}
		}()
		time.Sleep(2 * time.Second) // a benchmark: the hover below runs two seconds into the storm
	})
	close(stop)
	testfixtures.Await(b, stormed, "the CRD rewriter to stop")
	step("30,000 findings on one line", func() {
		var line strings.Builder
		line.WriteString("apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: x\nspec: {engine: postgres")
		for i := range 30000 {
			fmt.Fprintf(&line, ", p%05d: 1", i)
		}
		e.Open("findings.yaml", line.String()+"}\n")
		e.AwaitDiagnostics("findings.yaml", 1, 60*time.Second)
	})
	rss := peakRSS(b, e.PID())
	b.ReportMetric(float64(hoverMax.Microseconds())/1000, "hover-max-ms")
	b.ReportMetric(float64(stepMax.Milliseconds()), "step-max-ms")
	b.ReportMetric(float64(rss>>20), "peak-rss-MiB")
	if rss > 1<<30 {
		b.Errorf("the server's peak resident memory was %d MiB", rss>>20)
	}
}

// peakRSS is a process's peak resident set size (VmHWM), in bytes.
func peakRSS(b *testing.B, pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	b.Skip("no VmHWM in /proc")
	return 0
}

// growingComposition chains Replace and Format transforms that multiply
// a string's length until the render limit stops them.
const growingComposition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: grow
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XGrow}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: grow
        base: {apiVersion: v1, kind: ConfigMap}
        patches:
        - fromFieldPath: metadata.name
          toFieldPath: data.v
          transforms:
          - {type: string, string: {type: Replace, replace: {search: "-", replace: "----------------------------------------------------------------------------------------------------"}}}
          - {type: string, string: {type: Replace, replace: {search: "-", replace: "----------------------------------------------------------------------------------------------------"}}}
          - {type: string, string: {type: Replace, replace: {search: "-", replace: "----------------------------------------------------------------------------------------------------"}}}
          - {type: string, string: {type: Format, fmt: "%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s"}}
---
apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: xgrows.example.org
spec:
  group: example.org
  names: {kind: XGrow, plural: xgrows}
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
---
apiVersion: example.org/v1
kind: XGrow
metadata:
  name: a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p
  namespace: default
`

// BenchmarkEOFWithAnalysesInFlight: the editor opens four files whose
// analysis takes seconds (45,000 unknown fields each) and dies; it reports
// how long the binary takes to exit after its stdin closes (exit-ms),
// which was 14 to 54 s before the stream read ahead of the handlers.
//
//	go test ./internal/lsp -run '^$' -bench EOFWithAnalysesInFlight -benchtime 1x
func BenchmarkEOFWithAnalysesInFlight(b *testing.B) {
	var text strings.Builder
	for d := range 15 {
		fmt.Fprintf(&text, "---\napiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: x%d\nspec:\n  engine: postgres\n", d)
		for i := range 3000 {
			fmt.Fprintf(&text, "  p%05d: {a: 1, b: [1,2,3]}\n", i)
		}
	}
	var worst time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
			b.Fatal(err)
		}
		e := lsptest.StartBinary(b, lsptest.Config{Dir: dir})
		e.AwaitSchemas(60 * time.Second)
		for j := range 4 {
			e.Open(fmt.Sprintf("m%d.yaml", j), text.String())
		}
		b.StartTimer()
		start := time.Now()
		e.CloseStdin()
		e.WaitExit(120 * time.Second)
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Milliseconds()), "exit-ms")
}
