// This file makes text a function returns safe to print (Escape).

package functions

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes text from a function (its results, conditions and output)
// safe to print: control characters (C0 but newlines when keepNewlines and
// tabs, DEL, C1), line and paragraph separators and bidirectional
// overrides are written as Go escapes (\x1b, \r, \u202e), and bytes that
// are not UTF-8 as \xNN, so that no terminal is recoloured or cleared and
// no line is forged; other text is unchanged.
func Escape(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if needsEscape(r, keepNewlines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !needsEscape(r, keepNewlines):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, keepNewlines bool) bool {
	switch {
	case r == '\t', r == '\n' && keepNewlines:
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == utf8.RuneError:
		return true
	case r == 0x2028, r == 0x2029, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
