// This file checks pipeline steps' inputs as their functions read them:
// the step is linked to its function and release (internal/functions/known),
// the input validated against the function's input CRD, and every finding
// weighed by what that release is recorded to do with the value.

package analysis

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/known"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// A pipeline step's input is not an object of the API server: Crossplane
// stores it as an embedded object and never validates it against the
// function's input CRD. The function reads it itself. What crd-lsp says
// beyond "the input CRD says so" (information) is what the function's
// recorded answers prove (internal/functions/<function>/testdata/conformance).

// StepFunction is what a pipeline step's functionRef.name names.
type StepFunction struct {
	// Package is the function's package repository without tag or digest
	// (xpkg.upbound.io/crossplane-contrib/function-patch-and-transform).
	Package string
	// Version is the Function's tag, or the package dependency's version
	// constraint; "" when unknown.
	Version string
	// From says where the name was found: a Function object's file, or
	// the crossplane.yaml whose dependency Crossplane names so.
	From string
}

// linkStep finds the function a step runs and the release judged:
// through env.Workspace.FunctionOf (the workspace's Function objects and
// package dependencies), else by functionRef.name ending in a known
// function's repository name (crossplane-contrib-function-kcl), else by
// the input's kind.
func linkStep(step map[string]any, env Env) known.Link {
	in, _ := step["input"].(map[string]any)
	var resolve func(string) (known.Ref, bool)
	if env.Workspace.FunctionOf != nil {
		resolve = func(name string) (known.Ref, bool) {
			sf, ok := env.Workspace.FunctionOf(name)
			return known.Ref{Package: sf.Package, Version: sf.Version, From: sf.From}, ok
		}
	}
	return known.LinkStep(stepFunctionName(step), in, resolve)
}

func stepFunctionName(step map[string]any) string {
	ref, _ := step["functionRef"].(map[string]any)
	n, _ := ref["name"].(string)
	return n
}

// AsFunctionsRead returns the Composition as its functions read it: a
// step input of function-patch-and-transform (known by its Function
// object, crossplane.yaml dependency or name) written with another
// group, such as the old pt.crossplane.io/v1beta1, is read by the
// function all the same (its releases decode any kind), so every P&T
// check and the rendering see it as pt.fn.crossplane.io/v1beta1
// Resources. m is returned as it is when nothing changes; it is never
// modified.
func AsFunctionsRead(m map[string]any, env Env) map[string]any {
	spec, _ := m["spec"].(map[string]any)
	steps, _ := spec["pipeline"].([]any)
	var out []any
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		g, ok := baseGVK(in)
		if !ok || g.Kind != "Resources" || g.Group == "pt.fn.crossplane.io" {
			continue
		}
		link := linkStep(sm, env)
		if link.Fn != &patchandtransform.Function || link.How == known.ByInputKind {
			continue
		}
		if dec, ok := link.Decoding(); ok && !dec.AnyKind {
			continue
		}
		if out == nil {
			out = append([]any(nil), steps...)
		}
		nin := make(map[string]any, len(in))
		for k, v := range in {
			nin[k] = v
		}
		nin["apiVersion"] = "pt.fn.crossplane.io/v1beta1"
		nst := make(map[string]any, len(sm))
		for k, v := range sm {
			nst[k] = v
		}
		nst["input"] = nin
		out[i] = nst
	}
	if out == nil {
		return m
	}
	nspec := make(map[string]any, len(spec))
	for k, v := range spec {
		nspec[k] = v
	}
	nspec["pipeline"] = out
	nm := make(map[string]any, len(m))
	for k, v := range m {
		nm[k] = v
	}
	nm["spec"] = nspec
	return nm
}

// stepLinks says, per step, what its input's apiVersion and kind mean to
// the function it runs: a kind the function decodes as another of its own
// (said once, so the user knows which schema checked it), a version the
// input CRD does not serve, an input the release does not read.
func stepLinks(d *document.Doc, orig map[string]any, env Env) []Diagnostic {
	return pipelineLinks(d, pipelineAt(orig, compositionPipeline), compositionPipeline, env)
}

// compositionPipeline is where a Composition's pipeline is.
var compositionPipeline = fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline")}

// pipelineAt is the list of steps at p of obj.
func pipelineAt(obj map[string]any, p fieldpath.Path) []any {
	v, _ := lookup(obj, p)
	steps, _ := v.([]any)
	return steps
}

// pipelineLinks is stepLinks for the steps of a pipeline at base.
func pipelineLinks(d *document.Doc, steps []any, base fieldpath.Path, env Env) []Diagnostic {
	var out []Diagnostic
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		link := linkStep(sm, env)
		in, _ := sm["input"].(map[string]any)
		g, ok := baseGVK(in)
		if !ok {
			continue
		}
		avp := base.Child(fieldpath.Index(i), fieldpath.Field("input"), fieldpath.Field("apiVersion"))
		if link.Fn == nil {
			if link.How == known.ByPackage {
				out = append(out, packageInputKind(d, sm, avp, link, env)...)
			}
			out = append(out, unservedInputVersion(d, avp, g, link, env)...)
			continue
		}
		if link.How == known.ByInputKind {
			out = append(out, unservedInputVersion(d, avp, g, link, env)...)
			continue
		}
		dec, decoded := link.Decoding()
		if decoded && dec.Reads == functions.ReadsNothing {
			out = append(out, diagnosticAt(d, avp, false, severity.Info, "step-input",
				fmt.Sprintf("step %q runs %s%s, which reads no input: %s", stepName(sm), link.Name(), linkWords(link, stepFunctionName(sm)), dec.Does)))
			continue
		}
		if ik, ok := inputKind(link.Fn, g); ok {
			if ik.Documented {
				continue
			}
			out = append(out, unservedInputVersion(d, avp, g, link, env)...)
			continue
		}
		want := link.Fn.Inputs
		if len(want) == 0 {
			continue
		}
		switch {
		case decoded && dec.AnyKind:
			out = append(out, diagnosticAt(d, avp, false, severity.Info, "step-input",
				fmt.Sprintf("step %q runs %s%s, which reads its input whatever its apiVersion and kind: checked and rendered as %s/%s %s (the kind the function's input CRD defines)", stepName(sm), link.Name(), linkWords(link, stepFunctionName(sm)), want[0].Group, first(want[0].Versions), want[0].Kind)))
		default:
			out = append(out, diagnosticAt(d, avp, false, severity.Info, "step-input",
				fmt.Sprintf("step %q runs %s%s, whose input CRD defines %s %s, not %s %s (crd-lsp has no record of what %s does with another kind)", stepName(sm), link.Name(), linkWords(link, stepFunctionName(sm)), want[0].Group, want[0].Kind, g.Group, g.Kind, link.Fn.Name)))
		}
	}
	return out
}

// inputKind is the function's input kind of g's group and kind.
func inputKind(fn *functions.Known, g gvk.GVK) (functions.InputKind, bool) {
	for _, k := range fn.Inputs {
		if k.Group == g.Group && k.Kind == g.Kind {
			return k, true
		}
	}
	return functions.InputKind{}, false
}

func first(vs []string) string {
	if len(vs) == 0 {
		return "v1beta1"
	}
	return vs[0]
}

// unservedInputVersion reports an input apiVersion whose version the
// input CRD (as known to crd-lsp, or as the workspace defines it) does
// not serve, naming the versions it does.
func unservedInputVersion(d *document.Doc, avp fieldpath.Path, g gvk.GVK, link known.Link, env Env) []Diagnostic {
	served := servedVersions(g, env)
	if len(served) == 0 && link.Fn != nil {
		if ik, ok := inputKind(link.Fn, g); ok {
			served = ik.Versions
		}
	}
	if len(served) == 0 || slices.Contains(served, g.Version) {
		return nil
	}
	sev := severity.Warning
	what := "crd-lsp checks it against " + g.Group + "/" + served[len(served)-1] + ""
	if dec, ok := link.Decoding(); ok && dec.AnyKind {
		sev = severity.Info
		what += fmt.Sprintf("; %s reads any apiVersion, so the step runs", link.Name())
	}
	return []Diagnostic{diagnosticAt(d, avp, false, sev, "step-input",
		fmt.Sprintf("%s %s is not served: the input CRD of %s serves %s only (%s)", g.APIVersion(), g.Kind, fnWords(link), strings.Join(served, ", "), what))}
}

// servedVersions are the versions of g's group and kind the schemas serve.
func servedVersions(g gvk.GVK, env Env) []string {
	if env.Workspace.Schemas == nil {
		return nil
	}
	var out []string
	for _, k := range env.Workspace.Schemas.Kinds() {
		if k.GVK.Group == g.Group && k.GVK.Kind == g.Kind && !slices.Contains(out, k.GVK.Version) {
			out = append(out, k.GVK.Version)
		}
	}
	sort.Strings(out)
	return out
}

func fnWords(link known.Link) string {
	if link.Fn != nil {
		return link.Fn.Name
	}
	if link.Ref.Package != "" {
		return link.Ref.Package[strings.LastIndex(link.Ref.Package, "/")+1:]
	}
	return "its function"
}

// packageInputKind notes the input of a step whose function crd-lsp
// does not know when its kind is none of those the function's package
// defines (its input CRDs, when the package is pulled): crd-lsp then has
// no schema to check it against.
func packageInputKind(d *document.Doc, step map[string]any, avp fieldpath.Path, link known.Link, env Env) []Diagnostic {
	in, _ := step["input"].(map[string]any)
	g, ok := baseGVK(in)
	if !ok || env.Workspace.Schemas == nil {
		return nil
	}
	var kinds []string
	for _, k := range env.Workspace.Schemas.Kinds() {
		if k.Source.Kind != schemas.SourcePackage || k.Source.Name != link.Ref.Package {
			continue
		}
		if k.GVK.Group == g.Group && k.GVK.Kind == g.Kind {
			return nil
		}
		kinds = append(kinds, k.GVK.Group+" "+k.GVK.Kind)
	}
	if len(kinds) == 0 {
		return nil // not pulled, or a package that ships no input CRD
	}
	sort.Strings(kinds)
	kinds = slices.Compact(kinds)
	return []Diagnostic{diagnosticAt(d, avp, false, severity.Info, "step-input",
		fmt.Sprintf("step %q runs %s%s, whose package defines %s as input, not %s %s: crd-lsp has nothing to check this input against (a function template's placeholder input?)",
			stepName(step), fnWords(link), linkWords(link, stepFunctionName(step)), orList(kinds), g.Group, g.Kind))}
}

func stepName(step map[string]any) string {
	n, _ := step["step"].(string)
	return n
}

func linkWords(link known.Link, name string) string {
	switch link.How {
	case known.ByPackage:
		if link.Ref.From != "" {
			return fmt.Sprintf(" (%s, from %s)", link.Ref.Package, link.Ref.From)
		}
		return fmt.Sprintf(" (%s)", link.Ref.Package)
	case known.ByRefName:
		if link.Fn != nil && name != link.Fn.Name {
			return fmt.Sprintf(" (assumed from the function's name %q)", name)
		}
	}
	return ""
}

// inputSchema is the schema a step's input is checked against: its own
// kind's, or, for a function whose release decodes any kind as its first
// input kind (function-kcl's KCLRun), that kind's; probe is the input as
// that schema expects it.
func inputSchema(d *document.Doc, in map[string]any, g gvk.GVK, link known.Link, env Env) (*schemas.Schema, map[string]any, bool) {
	probe := make(map[string]any, len(in)+1)
	for k, v := range in {
		probe[k] = v
	}
	// An input is not an object of the API server: give it the metadata
	// validation expects, so its own rules (CEL too) run.
	if _, ok := probe["metadata"]; !ok {
		probe["metadata"] = map[string]any{"name": "input"}
	}
	if sch, ok := nearest(env.Workspace.Schemas.Candidates(g), d.File.URI); ok {
		return sch, probe, true
	}
	if link.Fn == nil || len(link.Fn.Inputs) == 0 {
		// A version the input CRD does not serve (said on apiVersion):
		// check the fields against the newest it serves.
		served := servedVersions(g, env)
		for i := len(served) - 1; i >= 0; i-- {
			og := gvk.GVK{Group: g.Group, Version: served[i], Kind: g.Kind}
			if sch, ok := nearest(env.Workspace.Schemas.Candidates(og), d.File.URI); ok {
				probe["apiVersion"] = og.APIVersion()
				return sch, probe, true
			}
		}
		return nil, nil, false
	}
	own := link.Fn.Inputs[0]
	if _, isOwn := inputKind(link.Fn, g); !isOwn {
		if dec, ok := link.Decoding(); !ok || !dec.AnyKind {
			return nil, nil, false
		}
	}
	versions := append([]string{g.Version}, own.Versions...)
	for _, v := range versions {
		og := gvk.GVK{Group: own.Group, Version: v, Kind: own.Kind}
		if sch, ok := nearest(env.Workspace.Schemas.Candidates(og), d.File.URI); ok {
			probe["apiVersion"], probe["kind"] = og.APIVersion(), og.Kind
			return sch, probe, true
		}
	}
	return nil, nil, false
}

// functionInputs validates each pipeline step's input against its
// function's input CRD when one is known (built-in for common functions,
// from the workspace or a pulled package), and weighs every finding by
// what the linked release of the function does with the value
// (known.Link.Judge): what the function is recorded to refuse is an
// error, what only the CRD says is information.
func functionInputs(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	return pipelineInputs(ctx, d, pipelineAt(m, compositionPipeline), compositionPipeline, env)
}

// pipelineInputs is functionInputs for the steps of a pipeline at base.
func pipelineInputs(ctx context.Context, d *document.Doc, steps []any, base fieldpath.Path, env Env) []Diagnostic {
	var out []Diagnostic
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		if in == nil {
			continue
		}
		ip := base.Child(fieldpath.Index(i), fieldpath.Field("input"))
		link := linkStep(sm, env)
		var errs []schemas.Error
		blocked := false
		if g, ok := baseGVK(in); ok && env.Workspace.Schemas != nil {
			if sch, probe, ok := inputSchema(d, in, g, link, env); ok {
				for _, e := range sch.Validate(ctx, probe) {
					switch {
					case len(e.Path) > 0 && e.Path[0].Field == "metadata" || (len(e.Path) == 0 && strings.Contains(e.Message, "metadata")):
						// inputs carry no object metadata
					case e.Severity == severity.Info && e.Code == "cel":
						blocked = true
					case e.Code == "type" && freeForm(sch, e.Path):
						// controller-gen writes runtime.RawExtension (and
						// apiextensions' JSON) as a free-form object, and
						// functions commonly take any JSON value there
						// (function-kcl's params); the input never meets the
						// API server's check.
						e.Severity = severity.Hint
						e.Message += " (the input's CRD types this free-form field as an object, as controller-gen writes runtime.RawExtension; the function may take any value here)"
						errs = append(errs, e)
					case e.Code == "cel" && e.Unevaluable:
						// Only the API server evaluates such rules, and an
						// input never reaches it.
						e.Severity = severity.Hint
						e.Message += " (this rule of the input's CRD cannot be evaluated on this input; inputs never reach the API server, so nothing enforces it)"
						errs = append(errs, e)
					default:
						errs = append(errs, e)
					}
				}
			}
		}
		kept := link.Judge(errs, in)
		if blocked && len(kept) > 0 {
			kept = append(kept, schemas.Error{OnKey: true, Severity: severity.Info, Code: "cel", Message: "some validation rules (x-kubernetes-validations) were not checked because the input was invalid"})
		}
		for _, e := range kept {
			out = append(out, fromSchemaError(d, ip, e))
		}
	}
	return out
}

func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// lookup reads the value at p of obj.
func lookup(obj map[string]any, p fieldpath.Path) (any, bool) {
	var cur any = obj
	for _, s := range p {
		switch s.Kind {
		case fieldpath.KindField:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.Field]; !ok {
				return nil, false
			}
		case fieldpath.KindIndex:
			l, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(l) {
				return nil, false
			}
			cur = l[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}
