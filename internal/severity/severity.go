// Package severity is the one severity scale of crd-lsp's findings, from
// the schema validator to the LSP diagnostic: LSP's numbering (Error 1 to
// Hint 4), zero meaning "none" (a setting that silences a finding).
package severity

import "strings"

// Severity of a finding.
type Severity int

const (
	Error Severity = iota + 1
	Warning
	Info
	Hint
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return "none"
}

// Parse reads a severity as settings and flags spell it: error, warning
// (warn), info (information) or hint, in any case.
func Parse(s string) (Severity, bool) {
	switch strings.ToLower(s) {
	case "error":
		return Error, true
	case "warning", "warn":
		return Warning, true
	case "info", "information":
		return Info, true
	case "hint":
		return Hint, true
	}
	return 0, false
}
