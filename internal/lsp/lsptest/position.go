// This file converts between byte columns and LSP characters in each position
// encoding, for tests.

package lsptest

import "unicode/utf8"

// Position encodings as negotiated in initialize (protocol.PositionEncodingKind values).
const (
	UTF8  = "utf-8"
	UTF16 = "utf-16"
	UTF32 = "utf-32"
)

// CharColumn converts a byte column of line (its text without the line
// break) to an LSP character offset in encoding enc ("" means utf-16). A
// byte column inside a character counts from that character's start;
// columns past the end of the line keep counting one per byte.
func CharColumn(line string, byteCol int, enc string) int {
	if enc == UTF8 {
		return byteCol
	}
	units, i := 0, 0
	for i < len(line) && i < byteCol {
		r, size := utf8.DecodeRuneInString(line[i:])
		if i+size > byteCol {
			break
		}
		units += unitLen(r, size, enc)
		i += size
	}
	if byteCol > len(line) {
		units += byteCol - len(line)
	}
	return units
}

// ByteColumn converts an LSP character offset in encoding enc ("" means
// utf-16) to a byte column of line. An offset that falls inside a surrogate
// pair maps to the start of its character; offsets past the end of the line
// keep counting one byte per unit, so a mismatch stays visible.
func ByteColumn(line string, char int, enc string) int {
	if enc == UTF8 {
		return char
	}
	units, i := 0, 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		n := unitLen(r, size, enc)
		if units+n > char {
			return i
		}
		units += n
		i += size
	}
	return len(line) + char - units
}

// unitLen is how many code units of enc a decoded rune occupies. Invalid
// bytes (size 1, RuneError) count as one unit.
func unitLen(r rune, size int, enc string) int {
	if enc == UTF32 || (r == utf8.RuneError && size == 1) {
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}
