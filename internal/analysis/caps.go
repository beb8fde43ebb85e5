// This file bounds what one file's findings cost to show: a Composition
// whose pipeline returns 100,000 resources, or a function that returns
// 10,000 results with a message of a megabyte each, must not turn into
// 30,000 diagnostics on one line for the editor to draw (and crd-lsp to
// encode) after every keystroke. Both front ends (the LSP publish path and
// `crd-lsp check`) cap through Cap, so they show the same findings.

package analysis

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

const (
	// MaxPerLine is how many findings one line shows; the rest become one
	// summary finding.
	MaxPerLine = 50
	// MaxPerFile is how many findings one file shows (summaries
	// included); the rest become one summary finding.
	MaxPerFile = 1000
	// MaxMessage bounds one finding's message, in bytes.
	MaxMessage = 4 << 10
	// CodeTooMany is the code of a summary finding.
	CodeTooMany = "too-many-findings"
)

// Capper says what Cap needs of a front end's finding type T.
type Capper[T any] struct {
	// Line is the line a finding starts on.
	Line func(T) int
	// Severity is a finding's severity.
	Severity func(T) severity.Severity
	// Summary is the finding that stands for n findings left out, placed
	// where first (the first of them) is, with their gravest severity and
	// the message given.
	Summary func(first T, worst severity.Severity, message string) T
}

// Cap bounds one file's findings: at most MaxPerLine start on any line and
// at most MaxPerFile are kept in all, in the order given. The findings a
// bound leaves out are replaced by one summary finding, where the first of
// them was, with the gravest severity among them (so an error left out
// still fails a check), saying how many there were ("and 29,990 more on
// this line"). Messages are not touched (see TruncateMessage). Findings
// within the bounds come back as they are, in a slice that may be items.
func Cap[T any](items []T, c Capper[T]) []T {
	if len(items) <= MaxPerLine {
		return items
	}
	// How many start on each line, and the gravest of those beyond the
	// line's bound.
	type lineCount struct {
		n     int
		worst severity.Severity
	}
	lines := map[int]*lineCount{}
	for _, it := range items {
		l := c.Line(it)
		lc := lines[l]
		if lc == nil {
			lc = &lineCount{}
			lines[l] = lc
		}
		lc.n++
		if lc.n > MaxPerLine {
			lc.worst = graver(lc.worst, c.Severity(it))
		}
	}
	// weight: how many findings each kept one stands for (a summary more
	// than one).
	out, weight := items[:0:0], []int(nil)
	seen := map[int]int{}
	for _, it := range items {
		l := c.Line(it)
		seen[l]++
		switch k := seen[l]; {
		case k <= MaxPerLine:
			out, weight = append(out, it), append(weight, 1)
		case k == MaxPerLine+1:
			lc := lines[l]
			more := lc.n - MaxPerLine
			msg := fmt.Sprintf("and %s more findings on this line (crd-lsp shows %d per line)", Thousands(more), MaxPerLine)
			out, weight = append(out, c.Summary(it, lc.worst, msg)), append(weight, more)
		}
	}
	if len(out) <= MaxPerFile {
		return out
	}
	keep := MaxPerFile - 1
	more, worst := 0, severity.Severity(0)
	for i := keep; i < len(out); i++ {
		more += weight[i]
		worst = graver(worst, c.Severity(out[i]))
	}
	msg := fmt.Sprintf("and %s more findings in this file (crd-lsp shows %s per file)", Thousands(more), Thousands(MaxPerFile))
	return append(out[:keep:keep], c.Summary(out[keep], worst, msg))
}

// CapDiagnostics is Cap for Diagnostics, with messages truncated
// (TruncateMessage); lineOf gives the line of a byte offset.
func CapDiagnostics(diags []Diagnostic, lineOf func(offset int) int) []Diagnostic {
	capped := Cap(diags, Capper[Diagnostic]{
		Line:     func(d Diagnostic) int { return lineOf(d.Span.Start) },
		Severity: func(d Diagnostic) severity.Severity { return d.Severity },
		Summary: func(first Diagnostic, worst severity.Severity, msg string) Diagnostic {
			return Diagnostic{Span: first.Span, Severity: worst, Code: CodeTooMany, Message: msg}
		},
	})
	shared := len(capped) > 0 && &capped[0] == &diags[0]
	for i, d := range capped {
		if m := TruncateMessage(d.Message); len(m) != len(d.Message) {
			if shared {
				capped, shared = append([]Diagnostic(nil), capped...), false // never write into the caller's slice
			}
			capped[i].Message = m
		}
	}
	return capped
}

// TruncateMessage cuts a message over MaxMessage bytes (at a character
// boundary) and says how much was left out.
func TruncateMessage(m string) string {
	if len(m) <= MaxMessage {
		return m
	}
	n := MaxMessage
	for n > 0 && !utf8.RuneStart(m[n]) {
		n--
	}
	return m[:n] + fmt.Sprintf("… (%s more bytes not shown)", Thousands(len(m)-n))
}

// graver is the graver of two severities (zero: none yet).
func graver(a, b severity.Severity) severity.Severity {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
