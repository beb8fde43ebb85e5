// This file defines File and Doc and Parse: the text cut into YAML documents,
// each parsed on its own; Object decodes a document as kubectl would send it.

package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// File is one version of a text, split into its YAML documents. It is
// immutable: nothing may modify it, its Text or its nodes after Parse.
type File struct {
	URI     string
	Version int32
	Text    []byte // never modified after Parse
	Mapper  *Mapper
	Docs    []*Doc // every YAML document, in order; at least one

	bom     int                 // length of a leading byte-order mark (0 or 3)
	spans   map[*yaml.Node]Span // NodeSpan of every node, computed at Parse
	runes   map[int][]int32     // rune start offsets of long non-ASCII lines, during Parse
	parsing bool                // Parse is running: caches may be written
	// notParsed is set when the text was over a limit (see ParseWithin).
	notParsed *LimitHit
}

// Doc is one YAML document of a File.
type Doc struct {
	File  *File // back pointer (read-only)
	Index int
	// Span is the document's text: from the start of its first line (its
	// "---" marker, or comments before it, included) to the start of the
	// next document (a "..." marker line is included). The Docs' Spans
	// cover the File's text in order, without gaps or overlaps.
	Span Span
	// Root is the document's content node, usually a MappingNode; nil when
	// the document is empty or has a syntax error. Node.Line is the 1-based
	// line in the File; Node.Column is yaml.v3's 1-based column in code
	// points. Use File.NodeSpan for byte positions.
	Root *yaml.Node
	// Errors are the document's syntax errors (at most one: yaml.v3 stops
	// at the first) and its duplicate mapping keys.
	Errors []Error

	firstLine int // 0-based line of the File where the document starts
	// keys indexes the document's large mappings on first lookup (see
	// keyIndexes).
	keys atomic.Pointer[keyIndexes]
}

// Error is a positioned problem in the YAML text.
type Error struct {
	Span    Span
	Message string // without yaml.v3's "yaml: line N:" prefix
	// Duplicate marks a repeated mapping key (not a syntax error: kubectl
	// keeps the last value).
	Duplicate bool
}

func (e Error) String() string {
	return fmt.Sprintf("%d-%d: %s", e.Span.Start, e.Span.End, e.Message)
}

var yamlErrRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?((?s).*)$`)

// Parse splits text into YAML documents and parses each one separately, so
// that a syntax error in one leaves the others usable. It never fails and
// never panics; problems are Errors inside the Docs. text must not be
// modified afterwards.
func Parse(uri string, version int32, text []byte) *File {
	return ParseWithin(uri, version, text, Limits{}, nil)
}

// splitDocuments cuts the text at document markers. A line that is "---",
// or starts with "--- " or "---\t", starts a document; a line that is
// "..." (trailing blanks allowed) ends one. Comments, blank lines and
// directives before a "---" belong to the document it starts. The result
// has at least one span, and the spans cover the text without overlaps.
func (f *File) splitDocuments() []Span {
	m := f.Mapper
	var out []Span
	start := 0
	content := false // the current document has a marker or content
	for l := 0; l < m.LineCount(); l++ {
		ls, le := m.LineStart(l), m.LineEnd(l)
		if l == 0 {
			ls += f.bom
		}
		line := f.Text[min(ls, le):le]
		switch {
		case isDocStart(line):
			if content {
				out = append(out, Span{start, m.LineStart(l)})
				start = m.LineStart(l)
			}
			content = true
		case isDocEnd(line):
			start0 := start
			start = len(f.Text)
			if l+1 < m.LineCount() {
				start = m.LineStart(l + 1)
			}
			out = append(out, Span{start0, start})
			content = false
		default:
			if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] != '#' && t[0] != '%' {
				content = true
			}
		}
	}
	if content || len(out) == 0 {
		out = append(out, Span{start, len(f.Text)})
	} else {
		// Only blanks and comments after the last "...": they belong to it.
		out[len(out)-1].End = len(f.Text)
	}
	return out
}

func isDocStart(line []byte) bool {
	return bytes.HasPrefix(line, []byte("---")) && (len(line) == 3 || line[3] == ' ' || line[3] == '\t')
}

func isDocEnd(line []byte) bool {
	return bytes.Equal(bytes.TrimRight(line, " \t"), []byte("..."))
}

// unmarshal runs yaml.v3 on a document's text (see withoutBOM), turning
// a panic into an error.
func unmarshal(src []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal parser error: %v", r)
		}
	}()
	src, _ = withoutBOM(src)
	return yaml.Unmarshal(src, n)
}

// withoutBOM removes a byte-order mark at the start of the line after a
// document's "---" marker, where kubectl accepts one: its reader cuts the
// stream at marker lines and decodes each part as a stream of its own,
// which may start with a BOM. yaml.v3 and sigs.k8s.io/yaml would read the
// mark as part of the first key ("\ufeffapiVersion"). bomLine is the
// 0-based line of src the mark was on, -1 when there was none.
func withoutBOM(src []byte) (out []byte, bomLine int) {
	line := 0
	for i := 0; i < len(src); line++ {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			return src, -1
		}
		next := i + end + 1
		if isDocStart(bytes.TrimRight(src[i:i+end], "\r")) {
			if bytes.HasPrefix(src[next:], []byte("\ufeff")) {
				return append(src[:next:next], src[next+3:]...), line + 1
			}
			return src, -1
		}
		if t := bytes.TrimLeft(src[i:i+end], " \t"); len(t) > 0 && t[0] != '#' && t[0] != '%' {
			return src, -1 // content before any marker
		}
		i = next
	}
	return src, -1
}

// parseSpan parses the document's span of the file's text (its byte-order
// mark left out).
func (d *Doc) parseSpan(text []byte) {
	from := d.Span.Start
	if from == 0 {
		from = d.File.bom
	}
	d.parse(text[from:max(from, d.Span.End)])
}

func (d *Doc) parse(src []byte) {
	var n yaml.Node
	if err := unmarshal(src, &n); err != nil {
		d.Errors = append(d.Errors, d.syntaxError(src, err))
		return
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return
	}
	if c := n.Content[0]; c.Kind == yaml.ScalarNode && c.Tag == "!!null" && c.Value == "" && c.Anchor == "" && c.Style&yaml.TaggedStyle == 0 {
		return // nothing written: an empty document
	}
	d.Root = n.Content[0]
	if _, bl := withoutBOM(src); bl >= 0 {
		d.shiftBOMLine(d.Root, bl+1)
	}
	d.rebase(d.Root)
	d.File.indexSpans(d.Root, d.Span.End, -1)
	d.checkDuplicates(d.Root)
}

// shiftBOMLine moves the nodes yaml.v3 placed on line (1-based, relative
// to the document) one code point right: the byte-order mark withoutBOM
// removed from the start of that line is a code point of the text.
func (d *Doc) shiftBOMLine(root *yaml.Node, line int) {
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.Line == line {
			n.Column++
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
}

// rebase makes node lines absolute within the File (yaml.v3 counts from
// the document's first line).
func (d *Doc) rebase(root *yaml.Node) {
	if d.firstLine == 0 {
		return // the file's first document: its lines are the file's
	}
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		n.Line += d.firstLine
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
}

// syntaxError positions a yaml.v3 error. yaml.v3 reports only a line, and
// often the line where the enclosing construct started rather than the
// offending one (it prefers the parser's context mark). The offending line
// is taken to be the last line of the shortest prefix of whole lines that
// already fails with the same message; the Error spans that line from its
// first non-blank character to its end. Blank and comment lines are
// skipped backwards, to the content the user would recognise. Within the
// line, the Error starts at the character whose inclusion makes the line
// fail the same way, for scanner errors ("found ...") where that is not
// the line's last one (the '@' of "a: @x", the '"' of an unterminated
// string), and at the offending tab for tab errors.
func (d *Doc) syntaxError(src []byte, err error) Error {
	msg, line := err.Error(), 0
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		msg = m[2]
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
			line--
		}
	}
	lines := splitLines(src)
	fails := func(prefix []byte) bool {
		var n yaml.Node
		perr := unmarshal(prefix, &n)
		if perr == nil {
			return false
		}
		m := yamlErrRE.FindStringSubmatch(perr.Error())
		return m != nil && m[2] == msg
	}
	// The offending line: the last of the shortest failing prefix (the
	// line yaml.v3 reports can be before or after it). Each probe re-parses
	// a prefix: documents over maxRefine keep the reported line.
	refine := len(src) <= maxRefine
	if refine {
		if k := sort.Search(len(lines), func(k int) bool { return fails(src[:lines[k].End]) }); k < len(lines) {
			line = k
		}
	}
	line = min(max(line, 0), len(lines)-1)
	for line > 0 && isBlankOrComment(src[lines[line].Start:lines[line].End]) {
		line--
	}
	f := d.File
	base := d.Span.Start // src starts here (or after the BOM)
	if base == 0 {
		base = f.bom
	}
	end := min(f.Mapper.LineEnd(d.firstLine+line), base+len(src))
	start := min(base+lines[line].Start, end)
	for start < end && (f.Text[start] == ' ' || f.Text[start] == '\t') {
		start++
	}
	// The offending character: the last of the shortest failing prefix
	// of the line, when that is shorter than the whole line.
	lineText := f.Text[start:end]
	var cuts []int // offsets in lineText after each character
	for i := 0; i < len(lineText); {
		_, size := utf8.DecodeRune(lineText[i:])
		i += size
		cuts = append(cuts, i)
	}
	firstNonBlank := start
	head := src[:start-base]
	if refine && strings.HasPrefix(msg, "found ") { // a scanner error: one bad character
		j := sort.Search(len(cuts), func(j int) bool {
			return fails(append(head[:len(head):len(head)], lineText[:cuts[j]]...))
		})
		if j > 0 && j+1 < len(cuts) {
			start += cuts[j-1]
		}
	}
	if strings.Contains(msg, "tab character") ||
		msg == "found character that cannot start any token" && start == firstNonBlank {
		// Point at the offending tab in the indentation.
		for s := f.Mapper.LineStart(d.firstLine + line); s < start; s++ {
			if f.Text[s] == '\t' {
				start = s
				break
			}
		}
	}
	return Error{Span: Span{start, end}, Message: msg}
}

// splitLines returns the spans of src's lines, terminators included.
func splitLines(src []byte) []Span {
	var out []Span
	start := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			fallthrough
		case '\n':
			out = append(out, Span{start, i + 1})
			start = i + 1
		}
	}
	return append(out, Span{start, len(src)})
}

// maxRefine is the size of document up to which syntax errors are
// positioned by re-parsing (at 25-30 MB/s, about 20 parses of up to 1 MB).
const maxRefine = 1 << 20

func isBlankOrComment(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) == 0 || t[0] == '#'
}

// checkDuplicates reports repeated keys in a mapping, as the API server's
// strict decoding does. Merge keys ("<<") are not keys of the object.
func (d *Doc) checkDuplicates(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && !isMergeKey(k) {
				if first, ok := seen[k.Value]; ok {
					d.Errors = append(d.Errors, Error{
						Span:      d.File.NodeSpan(k),
						Message:   fmt.Sprintf("mapping key %q already defined at line %d, column %d: kubectl keeps the last value, but the API server rejects YAML with duplicate keys", k.Value, first.Line, first.Column),
						Duplicate: true,
					})
				} else {
					seen[k.Value] = k
				}
			}
			d.checkDuplicates(n.Content[i+1])
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			d.checkDuplicates(c)
		}
	}
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag == "!!merge"
}

// DocAt returns the document whose Span contains offset; offsets past the
// end belong to the last document, offsets before the start to the first.
func (f *File) DocAt(offset int) *Doc {
	i := sort.Search(len(f.Docs), func(i int) bool { return offset < f.Docs[i].Span.End })
	return f.Docs[min(i, len(f.Docs)-1)]
}

// ErrSyntax is returned (wrapped) by Object for a document with errors.
var ErrSyntax = errors.New("YAML document has errors")

// Object decodes the document into JSON-compatible values, exactly as
// kubectl does before sending it to the API server: with sigs.k8s.io/yaml
// (strict mode), that is YAML 1.1 rules. Unlike yaml.v3 (YAML 1.2 core
// schema), unquoted yes/no/on/off/y/n and their capitalisations are
// booleans, 0777 is octal, and 1.0 becomes the JSON number 1. Anchors,
// aliases and merge keys are resolved. Non-string keys become strings
// ("1", "true"). Integers are int64, other numbers float64, and the rest
// map[string]any, []any, string, bool or nil. An empty document is nil.
// A document with a syntax error or a duplicate key returns an error
// wrapping ErrSyntax.
func (d *Doc) Object() (v any, err error) {
	if len(d.Errors) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrSyntax, d.Errors[0].Message)
	}
	if d.Root == nil {
		return nil, nil
	}
	if v, ok := d.fastObject(); ok {
		return v, nil
	}
	return d.slowObject()
}

// slowObject is Object for any document: the text decoded again as
// kubectl decodes it.
func (d *Doc) slowObject() (v any, err error) {
	from := d.Span.Start
	if from == 0 {
		from = d.File.bom
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("yaml: internal decoder error: %v", r)
		}
	}()
	src, _ := withoutBOM(d.File.Text[from:max(from, d.Span.End)])
	js, err := sigsyaml.YAMLToJSONStrict(src)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, _ = jsonnum.Normalize(v) // (JSON from YAML holds no number beyond float64)
	return v, nil
}
