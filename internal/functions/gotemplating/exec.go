// This file runs a template with text/template under crd-lsp's budget (steps,
// time, bytes, include depth), with function-go-templating's function map.

package gotemplating

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	sprig "github.com/Masterminds/sprig/v3"
	"gopkg.in/yaml.v3"
)

// run is the state of one template run: its budget (steps, time, bytes
// written, include depth) and the first limit it hit.
type run struct {
	b behaviour
	// at is the offset of the printing action being executed (-1: none),
	// noValue where one printed "<no value>".
	at       int
	noValue  []int
	ctx      context.Context
	deadline time.Time
	steps    int
	written  int
	depth    int // template calls in progress (define'd and main)
	includes int
	limit    *LimitError
}

func (r *run) stop(format string, a ...any) error {
	if r.limit == nil {
		r.limit = &LimitError{Offset: -1, Message: fmt.Sprintf(format, a...)}
	}
	return r.limit
}

// step counts one unit of work and checks the budget.
func (r *run) step() error {
	if r.limit != nil {
		return r.limit
	}
	r.steps++
	if r.steps > MaxSteps {
		return r.stop("the template ran over crd-lsp's limit of %d loop iterations, template calls and function calls", MaxSteps)
	}
	if r.steps%64 == 1 {
		if err := r.ctx.Err(); err != nil {
			return r.stop("rendering the template was cancelled: %v", err)
		}
		if time.Now().After(r.deadline) {
			return r.stop("the templates of this pipeline ran longer than crd-lsp's limit of %s", DefaultTimeout)
		}
	}
	return nil
}

// writer bounds what a run writes, everywhere (the output, and what
// include renders into strings).
type writer struct {
	r   *run
	b   strings.Builder
	max int
}

func (w *writer) Write(p []byte) (int, error) {
	w.r.written += len(p)
	if w.b.Len()+len(p) > w.max || w.r.written > 4*MaxOutput {
		return 0, w.r.stop("the template wrote more than crd-lsp's limit of %s", size(MaxOutput))
	}
	return w.b.Write(p)
}

// Names of the functions crd-lsp adds to count work; a template cannot
// name them (Check parses with the function's own names only).
const (
	enterFn = "crdLspEnter"
	leaveFn = "crdLspLeave"
	stepFn  = "crdLspStep"
)

// funcs is the function map of a run: sprig v3.3.0 less env and
// expandenv, function-go-templating's own functions, include, each
// guarded by the run's budget.
func (r *run) funcs(tpl *template.Template) template.FuncMap {
	m := template.FuncMap{}
	for k, v := range sprig.FuncMap() {
		m[k] = v
	}
	delete(m, "env")
	delete(m, "expandenv")
	// crd-lsp contacts nothing the user did not name: no DNS.
	m["getHostByName"] = func(string) (string, error) {
		return "", errors.New("crd-lsp does not resolve host names when rendering (getHostByName)")
	}
	for k, v := range ownFuncs(r.b) {
		m[k] = v
	}
	m["print"] = fmt.Sprint
	m["printf"] = fmt.Sprintf
	m["println"] = fmt.Sprintln
	for k, v := range m {
		m[k] = r.guard(k, v)
	}
	m["include"] = r.include(tpl)
	m[stepFn] = func() (string, error) { return "", r.step() }
	m[enterFn] = func() (string, error) {
		r.depth++
		if r.depth > MaxTemplateDepth {
			return "", r.stop("template calls nest deeper than crd-lsp's limit of %d", MaxTemplateDepth)
		}
		return "", r.step()
	}
	m[leaveFn] = func() string { r.depth--; return "" }
	return m
}

// include is the function's include (rendering a named template into a
// string, at most 1,000 nested calls per name), with the run's budget:
// nested includes of any names are bounded too.
func (r *run) include(tpl *template.Template) func(string, any) (string, error) {
	names := map[string]int{}
	return func(name string, data any) (string, error) {
		if err := r.step(); err != nil {
			return "", err
		}
		if names[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		if r.includes >= MaxIncludeDepth {
			return "", r.stop("include calls nest deeper than crd-lsp's limit of %d", MaxIncludeDepth)
		}
		names[name]++
		r.includes++
		w := &writer{r: r, max: MaxOutput}
		err := tpl.ExecuteTemplate(w, name, data)
		names[name]--
		r.includes--
		return w.b.String(), err
	}
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// cheap functions only look a value up in what they are given.
var cheap = map[string]bool{
	"getComposedResource": true, "getCompositeResource": true, "getComposedConnectionDetails": true,
	"getExtraResources": true, "getExtraResourcesFromContext": true, "getCredentialData": true,
	"getResourceCondition": true, "hasKey": true, "get": true, "dig": true, "pluck": true, "keys": true,
	"default": true, "empty": true, "coalesce": true, "ternary": true, "kindOf": true, "kindIs": true, "typeOf": true,
	"typeIs": true, "typeIsLike": true, "first": true, "last": true, "has": true, "len": true,
}

// guard wraps a template function: it counts a step, refuses arguments
// that would build a value over MaxValue (checked before the call, from
// the arguments), and results over MaxOutput. A function without an error
// result gets one; text/template treats both alike.
func (r *run) guard(name string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumOut() < 1 || t.NumOut() > 2 {
		return fn
	}
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	out := []reflect.Type{t.Out(0), errorType}
	ft := reflect.FuncOf(in, out, t.IsVariadic())
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		fail := func(err error) []reflect.Value {
			return []reflect.Value{reflect.Zero(t.Out(0)), reflect.ValueOf(&err).Elem()}
		}
		if err := r.step(); err != nil {
			return fail(err)
		}
		if err := r.precheck(name, args, t.IsVariadic()); err != nil {
			return fail(err)
		}
		var res []reflect.Value
		call := func() []reflect.Value {
			if t.IsVariadic() {
				return v.CallSlice(args)
			}
			return v.Call(args)
		}
		if costly[name] {
			var err error
			if res, err = r.callCostly(name, call); err != nil {
				return fail(err)
			}
		} else {
			res = call()
		}
		if len(res) == 2 && !res[1].IsNil() {
			return []reflect.Value{res[0], res[1]}
		}
		if estimate(res[0].Interface(), MaxOutput+1) > MaxOutput {
			return fail(r.stop("%s built a value over crd-lsp's limit of %s", name, size(MaxOutput)))
		}
		return []reflect.Value{res[0], reflect.Zero(errorType)}
	}).Interface()
}

// costly functions take milliseconds to seconds per call, and cannot be
// interrupted: key and certificate generation (sprig's DSA parameters
// take tens of seconds), bcrypt, scrypt.
var costly = map[string]bool{
	"genPrivateKey": true, "genCA": true, "genCAWithKey": true, "genSelfSignedCert": true,
	"genSelfSignedCertWithKey": true, "genSignedCert": true, "genSignedCertWithKey": true,
	"bcrypt": true, "htpasswd": true, "derivePassword": true,
}

// costlySlot admits one costly call at a time, process-wide: a call
// abandoned at a run's deadline goes on in the background, and no more
// than one such call burns a core.
var costlySlot = make(chan struct{}, 1)

// callCostly runs a costly function within the run's deadline and
// context: the run waits for its result, a free slot, or its end,
// whichever comes first, instead of checking its budget only between
// calls.
func (r *run) callCostly(name string, call func() []reflect.Value) ([]reflect.Value, error) {
	timer := time.NewTimer(time.Until(r.deadline))
	defer timer.Stop()
	over := func() error {
		if err := r.ctx.Err(); err != nil {
			return r.stop("rendering the template was cancelled: %v", err)
		}
		return r.stop("the templates of this pipeline ran longer than crd-lsp's limit of %s (in %s)", DefaultTimeout, name)
	}
	if time.Now().After(r.deadline) || r.ctx.Err() != nil {
		return nil, over()
	}
	select {
	case costlySlot <- struct{}{}:
	case <-r.ctx.Done():
		return nil, over()
	case <-timer.C:
		return nil, over()
	}
	type result struct {
		res   []reflect.Value
		panic any
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-costlySlot }()
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p} // as text/template reports a function's panic
			}
		}()
		done <- result{res: call()}
	}()
	select {
	case d := <-done:
		if d.res == nil {
			return nil, fmt.Errorf("error calling %s: %v", name, d.panic)
		}
		return d.res, nil
	case <-r.ctx.Done():
		return nil, over()
	case <-timer.C:
		return nil, over()
	}
}

// maxItems bounds lists a function builds from a count.
const maxItems = 100_000

func argInt(args []reflect.Value, i int) (int, bool) {
	if i >= len(args) {
		return 0, false
	}
	switch v := args[i]; v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int()), true
	case reflect.Interface:
		if v.IsNil() {
			return 0, false
		}
		return argInt([]reflect.Value{v.Elem()}, 0)
	}
	return 0, false
}

func argString(args []reflect.Value, i int) string {
	if i >= len(args) {
		return ""
	}
	v := args[i]
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.String {
		return v.String()
	}
	return ""
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// precheck refuses a call whose result would be over the limits, before
// it is built.
func (r *run) precheck(name string, args []reflect.Value, variadic bool) error {
	too := func(n int) error {
		if n > MaxValue || n < 0 {
			return r.stop("%s would build a value over crd-lsp's limit of %s", name, size(MaxValue))
		}
		return nil
	}
	items := func(n int) error {
		if n > maxItems || n < 0 {
			return r.stop("%s would build a list of over crd-lsp's limit of %d items", name, maxItems)
		}
		return nil
	}
	flat := args
	if variadic && len(args) > 0 {
		last := args[len(args)-1]
		flat = append(append([]reflect.Value{}, args[:len(args)-1]...), make([]reflect.Value, last.Len())...)
		for i := 0; i < last.Len(); i++ {
			flat[len(args)-1+i] = last.Index(i)
		}
	}
	switch name {
	case "repeat":
		n, _ := argInt(flat, 0)
		if n > 0 && len(argString(flat, 1)) > 0 && n > MaxValue/len(argString(flat, 1)) {
			return too(MaxValue + 1)
		}
	case "until":
		n, _ := argInt(flat, 0)
		return items(abs(n))
	case "untilStep":
		start, _ := argInt(flat, 0)
		stop, _ := argInt(flat, 1)
		st, _ := argInt(flat, 2)
		return items(countSteps(start, stop, st))
	case "seq":
		var n int
		switch len(flat) {
		case 1:
			end, _ := argInt(flat, 0)
			n = abs(end-1) + 1
		case 2:
			start, _ := argInt(flat, 0)
			end, _ := argInt(flat, 1)
			n = abs(end-start) + 1
		case 3:
			start, _ := argInt(flat, 0)
			st, _ := argInt(flat, 1)
			end, _ := argInt(flat, 2)
			inc := 1
			if end < start {
				inc = -1
			}
			n = countSteps(start, end+inc, st)
		}
		return items(n)
	case "indent", "nindent":
		n, _ := argInt(flat, 0)
		s := argString(flat, 1)
		if n > 0 && (n > MaxValue || n*(strings.Count(s, "\n")+1) > MaxValue) {
			return too(MaxValue + 1)
		}
		return too(len(s) + max(n, 0)*(strings.Count(s, "\n")+1))
	case "randAlpha", "randAlphaNum", "randAscii", "randNumeric", "randBytes":
		n, _ := argInt(flat, 0)
		return too(abs(n) * 2)
	case "replace":
		old, repl, src := argString(flat, 0), argString(flat, 1), argString(flat, 2)
		k := len(src) + 1
		if old != "" {
			k = strings.Count(src, old)
		}
		if len(repl) > 0 && k > MaxValue/len(repl) {
			return too(MaxValue + 1)
		}
		return too(len(src) + k*len(repl))
	case "regexReplaceAll", "regexReplaceAllLiteral", "mustRegexReplaceAll", "mustRegexReplaceAllLiteral":
		s, repl := argString(flat, 1), argString(flat, 2)
		if len(repl) > 0 && len(s)+1 > MaxValue/len(repl) {
			return too(MaxValue + 1)
		}
	case "wrapWith":
		l, _ := argInt(flat, 0)
		sep, s := argString(flat, 1), argString(flat, 2)
		if len(sep) > 0 && len(s)/max(l, 1)+1 > MaxValue/len(sep) {
			return too(MaxValue + 1)
		}
	case "split", "splitList", "splitn":
		// split(sep, s), splitList(sep, s), splitn(sep, n, s): an empty
		// separator splits at every character.
		s := argString(flat, len(flat)-1)
		if argString(flat, 0) == "" {
			return items(len(s) + 1)
		}
	case "regexSplit", "mustRegexSplit", "regexFindAll", "mustRegexFindAll":
		// (regex, s, n): at most a match per position.
		return items(len(argString(flat, 1)) + 1)
	case "printf":
		return too(len(argString(flat, 0)) + formatWidths(argString(flat, 0)) + estimate(valuesOf(flat[1:]), MaxValue+1))
	case "join":
		n := 0
		if len(flat) > 1 {
			v := flat[1]
			for v.Kind() == reflect.Interface && !v.IsNil() {
				v = v.Elem()
			}
			if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
				n = v.Len()
			}
		}
		if sep := argString(flat, 0); len(sep) > 0 && n > MaxValue/len(sep) {
			return too(MaxValue + 1)
		}
	}
	if cheap[name] {
		return nil
	}
	if estimate(valuesOf(flat), MaxOutput+1) > MaxOutput {
		return r.stop("%s was given values over crd-lsp's limit of %s", name, size(MaxOutput))
	}
	return nil
}

// countSteps is how many values sprig's untilStep(start, stop, step)
// makes; -1 for endless (a zero or wrong-way step it would loop on).
func countSteps(start, stop, step int) int {
	switch {
	case stop == start:
		return 0
	case stop < start && step >= 0, stop > start && step == 0:
		if stop > start {
			return -1
		}
		return 0
	case stop > start && step < 0:
		return -1
	case stop > start:
		return (stop-start)/step + 1
	}
	return (start-stop)/(-step) + 1
}

func valuesOf(vs []reflect.Value) []any {
	out := make([]any, 0, len(vs))
	for _, v := range vs {
		if v.IsValid() && v.CanInterface() {
			out = append(out, v.Interface())
		}
	}
	return out
}

// formatWidths sums the widths and precisions a format asks for.
func formatWidths(f string) int {
	total := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f) && strings.IndexByte("0123456789.+-# *[]", f[i]) >= 0; {
			n := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				n = min(n*10+int(f[i]-'0'), 1<<30)
				i++
			}
			total = min(total+n, 1<<30)
			if i < len(f) && strings.IndexByte(".+-# *[]", f[i]) >= 0 {
				i++
			}
		}
	}
	return total
}

// estimate is roughly how many bytes v would print as, counting shared
// parts as often as they are reached, stopping once over stop.
func estimate(v any, stop int) int {
	n := 0
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if n > stop || depth > 10_000 {
			n = stop + 1
			return
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), depth+1)
			}
		case reflect.String:
			n += v.Len() + 1
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				n += v.Len()
				return
			}
			n += 2
			for i := 0; i < v.Len() && n <= stop; i++ {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			n += 2
			it := v.MapRange()
			for it.Next() && n <= stop {
				walk(it.Key(), depth+1)
				walk(it.Value(), depth+1)
			}
		case reflect.Struct:
			for i := 0; i < v.NumField() && n <= stop; i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), depth+1)
				}
			}
		default:
			n += 8
		}
	}
	if v != nil {
		walk(reflect.ValueOf(v), 0)
	}
	return n
}

// instrument adds the run's counters to a parsed template: a step at the
// start of every range iteration, and an enter/leave around every
// template's body (template calls recurse through it).
func instrument(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		tree := tt.Tree
		call := func(name string, pos parse.Pos, line int) parse.Node {
			id := parse.NewIdentifier(name).SetTree(tree).SetPos(pos)
			cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
			pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Line: line, Cmds: []*parse.CommandNode{cmd}}
			return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Line: line, Pipe: pipe}
		}
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
			case *parse.RangeNode:
				walk(n.List)
				walk(n.ElseList)
				if n.List != nil {
					n.List.Nodes = append([]parse.Node{call(stepFn, n.Pos, n.Line)}, n.List.Nodes...)
				}
			case *parse.IfNode:
				walk(n.List)
				walk(n.ElseList)
			case *parse.WithNode:
				walk(n.List)
				walk(n.ElseList)
			}
		}
		walk(tt.Root)
		pos := tt.Root.Pos
		tt.Root.Nodes = append(append([]parse.Node{call(enterFn, pos, 1)}, tt.Root.Nodes...), call(leaveFn, pos, 1))
	}
}

// ownFuncs are function-go-templating's own template functions
// (function_maps.go) in release b, on the request as the templates see it.
func ownFuncs(b behaviour) template.FuncMap {
	m := template.FuncMap{
		"randomChoice": func(choices ...string) string {
			return choices[rand.New(rand.NewSource(time.Now().UnixNano())).Intn(len(choices))] //nolint:gosec // as the function
		},
		"toYaml": func(v any) (string, error) {
			b, err := yaml.Marshal(v)
			return string(b), err
		},
		"fromYaml": func(s string) (any, error) {
			var v any
			err := yaml.Unmarshal([]byte(s), &v)
			return v, err
		},
		"getResourceCondition": getResourceCondition,
		"setResourceNameAnnotation": func(name string) string {
			return fmt.Sprintf("%s: %s", AnnotationResourceName, name)
		},
		"getComposedResource": func(req map[string]any, name string) map[string]any {
			m, _ := lookup(req, "observed", "resources", name, "resource").(map[string]any)
			return copyMap(m)
		},
		"getCompositeResource": func(req map[string]any) map[string]any {
			m, _ := lookup(req, "observed", "composite", "resource").(map[string]any)
			return copyMap(m)
		},
		"getComposedConnectionDetails": func(req map[string]any, name string) map[string]any {
			m, _ := lookup(req, "observed", "resources", name, "connectionDetails").(map[string]any)
			return copyMap(m)
		},
		"getExtraResources": func(req map[string]any, name string) []any {
			if l, ok := lookup(req, "requiredResources", name, "items").([]any); ok && b.v012 {
				return copyList(l)
			}
			l, _ := lookup(req, "extraResources", name, "items").([]any)
			return copyList(l)
		},
		"getExtraResourcesFromContext": func(req map[string]any, name string) []any {
			l, _ := lookup(req, "context", ExtraResourcesContextKey, name, "items").([]any)
			return copyList(l)
		},
		"getCredentialData": func(req map[string]any, name string) map[string][]byte {
			data, ok := lookup(req, "credentials", name, "credentialData", "data").(map[string]any)
			if !ok {
				return nil
			}
			out := make(map[string][]byte, len(data))
			for k, v := range data {
				s, _ := v.(string)
				b, err := decodeBase64(s)
				if err != nil {
					return nil
				}
				out[k] = b
			}
			return out
		},
	}
	for n := range m {
		if !b.defines(n) {
			delete(m, n)
		}
	}
	return m
}

// Condition is what getResourceCondition returns: crossplane-runtime's
// xpv1.Condition, with its field names (.Type, .Status, .Reason, …) and
// JSON names (toJson), and its lastTransitionTime a metav1.Time (null in
// JSON when zero, a quoted string in toYaml, as yaml.v3 writes a
// TextMarshaler).
type Condition struct {
	Type               ConditionType   `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime Time            `json:"lastTransitionTime"`
	Reason             ConditionReason `json:"reason"`
	Message            string          `json:"message,omitempty"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
}

// ConditionType, ConditionStatus and ConditionReason are the types of a
// condition's fields (xpv1's and corev1's), so that decoding errors name
// them as the function's do.
type (
	ConditionType   string
	ConditionStatus string
	ConditionReason string
)

// Time is metav1.Time as templates meet it: printed as time.Time, JSON
// null when zero, RFC 3339 in UTC otherwise (the function runs in UTC).
type Time struct {
	time.Time
}

// MarshalJSON writes the time as metav1.Time does.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON reads the time as metav1.Time does.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// getResourceCondition is function_maps.go's: the conditions of
// res.resource.status, else of res.status (each read into
// xpv1.ConditionedStatus through JSON; one that does not read is none),
// the one of type ct, or a condition of that type with status Unknown.
func getResourceCondition(ct string, res map[string]any) Condition {
	type conditioned struct {
		Conditions []Condition `json:"conditions,omitempty"`
	}
	read := func(keys ...string) (conditioned, bool) {
		var c conditioned
		v, ok := lookupFound(res, keys...)
		if !ok {
			return c, false
		}
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &c) != nil {
			return conditioned{}, false
		}
		return c, true
	}
	c, ok := read("resource", "status")
	if !ok {
		c, _ = read("status")
	}
	for _, cond := range c.Conditions {
		if string(cond.Type) == ct {
			return cond
		}
	}
	return Condition{Type: ConditionType(ct), Status: "Unknown"}
}

// lookupFound is lookup that tells a missing key from a null value.
func lookupFound(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v, ok = m[k]
		if !ok {
			return nil
		}
	}
	return v
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c, _ := deepCopy(m).(map[string]any)
	return c
}

func copyList(l []any) []any {
	if l == nil {
		return nil
	}
	c, _ := deepCopy(l).([]any)
	return c
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
