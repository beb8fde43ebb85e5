// Package yamlflow writes a value read from YAML (or JSON) back the way a
// user writes it, for messages: YAML flow form ({name: web}, [a, b]),
// never Go's map[name:web] or []interface {}.
//
// Invariant: leaf package; what it writes is one line, at most a bounded
// length (Value), and reads back in YAML as the value it came from (but
// where it is cut with "…").
package yamlflow

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxQuoted bounds a string Value quotes, in bytes; other values are cut
// at 80 bytes too.
const MaxQuoted = 80

// Value is v as a message quotes it: a string quoted (cut at MaxQuoted
// bytes, on a rune boundary, with "…"), null for nil, anything else in
// flow form cut at 80 bytes.
func Value(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > MaxQuoted {
			cut := MaxQuoted
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			return strconv.Quote(v[:cut]) + "…"
		}
		return strconv.Quote(v)
	case nil:
		return "null"
	}
	s := String(v)
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// String renders a value as YAML flow ({name: web}, [a, b]): what the user
// wrote. Strings are quoted unless they read back as the same string;
// keys are sorted; nesting deeper than 8 is written "…".
func String(v any) string { return flow(v, 0) }

func flow(v any, depth int) string {
	if depth > 8 {
		return "…"
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, scalar(k)+": "+flow(v[k], depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			parts = append(parts, flow(e, depth+1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return scalar(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// plain matches strings that YAML reads back as themselves unquoted in
// flow context (no indicators, not a number, bool or null).
var plain = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_./-]*$`)

func scalar(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~":
		return strconv.Quote(s)
	}
	if plain.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}
