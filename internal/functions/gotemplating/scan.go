// This file finds a template's actions as text/template's lexer does, without
// parsing, for positions and block structure.

package gotemplating

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A token of an action, with its offsets in the template.
type token struct {
	start, end int
	kind       tokenKind
	text       string
}

type tokenKind int

const (
	tokIdent  tokenKind = iota // if, range, printf, …
	tokField                   // .a.b
	tokDot                     // .
	tokVar                     // $x, $
	tokString                  // "…", `…`, '…'
	tokNumber
	tokPunct // ( ) , | = :=
	tokBad   // a character no action may hold
)

// action is one {{ … }} of a template.
type action struct {
	start int // at the left delimiter
	end   int // after the right delimiter; -1 when unclosed
	// comment: {{/* … */}}
	comment bool
	tokens  []token
	// problem is a lexical problem found in the action (an unterminated
	// string, a bad character, an unclosed comment), at [pstart, pend).
	problem      string
	pstart, pend int
}

// keyword returns the action's first word when it opens or closes a
// block: if, range, with, define, block, else or end.
func (a action) keyword() string {
	if len(a.tokens) > 0 && a.tokens[0].kind == tokIdent {
		switch w := a.tokens[0].text; w {
		case "if", "range", "with", "define", "block", "else", "end":
			return w
		}
	}
	return ""
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// scan finds the actions of a template the way text/template's lexer
// does (delimiters, trim markers, comments, quoted strings, raw strings
// across lines), to position what the parser reports by line only.
func scan(text, left, right string) []action {
	var out []action
	i := 0
	for {
		j := strings.Index(text[i:], left)
		if j < 0 {
			return out
		}
		a := action{start: i + j, end: -1}
		p := a.start + len(left)
		if p+1 < len(text) && text[p] == '-' && isSpace(text[p+1]) {
			p += 2 // left trim marker
		}
		p = a.scanBody(text, p, right)
		out = append(out, a)
		if a.end < 0 {
			return out
		}
		i = max(a.end, p)
	}
}

// rightAt says whether the action closes at p (with or without the " -"
// trim marker before the delimiter) and where it ends.
func rightAt(text string, p int, right string) (int, bool) {
	if strings.HasPrefix(text[p:], right) {
		return p + len(right), true
	}
	if p > 0 && isSpace(text[p-1]) && strings.HasPrefix(text[p:], "-"+right) {
		return p + 1 + len(right), true
	}
	return 0, false
}

func (a *action) fail(msg string, start, end int) {
	if a.problem == "" {
		a.problem, a.pstart, a.pend = msg, start, end
	}
}

func (a *action) scanBody(text string, p int, right string) int {
	if strings.HasPrefix(text[p:], "/*") {
		a.comment = true
		k := strings.Index(text[p+2:], "*/")
		if k < 0 {
			a.fail("unclosed comment", p, len(text))
			return len(text)
		}
		e := p + 2 + k + 2
		switch {
		case strings.HasPrefix(text[e:], right):
			a.end = e + len(right)
		case e+2 <= len(text) && isSpace(text[e]) && text[e+1] == '-' && strings.HasPrefix(text[e+2:], right):
			a.end = e + 2 + len(right)
		default:
			a.fail("comment ends before closing delimiter", p, e)
			return e
		}
		return a.end
	}
	for p < len(text) {
		c := text[p]
		if end, ok := rightAt(text, p, right); ok {
			a.end = end
			return end
		}
		switch {
		case isSpace(c):
			p++
		case c == '"' || c == '\'':
			e := p + 1
			for e < len(text) && text[e] != c && text[e] != '\n' {
				if text[e] == '\\' {
					e++
				}
				e++
			}
			if e >= len(text) || text[e] != c {
				msg := "unterminated quoted string"
				if c == '\'' {
					msg = "unterminated character constant"
				}
				a.fail(msg, p, min(e, len(text)))
				a.tokens = append(a.tokens, token{p, min(e, len(text)), tokString, text[p:min(e, len(text))]})
				p = min(e, len(text))
				continue
			}
			a.tokens = append(a.tokens, token{p, e + 1, tokString, text[p : e+1]})
			p = e + 1
		case c == '`':
			k := strings.IndexByte(text[p+1:], '`')
			if k < 0 {
				a.fail("unterminated raw quoted string", p, len(text))
				return len(text)
			}
			a.tokens = append(a.tokens, token{p, p + 2 + k, tokString, text[p : p+2+k]})
			p += 2 + k
		case c >= '0' && c <= '9' || (c == '-' || c == '+' || c == '.') && p+1 < len(text) && text[p+1] >= '0' && text[p+1] <= '9':
			e := p + 1
			for e < len(text) && (isAlnum(text[e]) || text[e] == '.' || (text[e] == '-' || text[e] == '+') && (text[e-1] == 'e' || text[e-1] == 'E' || text[e-1] == 'p' || text[e-1] == 'P')) {
				e++
			}
			a.tokens = append(a.tokens, token{p, e, tokNumber, text[p:e]})
			p = e
		case c == '.':
			e := p + 1
			for e < len(text) && (isAlnum(text[e]) || text[e] == '.') {
				e++
			}
			kind := tokField
			if e == p+1 {
				kind = tokDot
			}
			a.tokens = append(a.tokens, token{p, e, kind, text[p:e]})
			p = e
		case c == '$':
			e := p + 1
			for e < len(text) && isAlnum(text[e]) {
				e++
			}
			a.tokens = append(a.tokens, token{p, e, tokVar, text[p:e]})
			p = e
		case c == ':' && p+1 < len(text) && text[p+1] == '=':
			a.tokens = append(a.tokens, token{p, p + 2, tokPunct, ":="})
			p += 2
		case strings.IndexByte("(),|=", c) >= 0:
			a.tokens = append(a.tokens, token{p, p + 1, tokPunct, text[p : p+1]})
			p++
		default:
			r, size := utf8.DecodeRuneInString(text[p:])
			if r == '_' || unicode.IsLetter(r) {
				e := p
				for e < len(text) {
					r, size := utf8.DecodeRuneInString(text[e:])
					if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						break
					}
					e += size
				}
				a.tokens = append(a.tokens, token{p, e, tokIdent, text[p:e]})
				p = e
				continue
			}
			a.tokens = append(a.tokens, token{p, p + size, tokBad, text[p : p+size]})
			a.fail("unrecognized character in action", p, p+size)
			p += size
		}
	}
	a.fail("unclosed action", a.start, len(text))
	return len(text)
}

func isAlnum(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}
