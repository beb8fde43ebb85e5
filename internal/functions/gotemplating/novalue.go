// This file records where a run writes "<no value>": text/template prints
// that for an action whose value is missing (a key the data lacks, a nil),
// and function-go-templating passes it on into the manifest as text. The
// function's answer is not changed: a caller that wants the places asks
// through the context (WithNoValue).

package gotemplating

import (
	"context"
	"reflect"
	"strconv"
	"text/template"
	"text/template/parse"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// noValueFn is the function crd-lsp appends to every action that prints
// its value; a template cannot name it (Check parses with the function's
// own names only).
const noValueFn = "crdLspNoValue"

// maxNoValue bounds the places recorded for one run.
const maxNoValue = 20

// NoValue is an action that wrote "<no value>".
type NoValue struct {
	// Offset is where its pipeline starts in Template.Text (text/template's
	// position of the action); Pipe is the pipeline as written.
	Offset int
	Pipe   string
}

// noValues records the actions that printed no value, in the order first
// seen.
type noValues struct {
	at []NoValue
	// pipes are the printing actions' pipelines as parsed (copies that
	// keep the commands written), by offset: worded only when recorded.
	pipes map[int]*parse.PipeNode
	seen  map[int]bool
}

// markNoValue makes every printing action of t (one without a variable
// declaration) pass its value through noValueFn, which hands it back as
// it came and records the action when the value prints as "<no value>"
// (nil, or a nil pointer, as text/template's printableValue decides): the
// output is what it was.
func markNoValue(t *template.Template) *noValues {
	nv := &noValues{pipes: map[int]*parse.PipeNode{}, seen: map[int]bool{}}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		tree := tt.Tree
		var walk func(n parse.Node)
		walk = func(n parse.Node) {
			switch n := n.(type) {
			case *parse.ListNode:
				if n == nil {
					return
				}
				for _, c := range n.Nodes {
					walk(c)
				}
			case *parse.ActionNode:
				if n.Pipe == nil || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) == 0 {
					return
				}
				pos := int(n.Pos)
				orig := *n.Pipe // its Cmds stop before the command appended below
				nv.pipes[pos] = &orig
				id := parse.NewIdentifier(noValueFn).SetTree(tree).SetPos(n.Pos)
				num := &parse.NumberNode{NodeType: parse.NodeNumber, Pos: n.Pos, IsInt: true, Int64: int64(pos), Text: strconv.Itoa(pos)}
				n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id, num}})
			case *parse.IfNode:
				walk(n.List)
				walk(n.ElseList)
			case *parse.RangeNode:
				walk(n.List)
				walk(n.ElseList)
			case *parse.WithNode:
				walk(n.List)
				walk(n.ElseList)
			}
		}
		walk(tt.Root)
	}
	t.Funcs(template.FuncMap{noValueFn: func(pos int, v any) any {
		if v == nil || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil() {
			if !nv.seen[pos] && len(nv.at) < maxNoValue {
				nv.seen[pos] = true
				pipe := ""
				if p := nv.pipes[pos]; p != nil {
					pipe = p.String()
				}
				nv.at = append(nv.at, NoValue{Offset: pos, Pipe: pipe})
			}
		}
		return v
	}})
	return nv
}

func (nv *noValues) places() []NoValue {
	if nv == nil {
		return nil
	}
	return nv.at
}

type noValueKey struct{}

// WithNoValue returns a context under which Native tells report, after
// each run that succeeds, the places its template wrote "<no value>"
// (none: not called).
func WithNoValue(ctx context.Context, report func(st functions.Step, t Template, at []NoValue)) context.Context {
	return context.WithValue(ctx, noValueKey{}, report)
}

// noteNoValue tells the context's reporter about r's places.
func noteNoValue(ctx context.Context, st functions.Step, r Response) {
	if f, ok := ctx.Value(noValueKey{}).(func(functions.Step, Template, []NoValue)); ok && len(r.NoValue) > 0 {
		f(st, r.Template, r.NoValue)
	}
}
