// This file makes text from outside (file names, messages, function results)
// safe to print: one line, no control characters, for text and JSON output.

package main

import (
	"strconv"
	"unicode/utf8"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// printable makes text from outside (file names, messages quoting what
// files and functions hold) fit one line of text output: control
// characters, newlines included, are escaped as \x1b, \n, …, and bytes
// that are not UTF-8 as \xNN, so that no terminal is recoloured or
// cleared and no "file:line:col: error:" line can be forged.
func printable(s string) string { return functions.Escape(s, false) }

// jsonPath is a file name as JSON output carries it: as it is when it is
// UTF-8, else escaped as a Go string literal's contents (\xNN for the bytes
// that are not UTF-8, \\ for a backslash), with escaped true: JSON strings
// cannot hold such bytes, and replacing them would make the name match no
// file.
func jsonPath(path string) (string, bool) {
	if utf8.ValidString(path) {
		return path, false
	}
	q := strconv.Quote(path)
	return q[1 : len(q)-1], true
}
