// This file finds what a template reads of the request: the field chains
// rooted at the request's data (.observed.composite.resource.spec.…),
// through $ and through variables and with blocks that hold such a chain,
// with the offsets of each field in the template text, so a caller can
// hold them to the schemas of what they read.

package gotemplating

import (
	"strings"
	"text/template"
	"text/template/parse"
)

// Read is one field chain a template reads from the request's data.
type Read struct {
	// Path is the chain from the request's root: observed, composite,
	// resource, spec, parameters, region.
	Path []string
	// Starts and Ends are each field's offsets in the template text
	// (Path[i] is at Starts[i]:Ends[i]); a field that came from a
	// variable or a with block's dot has -1.
	Starts, Ends []int
	// Cond: the chain is tested (if, with, and, or, not): a missing
	// field makes the branch not taken rather than printing <no value>.
	Cond bool
	// Defaulted: the chain is piped into default (or coalesce): a missing
	// field gives the default.
	Defaulted bool
}

// Reads lists the field chains a template reads from the request's data,
// as far as they are plain: the root (.x, $.x), variables assigned a
// plain chain ($xr := .observed.composite.resource, then $xr.spec), and
// with blocks over a plain chain. Anything else (range, index, template
// functions' results) is not followed: a caller says nothing about what
// it cannot see. A template that does not parse reads nothing.
func Reads(t Template) (out []Read) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if Bounds(t.Text, t.Left, t.Right) != nil {
		return nil
	}
	tmpl, err := template.New("manifests").Delims(t.Left, t.Right).Funcs(funcMap()).Parse(t.Text)
	if err != nil || tmpl.Tree == nil {
		return nil
	}
	w := &readWalker{text: t.Text}
	root := scope{dot: &chain{}, vars: map[string]*chain{"$": {}}}
	for _, tr := range tmpl.Templates() {
		if tr.Tree != nil && tr.Tree.Root != nil {
			// Named templates (define) run with whatever dot include
			// passes them: only the main one's dot is the request.
			if tr.Name() == "manifests" {
				w.list(tr.Tree.Root, root)
			}
		}
	}
	return w.out
}

// chain is a position in the request's data: the path from its root
// (nil: not known).
type chain struct{ path []string }

type scope struct {
	dot  *chain            // nil: not a known place
	vars map[string]*chain // variables of plain chains
}

func (s scope) with(dot *chain) scope {
	vars := make(map[string]*chain, len(s.vars))
	for k, v := range s.vars {
		vars[k] = v
	}
	return scope{dot: dot, vars: vars}
}

type readWalker struct {
	text string
	out  []Read
}

func (w *readWalker) list(l *parse.ListNode, sc scope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.node(n, sc)
	}
}

func (w *readWalker) node(n parse.Node, sc scope) {
	switch n := n.(type) {
	case *parse.ActionNode:
		w.pipe(n.Pipe, sc, false)
	case *parse.IfNode:
		w.pipe(n.Pipe, sc, true)
		w.list(n.List, sc.with(sc.dot))
		w.list(n.ElseList, sc.with(sc.dot))
	case *parse.WithNode:
		w.pipe(n.Pipe, sc, true)
		inner := sc.with(w.plain(n.Pipe, sc))
		w.list(n.List, inner)
		w.list(n.ElseList, sc.with(sc.dot))
	case *parse.RangeNode:
		w.pipe(n.Pipe, sc, false)
		w.list(n.List, sc.with(nil)) // the dot is each element: not followed
		w.list(n.ElseList, sc.with(sc.dot))
	case *parse.TemplateNode:
		if n.Pipe != nil {
			w.pipe(n.Pipe, sc, false)
		}
	case *parse.ListNode:
		w.list(n, sc)
	}
}

// plain is the place a pipeline of one plain field chain leads to (nil
// for anything else).
func (w *readWalker) plain(p *parse.PipeNode, sc scope) *chain {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return nil
	}
	base, fields, _ := w.chainOf(p.Cmds[0].Args[0], sc)
	if base == nil {
		return nil
	}
	return &chain{path: append(append([]string(nil), base.path...), fields...)}
}

// conditional are the functions whose arguments are tested rather than
// printed.
var conditional = map[string]bool{"and": true, "or": true, "not": true, "empty": true, "eq": true, "ne": true, "hasKey": true, "ternary": true}

// defaulting are the functions that give a value of their own for a
// missing one.
var defaulting = map[string]bool{"default": true, "coalesce": true}

func (w *readWalker) pipe(p *parse.PipeNode, sc scope, cond bool) {
	if p == nil {
		return
	}
	defaulted := false
	for _, cmd := range p.Cmds {
		if len(cmd.Args) > 0 {
			if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && defaulting[id.Ident] {
				defaulted = true
			}
		}
	}
	for _, cmd := range p.Cmds {
		c := cond
		if len(cmd.Args) > 0 {
			if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && conditional[id.Ident] {
				c = true
			}
		}
		n := len(w.out)
		for _, a := range cmd.Args {
			w.arg(a, sc, c)
		}
		for i := n; i < len(w.out); i++ {
			w.out[i].Defaulted = defaulted
		}
	}
	// $x := plain chain: the variable stands for that place.
	if len(p.Decl) == 1 && len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 {
		name := p.Decl[0].Ident[0]
		if ch := w.plain(p, sc); ch != nil {
			sc.vars[name] = ch
		} else {
			delete(sc.vars, name)
		}
	} else {
		for _, d := range p.Decl {
			delete(sc.vars, d.Ident[0])
		}
	}
}

func (w *readWalker) arg(a parse.Node, sc scope, cond bool) {
	switch a := a.(type) {
	case *parse.PipeNode:
		w.pipe(a, sc, cond)
		return
	case *parse.ChainNode:
		if p, ok := a.Node.(*parse.PipeNode); ok {
			w.pipe(p, sc, cond)
		}
		return
	}
	base, fields, starts := w.chainOf(a, sc)
	if base == nil || len(fields) == 0 {
		return
	}
	r := Read{Cond: cond}
	for range base.path {
		r.Starts, r.Ends = append(r.Starts, -1), append(r.Ends, -1)
	}
	r.Path = append(append([]string(nil), base.path...), fields...)
	for i, f := range fields {
		r.Starts, r.Ends = append(r.Starts, starts[i]), append(r.Ends, starts[i]+len(f))
	}
	w.out = append(w.out, r)
}

// chainOf reads a field chain: the place it starts from and its fields,
// each field's offset in the text (of the name, after its dot).
func (w *readWalker) chainOf(n parse.Node, sc scope) (*chain, []string, []int) {
	switch n := n.(type) {
	case *parse.FieldNode:
		if sc.dot == nil {
			return nil, nil, nil
		}
		return sc.dot, n.Ident, w.offsets(int(n.Pos), n.Ident, n.String())
	case *parse.VariableNode:
		base, ok := sc.vars[n.Ident[0]]
		if !ok || len(n.Ident) < 2 {
			return nil, nil, nil
		}
		return base, n.Ident[1:], w.offsets(int(n.Pos), n.Ident[1:], n.String())
	}
	return nil, nil, nil
}

// offsets finds each field's name in the node's text at pos.
func (w *readWalker) offsets(pos int, fields []string, written string) []int {
	out := make([]int, len(fields))
	// The parser's Pos falls inside the chain (a field node's position is
	// that of its last token but one): the chain is the occurrence of
	// its text that covers it.
	at := -1
	if pos >= 0 && pos <= len(w.text) {
		at = strings.LastIndex(w.text[:min(len(w.text), pos+len(written))], written)
		if at >= 0 && at+len(written) < pos {
			at = -1
		}
	}
	if at < 0 {
		for i := range out {
			out[i] = -1
		}
		return out
	}
	seg := w.text[at : at+len(written)]
	from := 0
	for i, f := range fields {
		j := strings.Index(seg[from:], "."+f)
		if j < 0 {
			out[i] = -1
			continue
		}
		out[i] = at + from + j + 1
		from += j + 1 + len(f)
	}
	return out
}
