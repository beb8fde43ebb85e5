// This file checks what function-go-templating inline templates read
// (gotemplating.Reads) against what the request can hold: the composite
// resource's schema (its XRD's, as Crossplane derives the XR's CRD, with
// object metadata), the kinds of the observed composed resources the
// Composition composes under a literal name, and the keys the workspace's
// EnvironmentConfigs give the environment. A field the schema does not have
// is never there: the template renders "<no value>" (or, in an if, the branch
// is never taken). Whatever is not certain — a schema that preserves
// unknown fields, a resource whose kind is not known, an environment other
// steps may write — is said nothing of.

package analysis

import (
	"fmt"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/functions/known"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/structural"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// codeTemplateRead is the code of a template read that finds nothing.
const codeTemplateRead = "template-read"

// requestShape is what a Composition's templates read from: the schemas
// and keys the request's parts certainly have.
type requestShape struct {
	d   *document.Doc
	env Env
	// xr is the composite resource's schema (nil: no XRD defines it);
	// xrKind its kind.
	xr     *structuralschema.Structural
	xrKind string
	// composed are the composed resources' kinds by name: only names
	// every composing step writes literally, with one kind ("" when two
	// kinds share a name). nil: a step crd-lsp cannot read composes.
	composed map[string]gvk.GVK
	steps    []functions.Step
	tsteps   map[int]*templateStep
	m        map[string]any
}

// newRequestShape reads what a Composition's requests hold.
func newRequestShape(d *document.Doc, m map[string]any, tsteps []*templateStep, env Env) *requestShape {
	rs := &requestShape{d: d, env: env, m: m, steps: functions.Steps(m), tsteps: map[int]*templateStep{}}
	for _, ts := range tsteps {
		rs.tsteps[ts.index] = ts
	}
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	if g, ok := baseGVK(ref); ok && env.Workspace.Schemas != nil {
		if def, defined := compositeDefinition(d, g, env, nil); defined && def.XR != nil {
			rs.xr, rs.xrKind = def.XR, g.Kind
		}
	}
	rs.composed = composedKinds(rs.steps, rs.tsteps)
	return rs
}

// composedKinds are the kinds of the resources a pipeline composes by
// literal name: patch-and-transform's resources with a base, inline
// templates' documents with a literal name, apiVersion and kind. nil when
// a step composes what crd-lsp cannot read (another function, a
// template from elsewhere).
func composedKinds(steps []functions.Step, tsteps map[int]*templateStep) map[string]gvk.GVK {
	out := map[string]gvk.GVK{}
	add := func(name, av, kind string) {
		g := gvk.Parse(av, kind)
		if av == "" || kind == "" {
			g = gvk.GVK{}
		}
		if old, ok := out[name]; ok && old != g {
			g = gvk.GVK{}
		}
		out[name] = g
	}
	for _, st := range steps {
		switch {
		case functions.IsPatchAndTransform(st):
			list, _ := st.Input["resources"].([]any)
			for _, r := range list {
				rm, _ := r.(map[string]any)
				name, _ := rm["name"].(string)
				base, _ := rm["base"].(map[string]any)
				av, _ := base["apiVersion"].(string)
				k, _ := base["kind"].(string)
				if name != "" {
					add(name, av, k)
				}
			}
		case isGoTemplating(st):
			ts := tsteps[st.Index]
			if ts == nil {
				return nil
			}
			for _, doc := range ts.docs {
				if !doc.Meta && doc.ResourceName != "" {
					add(doc.ResourceName, doc.APIVersion, doc.Kind)
				}
			}
		case isEnvironmentStep(st.Input) || known.ComposesNothing(st.Function):
		default:
			return nil
		}
	}
	return out
}

// templateReads checks what each inline template of the Composition
// reads (steps whose template does not parse are left to the syntax
// error).
func templateReads(d *document.Doc, m map[string]any, tsteps []*templateStep, env Env) []Diagnostic {
	var rs *requestShape
	var out []Diagnostic
	for _, ts := range tsteps {
		if len(ts.problems) > 0 {
			continue
		}
		if rs == nil {
			rs = newRequestShape(d, m, tsteps, env)
			if rs.xr == nil && len(rs.composed) == 0 && len(env.Workspace.Rendering().Cluster.EnvironmentConfigs) == 0 {
				return nil // nothing to check reads against
			}
		}
		out = append(out, rs.check(ts, gotemplating.Reads(ts.tpl))...)
	}
	return out
}

// readFinding is what is wrong with one read.
type readFinding struct {
	key     gotemplating.Key
	message string
	replace string
}

// check resolves a step's reads; one finding per key (the read that
// uses the value, rather than one that reads further into it).
func (rs *requestShape) check(ts *templateStep, reads []gotemplating.Read) []Diagnostic {
	var out []Diagnostic
	for _, f := range rs.findings(ts, reads) {
		sp, ok := ts.span(f.key.Start, f.key.End)
		if !ok {
			continue
		}
		out = append(out, Diagnostic{Span: sp, Severity: severity.Warning, Code: codeTemplateRead, Message: f.message, Replace: f.replace})
	}
	return out
}

// findings are check's findings, placed in the template.
func (rs *requestShape) findings(ts *templateStep, reads []gotemplating.Read) []readFinding {
	strict := missingKeyError(ts, rs.steps)
	type found struct {
		f   readFinding
		use gotemplating.Use
	}
	byKey := map[int]found{}
	var order []int
	for _, r := range reads {
		f, ok := rs.resolve(ts.index, r, strict)
		if !ok {
			continue
		}
		if old, seen := byKey[f.key.Start]; seen {
			if old.use == gotemplating.UseValue && r.Use != gotemplating.UseValue {
				byKey[f.key.Start] = found{f, r.Use}
			}
			continue
		}
		byKey[f.key.Start] = found{f, r.Use}
		order = append(order, f.key.Start)
	}
	out := make([]readFinding, len(order))
	for i, at := range order {
		out[i] = byKey[at].f
	}
	return out
}

// missingKeyError says whether a step runs its template with
// missingkey=error (a missing key fails the step rather than giving no
// value).
func missingKeyError(ts *templateStep, steps []functions.Step) bool {
	for _, st := range steps {
		if st.Index != ts.index {
			continue
		}
		opts, _ := st.Input["options"].([]any)
		for _, o := range opts {
			if s, _ := o.(string); s == "missingkey=error" {
				return true
			}
		}
	}
	return false
}

// resolve says what is wrong with a read, if anything certain: the first
// key written in it that what it reads from cannot have.
func (rs *requestShape) resolve(step int, r gotemplating.Read, strict bool) (readFinding, bool) {
	p := r.Path
	has := func(keys ...string) bool {
		if len(p) < len(keys) {
			return false
		}
		for i, k := range keys {
			if p[i].Elem || p[i].Name != k {
				return false
			}
		}
		return true
	}
	switch {
	case has("observed", "composite", "resource") && rs.xr != nil:
		return resolveObject(rs.xr, p, 3, r, fmt.Sprintf("the composite resource (%s)", rs.xrKind), strict)
	case has("observed", "resources") && len(p) > 4 && !p[2].Elem && has("observed", "resources", p[2].Name, "resource") && rs.composed != nil:
		g, ok := rs.composed[p[2].Name]
		if !ok || g.Kind == "" || rs.env.Workspace.Schemas == nil {
			return readFinding{}, false
		}
		sch, found := nearest(rs.env.Workspace.Schemas.Candidates(g), rs.d.File.URI)
		if !found {
			return readFinding{}, false
		}
		ss, err := sch.Structural()
		if err != nil || ss == nil {
			return readFinding{}, false
		}
		return resolveObject(ss, p, 4, r, fmt.Sprintf("the observed %s %q", g.Kind, p[2].Name), strict)
	case has("context", environmentconfigs.ContextKey) && len(p) > 2:
		return rs.resolveEnvironment(step, r, strict)
	}
	return readFinding{}, false
}

// resolveObject walks an object's schema along p from key base.
func resolveObject(root *structuralschema.Structural, p []gotemplating.Key, base int, r gotemplating.Read, what string, strict bool) (readFinding, bool) {
	written := func(i int) bool { return i >= r.Written && p[i].Start >= 0 }
	path := func(i int) string {
		return strings.Join(gotemplating.Keys(p[base:i+1]), ".")
	}
	missing := func(i int, candidates []string) (readFinding, bool) {
		if !written(i) {
			return readFinding{}, false
		}
		f := readFinding{key: p[i]}
		msg := fmt.Sprintf("%s has no field %s", what, path(i))
		if best, ok := suggest.Closest(p[i].Name, candidates); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
			f.replace = best
			if p[i].End-p[i].Start != len(p[i].Name) {
				f.replace = fmt.Sprintf("%q", best) // index's quoted key
			}
		}
		f.message = msg + ": " + consequence(r, strict)
		return f, true
	}
	if len(p) <= base || p[base].Elem {
		return readFinding{}, false
	}
	switch p[base].Name {
	case "apiVersion", "kind":
		return readFinding{}, false
	case "metadata":
		if len(p) <= base+1 || p[base+1].Elem {
			return readFinding{}, false
		}
		if _, ok := structural.MetaFieldType(p[base+1].Name); ok {
			return readFinding{}, false
		}
		names := make([]string, len(structural.ObjectMeta))
		for i, f := range structural.ObjectMeta {
			names[i] = f.Name
		}
		return missing(base+1, names)
	}
	node := root
	for i := base; i < len(p); i++ {
		if structural.Opaque(node) {
			return readFinding{}, false
		}
		k := p[i]
		switch node.Type {
		case "object":
			if k.Elem {
				ap := node.AdditionalProperties
				if ap == nil || ap.Structural == nil {
					return readFinding{}, false
				}
				node = ap.Structural
				continue
			}
			if prop, ok := node.Properties[k.Name]; ok {
				node = &prop
				continue
			}
			if ap := node.AdditionalProperties; ap != nil && (ap.Bool || ap.Structural != nil) {
				if ap.Structural == nil {
					return readFinding{}, false
				}
				node = ap.Structural
				continue
			}
			names := make([]string, 0, len(node.Properties))
			for n := range node.Properties {
				names = append(names, n)
			}
			sort.Strings(names)
			return missing(i, names)
		case "array":
			if k.Elem {
				if node.Items == nil {
					return readFinding{}, false
				}
				node = node.Items
				continue
			}
			return notAnObject(p, base, i, r, what, "a list")
		case "string", "integer", "number", "boolean":
			if k.Elem {
				return readFinding{}, false
			}
			return notAnObject(p, base, i, r, what, "a "+node.Type)
		default:
			return readFinding{}, false
		}
	}
	return readFinding{}, false
}

// notAnObject is a field read of a value that is not an object: the
// template fails on it whenever it is set.
func notAnObject(p []gotemplating.Key, base, i int, r gotemplating.Read, what, is string) (readFinding, bool) {
	if i < r.Written || p[i].Start < 0 {
		return readFinding{}, false
	}
	parent := strings.Join(gotemplating.Keys(p[base:i]), ".")
	return readFinding{key: p[i], message: fmt.Sprintf("%s in %s is %s, which has no field %s: the template fails there whenever it is set (\"can't evaluate field %s\")",
		parent, what, is, p[i].Name, p[i].Name)}, true
}

// consequence says what function-go-templating does with a read that
// finds nothing, by how the template uses it (recorded: missing keys give
// no value, "<no value>" when printed; if and with of one are false;
// quote gives "", default its default; with missingkey=error the step
// fails).
func consequence(r gotemplating.Read, strict bool) string {
	if strict {
		return "function-go-templating fails the step there (the template runs with missingkey=error)"
	}
	switch r.Use {
	case gotemplating.UsePrinted:
		return `the template renders "<no value>" there`
	case gotemplating.UseCondition:
		return "the condition is always false: the if's branch is never taken"
	case gotemplating.UseWith:
		return "with finds no value: its block is never run"
	case gotemplating.UseRange:
		return "range finds nothing to iterate over: its block is never run"
	case gotemplating.UseAssigned:
		return fmt.Sprintf("%s gets no value", r.Var)
	case gotemplating.UseArgument:
		switch r.Func {
		case "quote", "squote":
			return r.Func + ` gets no value and gives ""`
		case "default":
			return "default always gives its default"
		case "toYaml", "toJson", "toPrettyJson", "toRawJson":
			return r.Func + " gets no value and gives null"
		case "empty":
			return "empty is always true"
		case "":
			return "the template reads no value there"
		}
		return r.Func + " gets no value"
	}
	return "the template reads no value there"
}

// keyTree is what keys a map certainly has: kids by key; opaque when
// anything may be below (a value that is not a map, a key written by a
// path crd-lsp does not follow).
type keyTree struct {
	kids   map[string]*keyTree
	opaque bool
}

func (t *keyTree) add(v any) {
	m, ok := v.(map[string]any)
	if !ok || t.opaque {
		t.opaque, t.kids = true, nil
		return
	}
	if t.kids == nil {
		t.kids = map[string]*keyTree{}
	}
	for k, vv := range m {
		c := t.kids[k]
		if c == nil {
			c = &keyTree{}
			t.kids[k] = c
		}
		c.add(vv)
	}
}

// opaqueKey marks the key a path's first segment names as holding
// anything.
func (t *keyTree) opaqueKey(path string) {
	if t.opaque {
		return
	}
	k, _, _ := strings.Cut(path, ".")
	k, _, _ = strings.Cut(k, "[")
	if k == "" {
		t.opaque = true
		return
	}
	if t.kids == nil {
		t.kids = map[string]*keyTree{}
	}
	t.kids[k] = &keyTree{opaque: true}
}

// environmentBefore is what keys the environment certainly has when step
// runs (nil: not known): a function-environment-configs step before it
// loads it from EnvironmentConfigs, and the workspace has some; every
// key any of them, their steps' defaultData, the starting context and
// patch-and-transform's environment patches give. Another function
// before it, or a template that writes the context, makes it unknown.
func (rs *requestShape) environmentBefore(step int) *keyTree {
	configs := rs.env.Workspace.Rendering().Cluster.EnvironmentConfigs
	if len(configs) == 0 {
		return nil
	}
	if spec, _ := rs.m["spec"].(map[string]any); spec["environment"] != nil {
		return nil // a classic environment, with patches of its own
	}
	t := &keyTree{kids: map[string]*keyTree{}}
	loaded := false
	for _, st := range rs.steps {
		if st.Index >= step {
			break
		}
		switch {
		case isEnvironmentStep(st.Input):
			loaded = true
			spec, _ := st.Input["spec"].(map[string]any)
			if dd, ok := spec["defaultData"].(map[string]any); ok {
				t.add(dd)
			}
			list, _ := spec["environmentConfigs"].([]any)
			for _, e := range list {
				em, _ := e.(map[string]any)
				if to, _ := em["toFieldPath"].(string); to != "" {
					t.opaqueKey(to)
				}
			}
		case functions.IsPatchAndTransform(st):
			for _, to := range environmentTargets(st.Input) {
				t.opaqueKey(to)
			}
		case isGoTemplating(st):
			ts := rs.tsteps[st.Index]
			if ts == nil || strings.Contains(ts.tpl.Text, "Context") {
				return nil // it may write the environment
			}
		case known.LeavesNoData(st.Function):
		default:
			return nil
		}
	}
	if !loaded {
		return nil
	}
	for _, c := range configs {
		t.add(c["data"])
	}
	if start, ok := rs.env.Workspace.Rendering().Cluster.Context[environmentconfigs.ContextKey]; ok {
		t.add(start)
	}
	return t
}

// environmentTargets are the environment paths a patch-and-transform
// input's patches write.
func environmentTargets(in map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ty, _ := v["type"].(string); ty == "ToEnvironmentFieldPath" || ty == "CombineToEnvironment" {
				to, _ := v["toFieldPath"].(string)
				out = append(out, to)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(in)
	return out
}

// resolveEnvironment checks a read of the environment against the keys
// the workspace's EnvironmentConfigs give it. The cluster may hold
// others: a key is reported only when it is likely misspelt (a key they
// have is near), or when the EnvironmentConfigs known are all there are.
func (rs *requestShape) resolveEnvironment(step int, r gotemplating.Read, strict bool) (readFinding, bool) {
	t := rs.environmentBefore(step)
	if t == nil {
		return readFinding{}, false
	}
	p := r.Path
	for i := 2; i < len(p); i++ {
		if t.opaque || p[i].Elem {
			return readFinding{}, false
		}
		c := t.kids[p[i].Name]
		if c != nil {
			t = c
			continue
		}
		if i < r.Written || p[i].Start < 0 {
			return readFinding{}, false
		}
		names := make([]string, 0, len(t.kids))
		for k := range t.kids {
			names = append(names, k)
		}
		sort.Strings(names)
		best, near := suggest.Closest(p[i].Name, names)
		complete := rs.env.Workspace.Rendering().Cluster.Complete
		if !near && !complete {
			return readFinding{}, false
		}
		from := rs.env.Workspace.Rendering().Cluster.From
		if from == "" {
			from = "known"
		}
		key := strings.Join(gotemplating.Keys(p[2:i+1]), ".")
		f := readFinding{key: p[i], message: fmt.Sprintf("the environment has no %s in any EnvironmentConfig %s", key, from)}
		if near {
			f.message += fmt.Sprintf(" (did you mean %q?)", best)
			f.replace = best
			if p[i].End-p[i].Start != len(p[i].Name) {
				f.replace = fmt.Sprintf("%q", best)
			}
		}
		f.message += ": " + consequence(r, strict)
		if !complete {
			f.message += ", unless the cluster holds an EnvironmentConfig crd-lsp does not know"
		}
		return f, true
	}
	return readFinding{}, false
}
