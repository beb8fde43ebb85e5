// This file finds what a template reads from the request it runs on, without
// running it: the field chains of its actions (.observed.composite.resource.spec.x,
// $xr.spec.x after $xr := .observed.composite.resource, fields inside a with or
// a range over a known value, index with literal keys, getCompositeResource and
// getComposedResource), each as keys from the request's root with their place
// in the template, and how the template uses the value (printed, tested,
// passed to a function), so that a caller holding the schemas can say which
// reads find nothing. What it cannot follow (a variable assigned in a branch,
// the data of a define'd template, a computed key) it leaves out: a read is
// returned only when its root is certain.

package gotemplating

import (
	"strings"
	"text/template"
	"text/template/parse"
)

// Use says what a template does with a value it reads.
type Use int

const (
	// UsePrinted: written into the output ({{ .a.b }}).
	UsePrinted Use = iota
	// UseCondition: the whole condition of an if ({{ if .a.b }}).
	UseCondition
	// UseWith: the value of a with.
	UseWith
	// UseRange: the value a range iterates over.
	UseRange
	// UseArgument: an argument of a function (Read.Func), piped or not.
	UseArgument
	// UseAssigned: assigned to a variable (Read.Var).
	UseAssigned
	// UseValue: used otherwise (a field of it read further, an argument
	// of a template call).
	UseValue
)

// Key is one key of a path into the request.
type Key struct {
	// Name is a field's name or an index's literal string key; "" with
	// Elem.
	Name string
	// Elem: any element of a list or value of a map (range, index by a
	// number).
	Elem bool
	// Start and End are where the key is written in Template.Text (the
	// field's name after its dot, or the quoted key of index); -1 when it
	// is not written in the read's own chain.
	Start, End int
}

// Read is one value a template reads.
type Read struct {
	// Path is the value's keys from the request's root ("observed",
	// "composite", "resource", "spec", …).
	Path []Key
	// Written is the index in Path of the first key this read writes;
	// those before it come from dot, a variable or a function's result,
	// and are reported (if at all) where they are written.
	Written int
	Use     Use
	// Func is the function for UseArgument; Var the variable for
	// UseAssigned.
	Func, Var string
	// Start and End are the read's chain in Template.Text.
	Start, End int
}

// Keys returns the names of p's keys ("" for elements).
func Keys(p []Key) []string {
	out := make([]string, len(p))
	for i, k := range p {
		out[i] = k.Name
	}
	return out
}

// value is what a template value stands for: known when it is a place in
// the request (path from its root), unknown otherwise.
type value struct {
	path  []Key
	known bool
}

var unknown = value{}

func (v value) child(k ...Key) value {
	if !v.known {
		return unknown
	}
	p := make([]Key, 0, len(v.path)+len(k))
	return value{path: append(append(p, v.path...), k...), known: true}
}

// scope holds the variables of a block.
type scope struct {
	vars map[string]value
	up   *scope
}

func (s *scope) lookup(name string) value {
	for c := s; c != nil; c = c.up {
		if v, ok := c.vars[name]; ok {
			return v
		}
	}
	return unknown
}

func (s *scope) declare(name string, v value) {
	if s.vars == nil {
		s.vars = map[string]value{}
	}
	s.vars[name] = v
}

// assign sets a variable where it is declared; a value assigned inside a
// block may or may not be there after it, so the variable is unknown from
// then on wherever it is not the block's own.
func (s *scope) assign(name string, v value) {
	for c := s; c != nil; c = c.up {
		if _, ok := c.vars[name]; ok {
			if c == s {
				c.vars[name] = v
			} else {
				c.vars[name] = unknown
			}
			return
		}
	}
}

// reader walks a parsed template.
type reader struct {
	text  string
	reads []Read
	// probe: the value of the first action at or after this offset is
	// kept in probed (completion's question: what is this chain?).
	probe  int
	probed *value
}

// parseTree parses text as the function does (name, delimiters, its
// function names); nil when it does not parse or Bounds refuses it.
func parseTree(text, left, right string) *template.Template {
	if Bounds(text, left, right) != nil {
		return nil
	}
	var tpl *template.Template
	func() {
		defer func() {
			if recover() != nil {
				tpl = nil
			}
		}()
		t, err := template.New("manifests").Delims(left, right).Funcs(funcMap()).Parse(text)
		if err == nil {
			tpl = t
		}
	}()
	return tpl
}

// Reads returns what a template reads from the request whose root it
// certainly knows (nil when it does not parse): in the main template, dot
// and $ are the request; inside a with or a range over a known value, dot
// is that value (an element of it for range); variables hold what they
// were declared with until they are assigned in another block. The
// data of define'd templates is not known.
func Reads(t Template) []Read {
	tpl := parseTree(t.Text, t.Left, t.Right)
	if tpl == nil {
		return nil
	}
	r := &reader{text: t.Text, probe: -1}
	r.all(tpl)
	return r.reads
}

func (r *reader) all(tpl *template.Template) {
	for _, tt := range tpl.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		if tt.Name() == "manifests" {
			root := value{known: true}
			sc := &scope{}
			sc.declare("$", root)
			r.list(tt.Root, root, sc)
			continue
		}
		sc := &scope{}
		sc.declare("$", unknown)
		r.list(tt.Root, unknown, sc)
	}
}

func (r *reader) list(l *parse.ListNode, dot value, sc *scope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		r.node(n, dot, sc)
	}
}

func (r *reader) node(n parse.Node, dot value, sc *scope) {
	switch n := n.(type) {
	case *parse.ActionNode:
		use := UsePrinted
		if len(n.Pipe.Decl) > 0 {
			use = UseAssigned
		}
		v := r.pipe(n.Pipe, dot, sc, use)
		if r.probe >= 0 && r.probed == nil && int(n.Pos) >= r.probe {
			r.probed = &v
		}
		r.bind(n.Pipe, v, sc)
	case *parse.IfNode:
		inner := &scope{up: sc}
		v := r.pipe(n.Pipe, dot, inner, UseCondition)
		r.bind(n.Pipe, v, inner)
		r.list(n.List, dot, inner)
		r.list(n.ElseList, dot, &scope{up: sc})
	case *parse.WithNode:
		inner := &scope{up: sc}
		v := r.pipe(n.Pipe, dot, inner, UseWith)
		r.bind(n.Pipe, v, inner)
		r.list(n.List, v, inner)
		r.list(n.ElseList, dot, &scope{up: sc})
	case *parse.RangeNode:
		inner := &scope{up: sc}
		v := r.pipe(n.Pipe, dot, inner, UseRange)
		elem := v.child(Key{Elem: true, Start: -1, End: -1})
		switch len(n.Pipe.Decl) {
		case 1:
			inner.declare(n.Pipe.Decl[0].Ident[0], elem)
		case 2:
			inner.declare(n.Pipe.Decl[0].Ident[0], unknown)
			inner.declare(n.Pipe.Decl[1].Ident[0], elem)
		}
		r.list(n.List, elem, inner)
		r.list(n.ElseList, dot, &scope{up: sc})
	case *parse.TemplateNode:
		if n.Pipe != nil {
			r.pipe(n.Pipe, dot, sc, UseValue)
		}
	case *parse.ListNode:
		r.list(n, dot, sc)
	}
}

// bind declares or assigns a pipeline's variable (not range's: its
// variables are the elements').
func (r *reader) bind(p *parse.PipeNode, v value, sc *scope) {
	if p == nil || len(p.Decl) != 1 || len(p.Decl[0].Ident) != 1 {
		for _, d := range p.Decl {
			if len(d.Ident) > 0 {
				sc.assign(d.Ident[0], unknown)
				sc.declare(d.Ident[0], unknown)
			}
		}
		return
	}
	name := p.Decl[0].Ident[0]
	if p.IsAssign {
		sc.assign(name, v)
		return
	}
	sc.declare(name, v)
}

// pipe evaluates a pipeline: each command's value is the last argument
// of the next, so the values piped on are arguments of its function.
func (r *reader) pipe(p *parse.PipeNode, dot value, sc *scope, use Use) value {
	if p == nil {
		return unknown
	}
	v := unknown
	for i, c := range p.Cmds {
		u, fn := use, ""
		if i+1 < len(p.Cmds) {
			u, fn = UseArgument, funcName(p.Cmds[i+1])
		}
		if use == UseAssigned && i+1 == len(p.Cmds) && len(p.Decl) == 1 && len(p.Decl[0].Ident) == 1 {
			fn = p.Decl[0].Ident[0]
		}
		v = r.command(c, dot, sc, u, fn)
	}
	return v
}

func funcName(c *parse.CommandNode) string {
	if len(c.Args) > 0 {
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
			return id.Ident
		}
	}
	return ""
}

func (r *reader) command(c *parse.CommandNode, dot value, sc *scope, use Use, fn string) value {
	if len(c.Args) == 0 {
		return unknown
	}
	id, isFunc := c.Args[0].(*parse.IdentifierNode)
	if !isFunc {
		if len(c.Args) == 1 {
			return r.arg(c.Args[0], dot, sc, use, fn)
		}
		for _, a := range c.Args[1:] {
			r.arg(a, dot, sc, UseValue, "")
		}
		return unknown
	}
	name := id.Ident
	args := make([]value, len(c.Args)-1)
	for i, a := range c.Args[1:] {
		u := UseArgument
		if name == "index" && i == 0 {
			u = UseValue // index reads further: the read is index's own
		}
		args[i] = r.arg(a, dot, sc, u, name)
	}
	switch name {
	case "getCompositeResource":
		if len(args) == 1 && isRoot(args[0]) {
			return value{path: []Key{unwritten("observed"), unwritten("composite"), unwritten("resource")}, known: true}
		}
	case "getComposedResource":
		if len(args) == 2 && isRoot(args[0]) {
			if s, ok := c.Args[2].(*parse.StringNode); ok {
				return value{path: []Key{unwritten("observed"), unwritten("resources"), {Name: s.Text, Start: int(s.Pos), End: int(s.Pos) + len(s.Quoted)}, unwritten("resource")}, known: true}
			}
		}
	case "index":
		if len(args) < 2 || !args[0].known {
			return unknown
		}
		v := args[0]
		written := len(v.path)
		for _, a := range c.Args[2:] {
			switch a := a.(type) {
			case *parse.StringNode:
				v = v.child(Key{Name: a.Text, Start: int(a.Pos), End: int(a.Pos) + len(a.Quoted)})
			case *parse.NumberNode:
				v = v.child(Key{Elem: true, Start: int(a.Pos), End: int(a.Pos) + len(a.Text)})
			default:
				return unknown
			}
		}
		end := c.Args[len(c.Args)-1]
		r.record(v, written, use, fn, int(id.Pos), int(end.Position())+nodeLen(end))
		return v
	}
	return unknown
}

func nodeLen(n parse.Node) int {
	switch n := n.(type) {
	case *parse.StringNode:
		return len(n.Quoted)
	case *parse.NumberNode:
		return len(n.Text)
	}
	return 0
}

func unwritten(name string) Key { return Key{Name: name, Start: -1, End: -1} }

func isRoot(v value) bool { return v.known && len(v.path) == 0 }

// arg evaluates one operand, recording the read it makes.
func (r *reader) arg(n parse.Node, dot value, sc *scope, use Use, fn string) value {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		start := int(n.Pos)
		if len(n.Ident) > 1 {
			start -= len(n.Ident[0]) + 1 // text/template places a chain at its second field
		}
		return r.chain(dot, n.Ident, start, use, fn)
	case *parse.VariableNode:
		base := sc.lookup(n.Ident[0])
		if len(n.Ident) == 1 {
			return base
		}
		start := int(n.Pos) // at the first field
		return r.chain(base, n.Ident[1:], start, use, fn)
	case *parse.ChainNode:
		var base value
		switch b := n.Node.(type) {
		case *parse.PipeNode:
			base = r.pipe(b, dot, sc, UseValue)
		default:
			base = r.arg(b, dot, sc, UseValue, "")
		}
		return r.chain(base, n.Field, int(n.Pos), use, fn)
	case *parse.PipeNode:
		return r.pipe(n, dot, sc, use)
	}
	return unknown
}

// chain reads fields (written from start, each after its dot) of base.
func (r *reader) chain(base value, fields []string, start int, use Use, fn string) value {
	if !base.known {
		return unknown
	}
	// The fields as written: ".a.b.c" from start.
	want := "." + strings.Join(fields, ".")
	if start < 0 || start+len(want) > len(r.text) || r.text[start:start+len(want)] != want {
		return unknown // not where the parser says: say nothing
	}
	keys := make([]Key, len(fields))
	off := start
	for i, f := range fields {
		keys[i] = Key{Name: f, Start: off + 1, End: off + 1 + len(f)}
		off += 1 + len(f)
	}
	v := base.child(keys...)
	r.record(v, len(base.path), use, fn, start, start+len(want))
	return v
}

func (r *reader) record(v value, written int, use Use, fn string, start, end int) {
	if r.probe >= 0 {
		return
	}
	rd := Read{Path: v.path, Written: written, Use: use, Start: start, End: end}
	switch use {
	case UseArgument:
		rd.Func = fn
	case UseAssigned:
		rd.Var = fn
	}
	r.reads = append(r.reads, rd)
}

// ChainAt says what the field chain being typed at off (inside an action,
// after a dot: ".observed.composite.resource.spec.re", "$xr.") reads: the
// path of the value its last dot applies to, and the partial name after
// it, which starts at from. ok is false when the cursor is elsewhere or
// the chain's root is not known there.
func ChainAt(t Template, off int) (base []Key, partial string, from int, ok bool) {
	text := t.Text
	if off < 0 || off > len(text) {
		return nil, "", 0, false
	}
	var act *action
	acts := scan(text, t.Left, t.Right)
	for i := range acts {
		a := &acts[i]
		if a.start+len(t.Left) <= off && (a.end < 0 || off <= a.end-len(t.Right)) {
			act = a
			break
		}
	}
	if act == nil || act.comment {
		return nil, "", 0, false
	}
	start := off
	for start > 0 && (isAlnum(text[start-1]) || text[start-1] == '.' || text[start-1] == '$') && text[start-1] < 0x80 {
		start--
	}
	if start > 0 && text[start-1] == ')' {
		return nil, "", 0, false // a field of a parenthesised pipeline
	}
	chain := text[start:off]
	dot := strings.LastIndexByte(chain, '.')
	if dot < 0 || (chain[0] != '.' && chain[0] != '$') || strings.Contains(chain, "..") {
		return nil, "", 0, false
	}
	partial, from = chain[dot+1:], start+dot+1
	head := chain[:dot]
	if head == "" {
		head = "."
	}
	// What precedes the action, the chain alone in an action of its own,
	// and an end for each block left open: dot and the variables there.
	probe := text[:act.start]
	depth := 0
	for _, a := range acts {
		if a.start >= act.start {
			break
		}
		switch a.keyword() {
		case "if", "range", "with", "define", "block":
			depth++
		case "end":
			depth--
		}
	}
	src := probe + t.Left + " " + head + " " + t.Right + strings.Repeat(t.Left+" end "+t.Right, max(depth, 0))
	tpl := parseTree(src, t.Left, t.Right)
	if tpl == nil {
		return nil, "", 0, false
	}
	r := &reader{text: src, probe: len(probe)}
	r.all(tpl)
	if r.probed == nil || !r.probed.known {
		return nil, "", 0, false
	}
	return r.probed.path, partial, from, true
}
