// Package fieldpath is the one representation of a path into a YAML/JSON
// object used across crd-lsp: document positions, schema errors and
// Crossplane patch fieldPaths all speak it.
//
// The string form follows Crossplane's fieldpath grammar (crossplane-runtime
// pkg/fieldpath): fields are joined by '.', list indices are written [N],
// a field whose name contains a '.' (or is "*") is written in brackets
// (metadata.labels[crossplane.io/claim-name]), and [*] is a wildcard.
//
// Invariant: this package is a leaf; it imports nothing from crd-lsp.
package fieldpath

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a Path: a named field of an object, an index into a
// list, or (only in Crossplane patch paths) a wildcard over all elements.
type Segment struct {
	// Field is the field name when Kind is KindField.
	Field string
	// Index is the list index when Kind is KindIndex.
	Index int
	Kind  Kind
}

// Kind says what a Segment addresses.
type Kind uint8

const (
	KindField Kind = iota
	KindIndex
	KindWildcard
)

// Field returns a field segment.
func Field(name string) Segment { return Segment{Kind: KindField, Field: name} }

// Index returns a list-index segment.
func Index(i int) Segment { return Segment{Kind: KindIndex, Index: i} }

// Wildcard returns the [*] segment.
func Wildcard() Segment { return Segment{Kind: KindWildcard} }

// Path is a sequence of segments from the root of an object. The zero value
// is the root itself. Paths are values: the methods below never modify their
// receiver's backing array.
type Path []Segment

// Child returns p extended by s, never aliasing p's backing array.
func (p Path) Child(s ...Segment) Path {
	out := make(Path, 0, len(p)+len(s))
	out = append(out, p...)
	return append(out, s...)
}

// Parent returns p without its last segment (the root stays the root).
func (p Path) Parent() Path {
	if len(p) == 0 {
		return p
	}
	return p[: len(p)-1 : len(p)-1]
}

// Last returns the last segment and true, or false for the root.
func (p Path) Last() (Segment, bool) {
	if len(p) == 0 {
		return Segment{}, false
	}
	return p[len(p)-1], true
}

// Equal reports whether p and q address the same place.
func (p Path) Equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether q is a prefix of p.
func (p Path) HasPrefix(q Path) bool {
	return len(q) <= len(p) && p[:len(q)].Equal(q)
}

// String renders p in its canonical Crossplane form, e.g.
// spec.resources[2].patches[0].toFieldPath or metadata.labels[crossplane.io/claim-name].
// The root renders as "".
//
// Parse(p.String()) equals p for every path whose field names can be
// written in the grammar at all. Names that cannot are: "*" (the grammar
// reads it as the wildcard), names containing '[' or ']', and names that
// begin or end with a quote character (Crossplane strips those); String
// renders them in brackets as a best effort. Indices must be in 0..2^32-1
// (others read back as field names). An empty name renders as [""].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s.Kind {
		case KindIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case KindWildcard:
			b.WriteString("[*]")
		default:
			switch {
			case s.Field == "":
				b.WriteString(`[""]`)
			case needsBrackets(s.Field):
				b.WriteByte('[')
				b.WriteString(s.Field)
				b.WriteByte(']')
			default:
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s.Field)
			}
		}
	}
	return b.String()
}

// needsBrackets reports whether a field name cannot be written after a '.'
// and must use the [name] form instead. All-digit names need no brackets:
// in the dotted form they are always field names (a.0 is the field "0"),
// while [0] would be an index.
func needsBrackets(f string) bool {
	return f == "*" || strings.ContainsAny(f, ".[]")
}

// SyntaxError is a fieldpath that does not follow the grammar. Offset is
// the byte offset in the parsed string where the problem is, so that a
// caller can place a diagnostic on the exact character.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("fieldpath: %s at offset %d", e.Msg, e.Offset)
}

// maxIndex is the largest bracketed number read as an index; larger ones
// are field names, as in Crossplane (which parses indices as uint32).
const maxIndex = 1<<32 - 1

// Parse reads a path written in Crossplane's fieldpath grammar, accepting
// and rejecting exactly what crossplane-runtime's fieldpath.Parse does:
//
//   - fields are separated by '.'; a path may not start or end with '.',
//     and '.' may not be followed by another '.' or by '['
//   - [x] after a field, an index or at the start is an index when x is an
//     unsigned 32-bit decimal number (leading zeros allowed: [007] is 7),
//     and a field name otherwise, in which '.' is an ordinary character
//     (data[.config.yml]); [] and nested brackets are errors, as is a '['
//     without a ']' or a ']' outside brackets
//   - a field may directly follow a ']' without a '.' (a[0]b is a, 0, b)
//   - quote characters (' and ") at both ends of a field name are stripped,
//     so metadata.annotations['crossplane.io/external-name'] works; there is
//     no escaping
//   - the field name "*" (written [*] or .*) is the wildcard
//   - the empty string is the root (an empty Path)
//
// Errors are *SyntaxError values whose Offset points at the offending byte.
func Parse(s string) (Path, error) {
	var p Path
	i := 0 // start of the current field name
	for j := 0; j < len(s); {
		switch s[j] {
		case ']':
			return nil, &SyntaxError{Offset: j, Msg: "unexpected ']'"}
		case '.':
			p = appendField(p, s[i:j])
			if j == 0 || j == len(s)-1 {
				return nil, &SyntaxError{Offset: j, Msg: "unexpected '.'"}
			}
			switch s[j+1] {
			case '.':
				return nil, &SyntaxError{Offset: j + 1, Msg: "unexpected '.'"}
			case '[':
				return nil, &SyntaxError{Offset: j + 1, Msg: "unexpected '['"}
			}
			j++
			i = j
		case '[':
			p = appendField(p, s[i:j])
			end := strings.IndexByte(s[j+1:], ']')
			if end < 0 {
				return nil, &SyntaxError{Offset: j, Msg: "unterminated '['"}
			}
			if end == 0 {
				return nil, &SyntaxError{Offset: j + 1, Msg: "unexpected ']'"}
			}
			inner := s[j+1 : j+1+end]
			if k := strings.IndexByte(inner, '['); k >= 0 {
				return nil, &SyntaxError{Offset: j + 1 + k, Msg: "unexpected '['"}
			}
			p = append(p, fieldOrIndex(inner))
			j += end + 2
			i = j
		default:
			j++
		}
	}
	return appendField(p, s[i:]), nil
}

// appendField appends the field written as raw, if any was written.
func appendField(p Path, raw string) Path {
	if raw == "" {
		return p
	}
	return append(p, field(raw))
}

// field strips quotes from a written field name and recognises the wildcard.
func field(raw string) Segment {
	name := strings.Trim(raw, `'"`)
	if name == "*" {
		return Wildcard()
	}
	return Field(name)
}

// fieldOrIndex reads what was written between brackets.
func fieldOrIndex(raw string) Segment {
	if n, err := strconv.ParseUint(raw, 10, 32); err == nil && n <= maxIndex {
		return Index(int(n))
	}
	return field(raw)
}
