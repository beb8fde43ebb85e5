// This file checks a Format transform's or a combine's fmt verbs against the
// arguments P&T passes it.

package composition

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// fmtArgs counts the arguments Go's fmt reads for format (P&T formats a
// combine's variables and a Format string transform's input with
// fmt.Sprintf): verbs and '*' widths and precisions, explicit argument
// indexes ("%[2]s") moving the count. reordered says an explicit index
// was used (fmt then reports no extra arguments).
func fmtArgs(format string) (n int, reordered bool) {
	arg := 0
	use := func() {
		arg++
		n = max(n, arg)
	}
	index := func(i int) int { // reads "[k]" at i, if any; returns the next i
		if i >= len(format) || format[i] != '[' {
			return i
		}
		end := strings.IndexByte(format[i:], ']')
		if end < 0 {
			return i
		}
		if k, err := strconv.Atoi(format[i+1 : i+end]); err == nil && k > 0 {
			arg, reordered = k-1, true
		}
		return i + end + 1
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		i = index(i)
		if i < len(format) && format[i] == '*' {
			use()
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		if i < len(format) && format[i] == '.' {
			i++
			i = index(i)
			if i < len(format) && format[i] == '*' {
				use()
				i++
			}
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
		}
		i = index(i)
		if i >= len(format) {
			break
		}
		if format[i] == '%' {
			continue
		}
		use()
	}
	return n, reordered
}

// fmtMismatch words a format that does not read exactly its arguments:
// fmt.Sprintf then writes "%!v(MISSING)" for each missing one and
// appends "%!(EXTRA …)" for those left over, into the rendered value.
// what names the arguments ("variables", "input").
func fmtMismatch(format string, args int, what string) string {
	n, reordered := fmtArgs(format)
	if args == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	switch {
	case n > args:
		return fmt.Sprintf("fmt %q reads %d values, and there %s only %d %s: the rendered value holds %q in place of each missing one", format, n, isAre(args), args, what, "%!v(MISSING)")
	case n < args && !reordered && n == 0 && what == "input":
		return fmt.Sprintf("fmt %q has no verb for the input: the rendered value is the text with %q appended", format, "%!(EXTRA …)")
	case n < args && !reordered:
		return fmt.Sprintf("fmt %q reads %d of the %d %s: the rendered value ends in %q for the rest", format, n, args, what, "%!(EXTRA …)")
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// combineFormat checks the fmt of a combine's string strategy against its
// variables.
func (c *checker) combineFormat(comb map[string]any, cp fieldpath.Path) {
	if strategy, _ := comb["strategy"].(string); strategy != "string" {
		return
	}
	str, _ := comb["string"].(map[string]any)
	format, ok := str["fmt"].(string)
	vars, _ := comb["variables"].([]any)
	if !ok || len(vars) == 0 {
		return
	}
	if msg := fmtMismatch(format, len(vars), "variables"); msg != "" {
		c.add(cp.Child(fieldpath.Field("string"), fieldpath.Field("fmt")), false, severity.Warning, "composition-patch", msg)
	}
}

// stringFormat checks a Format string transform's fmt against its one
// input.
func (c *checker) stringFormat(tv any, tp fieldpath.Path) {
	t, _ := tv.(map[string]any)
	if typ, _ := t["type"].(string); typ != "string" {
		return
	}
	str, _ := t["string"].(map[string]any)
	typ, _ := str["type"].(string)
	if typ != "Format" && !(typ == "" && c.classic) {
		return
	}
	format, ok := str["fmt"].(string)
	if !ok {
		return
	}
	if msg := fmtMismatch(format, 1, "input"); msg != "" {
		c.add(tp.Child(fieldpath.Field("string"), fieldpath.Field("fmt")), false, severity.Warning, "composition-transform", msg)
	}
}
