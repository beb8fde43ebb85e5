package lsp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestFunctionFloodIsCapped: a real function composing 2,000 resources
// that each lack a required field, and returning 300 results, puts no more
// than analysis.MaxPerLine findings on its step, plus one summary saying
// how many more there are (an error, as the findings it stands for); a
// result with a message of a megabyte is cut to a few kilobytes.
func TestFunctionFloodIsCapped(t *testing.T) {
	bin := fntest.TestFunction(t)
	dir := copyPipeline(t)
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: flood
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XApp
  mode: Pipeline
  pipeline:
  - step: huge-message
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      results:
      - severity: Warning
        message: "`)
	b.WriteString(strings.Repeat("x", 1<<20))
	b.WriteString(`"
  - step: flood
    functionRef:
      name: function-test
    input:
      apiVersion: test.crd-lsp.dev/v1
      kind: Script
      results:
`)
	for i := range 300 {
		fmt.Fprintf(&b, "      - {severity: Normal, message: result %d}\n", i)
	}
	b.WriteString("      compose:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "      - {name: b%d, resource: {apiVersion: storage.example.org/v1, kind: Bucket, spec: {forProvider: {size: 1}}}}\n", i)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"functions": map[string]any{"function-test": bin}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("flood.yaml", b.String())
	var got []string
	e.Await("the flood step's summary", 120*time.Second, func() bool {
		got = diagLines(e.Diagnostics("flood.yaml"))
		return strings.Contains(strings.Join(got, "\n"), "more findings on this line")
	})
	perLine := map[string]int{}
	var summary, huge string
	for _, l := range got {
		perLine[l[:strings.Index(l, ": ")]]++
		if strings.Contains(l, "[too-many-findings]") {
			summary = l
		}
		if strings.Contains(l, "xxxx") {
			huge = l
		}
	}
	for pos, n := range perLine {
		if n > analysis.MaxPerLine+1 {
			t.Errorf("%d findings at %s, want at most %d and a summary", n, pos, analysis.MaxPerLine)
		}
	}
	// 2,000 resources and 300 results on the step's name, 50 shown.
	if summary != "20:11: error: and 2,250 more findings on this line (crd-lsp shows 50 per line) [too-many-findings]" {
		t.Errorf("summary %q", summary)
	}
	if len(huge) > analysis.MaxMessage+200 || !strings.Contains(huge, "more bytes not shown") {
		t.Errorf("the 1 MiB result is published as %d bytes: %.200q…", len(huge), huge)
	}
}
