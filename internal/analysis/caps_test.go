package analysis

import (
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// lineOf100 puts offset o on line o/100.
func lineOf100(o int) int { return o / 100 }

func TestCapDiagnosticsPerLine(t *testing.T) {
	var in []Diagnostic
	for i := range 30_000 { // all on line 0 but the last, on line 1
		sev := severity.Warning
		if i == 29_000 {
			sev = severity.Error // an error beyond the bound is not hidden as a warning
		}
		in = append(in, Diagnostic{Span: document.Span{Start: i % 100}, Severity: sev, Code: "x", Message: "m"})
	}
	in = append(in, Diagnostic{Span: document.Span{Start: 150}, Severity: severity.Info, Code: "y", Message: "other line"})
	out := CapDiagnostics(in, lineOf100)
	if len(out) != MaxPerLine+2 {
		t.Fatalf("%d findings, want %d kept + 1 summary + the other line's", len(out), MaxPerLine)
	}
	sum := out[MaxPerLine]
	if sum.Code != CodeTooMany || sum.Severity != severity.Error || sum.Message != "and 29,950 more findings on this line (crd-lsp shows 50 per line)" || sum.Span.Start != MaxPerLine {
		t.Errorf("summary %+v", sum)
	}
	if out[MaxPerLine+1].Code != "y" {
		t.Errorf("the other line's finding went: %+v", out[MaxPerLine+1])
	}
	if len(in) != 30_001 || in[MaxPerLine].Code != "x" {
		t.Errorf("the input was changed")
	}
}

func TestCapDiagnosticsPerFile(t *testing.T) {
	var in []Diagnostic
	for i := range 5000 { // one per line
		in = append(in, Diagnostic{Span: document.Span{Start: i * 100}, Severity: severity.Info, Code: "x", Message: "m"})
	}
	out := CapDiagnostics(in, lineOf100)
	if len(out) != MaxPerFile {
		t.Fatalf("%d findings, want %d", len(out), MaxPerFile)
	}
	last := out[MaxPerFile-1]
	if last.Code != CodeTooMany || last.Severity != severity.Info || last.Message != "and 4,001 more findings in this file (crd-lsp shows 1,000 per file)" || last.Span.Start != (MaxPerFile-1)*100 {
		t.Errorf("summary %+v", last)
	}
}

// A line summary beyond the file bound counts all it stood for.
func TestCapDiagnosticsBothBounds(t *testing.T) {
	var in []Diagnostic
	for i := range 2000 {
		in = append(in, Diagnostic{Span: document.Span{Start: i * 100}, Severity: severity.Info, Code: "x", Message: "m"})
	}
	for range 300 { // on the last line
		in = append(in, Diagnostic{Span: document.Span{Start: 1999 * 100}, Severity: severity.Warning, Code: "z", Message: "m"})
	}
	out := CapDiagnostics(in, lineOf100)
	last := out[len(out)-1]
	if len(out) != MaxPerFile || last.Severity != severity.Warning || !strings.HasPrefix(last.Message, "and 1,301 more findings in this file") {
		t.Errorf("%d findings, last %+v", len(out), last)
	}
}

func TestTruncateMessage(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // 1 MiB
	got := TruncateMessage(long)
	if len(got) > MaxMessage+64 || !strings.HasSuffix(got, "… (1,044,480 more bytes not shown)") || !strings.HasPrefix(got, "éé") {
		t.Errorf("truncated to %d bytes ending %q", len(got), got[len(got)-60:])
	}
	if s := "short"; TruncateMessage(s) != s {
		t.Error("a short message changed")
	}
	in := []Diagnostic{{Message: long}}
	if out := CapDiagnostics(in, lineOf100); len(out[0].Message) > MaxMessage+64 || in[0].Message != long {
		t.Errorf("CapDiagnostics: %d bytes; input kept: %v", len(out[0].Message), in[0].Message == long)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 29990: "29,990", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
