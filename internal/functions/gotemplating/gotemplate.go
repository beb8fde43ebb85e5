// Package gotemplating is crd-lsp's function-go-templating: it checks function-go-templating inline templates
// without running anything: it parses them as the function does
// (text/template named "manifests", its delimiters, sprig's functions but
// env and expandenv, and the function's own), reports a syntax error at
// its exact offset in the template, and splits the template into its
// "---" documents, telling which are plain YAML (no actions), so that they
// can be validated against their kind.
//
// Offsets are byte offsets in Template.Text, the template as the function
// sees it (inline.template, or inline.templates joined with "\n---\n");
// Template.Locate maps one back to the input string it came from, and
// internal/document's ValueOffsets maps an offset in that string to the
// file. Invariants: pure functions of the input map; never panics.
package gotemplating

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

// Template is a GoTemplate input's inline template.
type Template struct {
	// Text is the template the function parses.
	Text string
	// Left and Right are the delimiters ("{{" and "}}" unless the input
	// sets both delims.left and delims.right, as the function requires).
	Left, Right string
	// Parts are the input strings Text is made of.
	Parts []Part
	// Source is "Inline" (also when empty), "FileSystem" (Parts are
	// files) or "Environment" (the one Part is the environment's value).
	Source string
}

// Part is one input string of a Template.
type Part struct {
	// Index is the position in inline.templates; -1 for inline.template.
	Index int
	// Start and End are its offsets in Text.
	Start, End int
	// File is the path of a FileSystem source's file, relative to its
	// folder ("" for other sources).
	File string
}

// Locate returns the part holding Text offset off and the offset in that
// part's string (ok is false for the "\n---\n" joining two parts).
func (t Template) Locate(off int) (Part, int, bool) {
	for _, p := range t.Parts {
		if off >= p.Start && off <= p.End {
			return p, off - p.Start, true
		}
	}
	return Part{}, 0, false
}

// FromInput reads a function-go-templating step input (apiVersion
// gotemplating.fn.crossplane.io/*, kind GoTemplate) with source Inline.
// ok is false for other inputs and sources (FileSystem, Environment),
// whose templates are not in the Composition.
func FromInput(in map[string]any) (Template, bool) {
	av, _ := in["apiVersion"].(string)
	if !strings.HasPrefix(av, "gotemplating.fn.crossplane.io/") || in["kind"] != "GoTemplate" {
		return Template{}, false
	}
	return inlineTemplate(in)
}

// inlineTemplate is an Inline source's template, whatever the input's
// apiVersion and kind (the function never reads them).
func inlineTemplate(in map[string]any) (Template, bool) {
	if in["source"] != "Inline" {
		return Template{}, false
	}
	inline, _ := in["inline"].(map[string]any)
	t := Template{Left: "{{", Right: "}}"}
	if d, ok := in["delims"].(map[string]any); ok {
		l, lok := d["left"].(string)
		r, rok := d["right"].(string)
		if lok && rok { // the function ignores one delimiter alone
			if l != "" {
				t.Left = l
			}
			if r != "" {
				t.Right = r
			}
		}
	}
	if s, _ := inline["template"].(string); s != "" {
		t.Text = s
		t.Parts = []Part{{Index: -1, Start: 0, End: len(s)}}
		return t, true
	}
	list, ok := inline["templates"].([]any)
	if !ok {
		return Template{}, false
	}
	var b strings.Builder
	for i, v := range list {
		s, _ := v.(string)
		if i > 0 {
			b.WriteString("\n---\n")
		}
		t.Parts = append(t.Parts, Part{Index: i, Start: b.Len(), End: b.Len() + len(s)})
		b.WriteString(s)
	}
	t.Text = b.String()
	return t, true
}

// Problem is a syntax error of a template.
type Problem struct {
	Start, End int // in Template.Text
	Message    string
	// Limit: the template was refused by one of crd-lsp's limits
	// (Bounds), not by the function's parser.
	Limit bool
}

var (
	funcsOnce sync.Once
	funcs     template.FuncMap
)

// funcMap has every function name the function's templates may call;
// parsing only checks that a name exists.
func funcMap() template.FuncMap {
	funcsOnce.Do(func() {
		funcs = template.FuncMap{}
		stub := func(...any) any { return nil }
		for _, n := range sprigFunctions {
			funcs[n] = stub
		}
		for _, n := range ownFunctions {
			funcs[n] = stub
		}
	})
	return funcs
}

var errLine = regexp.MustCompile(`^template: manifests:(\d+): `)
var nameRef = regexp.MustCompile(`manifests:(\d+)`)

// Check parses the template as function-go-templating does and returns
// its syntax error (text/template stops at the first), positioned at the
// token, action or block it is about.
func Check(t Template) (problems []Problem) {
	defer func() {
		if r := recover(); r != nil {
			problems = []Problem{{Message: fmt.Sprintf("cannot check the template: %v", r)}}
		}
	}()
	if le := Bounds(t.Text, t.Left, t.Right); le != nil {
		p := Problem{Message: le.Message, Limit: true}
		if le.Offset >= 0 {
			p.Start, p.End = le.Offset, min(le.Offset+len(t.Left), len(t.Text))
		}
		return []Problem{p}
	}
	_, err := template.New("manifests").Delims(t.Left, t.Right).Funcs(funcMap()).Parse(t.Text)
	if err != nil {
		return []Problem{problem(t, err.Error())}
	}
	return nil
}

func problem(t Template, raw string) Problem {
	line := 0
	msg := raw
	if m := errLine.FindStringSubmatch(raw); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = raw[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "template: ")
	msg = nameRef.ReplaceAllString(msg, "line $1")
	start, end := locate(t, scan(t.Text, t.Left, t.Right), line, msg)
	return Problem{Start: start, End: end, Message: msg}
}

// lineSpan returns the offsets of 1-based line n of text (without its
// line break).
func lineSpan(text string, n int) (int, int) {
	start := 0
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text[start:], '\n')
		if j < 0 {
			return len(text), len(text)
		}
		start += j + 1
	}
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		return start, len(text)
	}
	return start, start + end
}

var (
	reNotDefined = regexp.MustCompile(`^function "(.*)" not defined`)
	reUndefVar   = regexp.MustCompile(`^undefined variable "(.*)"`)
	reBadNumber  = regexp.MustCompile(`^bad number syntax: "(.*)"`)
	reUnexpected = regexp.MustCompile(`^(?:unexpected|expected end; found) (<[^>]*>|"(?:[^"\\]|\\.)*"(?:\.\.\.)?|\S+)`)
	reAfterTerm  = regexp.MustCompile(`^unexpected \. after term "(.*)"`)
	reMalformed  = regexp.MustCompile(`^malformed character constant: (.*)$`)
)

// locate finds what a parse error reported on a line is about.
func locate(t Template, acts []action, line int, msg string) (int, int) {
	text := t.Text
	ls, le := lineSpan(text, max(line, 1))
	onLine := func(pred func(tok token) bool) (int, int, bool) {
		for _, a := range acts {
			for _, tok := range a.tokens {
				if tok.start >= ls && tok.start <= le && pred(tok) {
					return tok.start, tok.end, true
				}
			}
		}
		return 0, 0, false
	}
	// Lexical problems: the scanner saw them too, at their exact place.
	for _, a := range acts {
		if a.problem != "" && strings.HasPrefix(msg, a.problem) {
			end := a.pend
			if a.problem == "unclosed action" {
				_, end = lineSpan(text, lineOf(text, a.start))
			}
			return a.pstart, end
		}
	}
	if m := reNotDefined.FindStringSubmatch(msg); m != nil {
		if s, e, ok := onLine(func(tok token) bool { return tok.kind == tokIdent && tok.text == m[1] }); ok {
			return s, e
		}
	}
	if m := reUndefVar.FindStringSubmatch(msg); m != nil {
		if s, e, ok := onLine(func(tok token) bool { return tok.kind == tokVar && tok.text == m[1] }); ok {
			return s, e
		}
	}
	if m := reBadNumber.FindStringSubmatch(msg); m != nil {
		if s, _, ok := onLine(func(tok token) bool { return tok.kind == tokNumber && strings.HasPrefix(tok.text, m[1]) }); ok {
			return s, s + len(m[1])
		}
	}
	if strings.HasPrefix(msg, "unclosed left paren") || strings.HasPrefix(msg, "unexpected right paren") {
		for _, a := range acts {
			if a.start > le || (a.end >= 0 && a.end < ls) {
				continue
			}
			var open []token
			for _, tok := range a.tokens {
				switch tok.text {
				case "(":
					open = append(open, tok)
				case ")":
					if len(open) == 0 && tok.kind == tokPunct {
						return tok.start, tok.end
					}
					if len(open) > 0 {
						open = open[:len(open)-1]
					}
				}
			}
			if len(open) > 0 && strings.HasPrefix(msg, "unclosed") {
				return open[len(open)-1].start, open[len(open)-1].end
			}
		}
	}
	if m := reMalformed.FindStringSubmatch(msg); m != nil {
		if s, e, ok := onLine(func(tok token) bool { return tok.kind == tokString && tok.text == m[1] }); ok {
			return s, e
		}
	}
	if strings.HasPrefix(msg, "unexpected EOF") {
		// A block left open: the last opener without its end.
		var stack []action
		for _, a := range acts {
			switch a.keyword() {
			case "if", "range", "with", "define", "block":
				stack = append(stack, a)
			case "end":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		}
		if n := len(stack); n > 0 {
			return stack[n-1].start, stack[n-1].end
		}
		return len(text), len(text)
	}
	if strings.HasPrefix(msg, "unexpected {{end}}") || strings.HasPrefix(msg, "unexpected {{else}}") {
		kw := "end"
		if strings.Contains(msg, "{{else}}") {
			kw = "else"
		}
		for _, a := range acts {
			if a.start >= ls && a.start <= le && a.keyword() == kw {
				return a.start, a.end
			}
		}
	}
	if m := reAfterTerm.FindStringSubmatch(msg); m != nil {
		if s, _, ok := onLine(func(tok token) bool {
			return tok.kind == tokField && tok.start > 0 && !isSpace(text[tok.start-1])
		}); ok {
			return s, s + 1
		}
	}
	if m := reUnexpected.FindStringSubmatch(msg); m != nil {
		want := m[1]
		truncated := strings.HasSuffix(want, "...")
		want = strings.TrimSuffix(want, "...")
		switch {
		case strings.HasPrefix(want, "<") && strings.HasSuffix(want, ">"):
			want = want[1 : len(want)-1]
		case strings.HasPrefix(want, `"`):
			if u, err := strconv.Unquote(want); err == nil {
				want = u
			} else if truncated {
				// %.10q cut the quoted text: compare what is left.
				want = strings.TrimPrefix(want, `"`)
				if u, err := strconv.Unquote(`"` + want + `"`); err == nil {
					want = u
				}
			}
		}
		if s, e, ok := onLine(func(tok token) bool {
			return tok.text == want || (truncated && strings.HasPrefix(tok.text, want))
		}); ok {
			return s, e
		}
		if want == "right delim" || want == "EOF" {
			// The action closed (or the text ended) too early: point at the
			// action on the line.
			for _, a := range acts {
				if a.start >= ls && a.start <= le && !a.comment {
					return a.start, max(a.start, min(a.end, le))
				}
			}
		}
	}
	// The first action on the line, else the line's text.
	for _, a := range acts {
		if a.start >= ls && a.start <= le {
			end := a.end
			if end < 0 || end < a.start {
				end = le
			}
			return a.start, end
		}
	}
	s := ls
	for s < le && (text[s] == ' ' || text[s] == '\t') {
		s++
	}
	return s, le
}

func lineOf(text string, off int) int { return 1 + strings.Count(text[:off], "\n") }

// Document is one "---"-separated document of a template.
type Document struct {
	Index int
	// Start and End are its offsets in Template.Text (without the "---"
	// lines around it); Text is that text.
	Start, End int
	Text       string
	// Plain: the document has no action and is not inside a define or
	// block: the function outputs exactly Text (when the blocks around it
	// let it), so it can be validated as YAML against its kind.
	Plain bool
	// APIVersion, Kind and ResourceName (the
	// gotemplating.fn.crossplane.io/composition-resource-name annotation,
	// or setResourceNameAnnotation's argument) when written literally:
	// they match a rendered resource to its template document.
	APIVersion, Kind, ResourceName string
	// Meta: a meta.gotemplating.fn.crossplane.io document (Context,
	// ExtraResources, ClaimConditions, CompositeConnectionDetails), which
	// the function consumes rather than composes.
	Meta bool
}

var (
	reAPIVersion = regexp.MustCompile(`(?m)^apiVersion:[ \t]*["']?([^"'\s#]+)["']?[ \t]*(?:#.*)?$`)
	reKind       = regexp.MustCompile(`(?m)^kind:[ \t]*["']?([^"'\s#]+)["']?[ \t]*(?:#.*)?$`)
	reResName    = regexp.MustCompile(`(?m)gotemplating\.fn\.crossplane\.io/composition-resource-name["']?:[ \t]*["']?([^"'\s#]+)["']?[ \t]*(?:#.*)?$`)
	reSetName    = regexp.MustCompile(`setResourceNameAnnotation[ \t]+"([^"\\]+)"`)
)

// Documents splits a template at its "---" lines (a line starting with
// "---" followed by nothing but white space or a comment, as the YAML
// reader the function decodes with splits; lines inside an action do not
// count) and describes each document that holds anything.
func Documents(t Template) []Document {
	text := t.Text
	acts := scan(text, t.Left, t.Right)
	// inAction is asked about increasing offsets: one pass over the
	// actions (sorted, not overlapping) answers them all.
	next := 0
	inAction := func(off int) bool {
		for next < len(acts) {
			end := acts[next].end
			if end < 0 {
				end = len(text)
			}
			if end > off {
				break
			}
			next++
		}
		if next >= len(acts) {
			return false
		}
		end := acts[next].end
		if end < 0 {
			end = len(text)
		}
		return off > acts[next].start && off < end
	}
	type seg struct{ start, end int }
	var segs []seg
	start := 0
	for ls := 0; ls <= len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		next := len(text) + 1
		if le < 0 {
			le = len(text)
		} else {
			le += ls
			next = le + 1
		}
		if l := text[ls:le]; strings.HasPrefix(l, "---") && !inAction(ls) {
			if rest := strings.TrimSpace(l[3:]); rest == "" || rest[0] == '#' {
				segs = append(segs, seg{start, ls})
				start = min(next, len(text))
			}
		}
		ls = next
	}
	segs = append(segs, seg{start, len(text)})
	var out []Document
	var stack []string
	j := 0
	for i, s := range segs {
		d := Document{Index: i, Start: s.start, End: s.end, Text: text[s.start:s.end], Plain: true}
		// The blocks open before the document (one pass over the actions
		// for all documents).
		for ; j < len(acts) && acts[j].start < s.start; j++ {
			switch k := acts[j].keyword(); k {
			case "if", "range", "with", "define", "block":
				stack = append(stack, k)
			case "end":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		}
		hasAction := j < len(acts) && acts[j].start < s.end // comments too: the text holds them
		if hasAction {
			d.Plain = false
		}
		for _, k := range stack {
			if k == "define" || k == "block" {
				d.Plain = false
			}
		}
		if !hasAction && isBlankYAML(d.Text) {
			continue
		}
		delim := func(v string) bool { return !strings.Contains(v, t.Left) }
		if m := reAPIVersion.FindStringSubmatch(d.Text); m != nil && delim(m[1]) {
			d.APIVersion = m[1]
		}
		if m := reKind.FindStringSubmatch(d.Text); m != nil && delim(m[1]) {
			d.Kind = m[1]
		}
		if m := reResName.FindStringSubmatch(d.Text); m != nil && delim(m[1]) {
			d.ResourceName = m[1]
		} else if m := reSetName.FindStringSubmatch(d.Text); m != nil {
			d.ResourceName = m[1]
		}
		d.Meta = strings.HasPrefix(d.APIVersion, "meta.gotemplating.fn.crossplane.io/")
		out = append(out, d)
	}
	return out
}

// isBlankYAML: nothing but white space and comments.
func isBlankYAML(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// Blanked returns Text[start:end] with every action (delimiters and trim
// markers included; an unclosed one up to the end) replaced by spaces,
// line breaks kept: the YAML written around the actions, at the same
// offsets, so that where a literal key of a document is written can be
// found by parsing it.
func (t Template) Blanked(start, end int) string {
	start, end = max(0, min(start, len(t.Text))), max(0, min(end, len(t.Text)))
	if start >= end {
		return ""
	}
	b := []byte(t.Text[start:end])
	for _, a := range scan(t.Text, t.Left, t.Right) {
		ae := a.end
		if ae < 0 {
			ae = len(t.Text)
		}
		for i := max(a.start, start); i < min(ae, end); i++ {
			if c := t.Text[i]; c != '\n' && c != '\r' {
				b[i-start] = ' '
			}
		}
	}
	return string(b)
}
