// This file is function-patch-and-transform's engine: RenderStep runs one
// P&T step from the desired state earlier steps left, and Render a whole
// Composition of P&T steps (or a classic Composition's resources, which
// behave the same), patch by patch.

package patchandtransform

import (
	"errors"
	"fmt"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// Input is what a Composition is rendered with.
type Input struct {
	Composition map[string]any
	// XR is the observed composite resource the patches read.
	XR map[string]any
	// Environment is the in-memory environment (FromEnvironmentFieldPath);
	// nil is an empty environment. EnvironmentUnknown says what it holds
	// is not known (patches that find nothing in it record Skip.Unknown).
	Environment        map[string]any
	EnvironmentUnknown bool
	// Context is the rest of the context the pipeline starts with (its
	// EnvironmentContextKey is Environment's).
	Context map[string]any
	// ContextStep, when set, is asked about each pipeline step that is
	// not patch-and-transform's, with the context the steps before it
	// left (the environment at EnvironmentContextKey; not to be
	// modified); ok says it ran the step natively (function-environment-
	// configs) and what it left. Nil leaves such steps as they are.
	ContextStep func(index int, step map[string]any, context map[string]any) (render.ContextStepResult, bool)
	// Namespaced says the XR is namespaced (Crossplane v2): composed
	// resources then land in its namespace.
	Namespaced bool
	// ClusterScoped says a composed kind is cluster-scoped (nil: none
	// is): Crossplane never puts it in the XR's namespace.
	ClusterScoped func(apiVersion, kind string) bool
	// Lenient keeps rendering past a patch that fails (P&T would stop),
	// and renders resources a Required fromFieldPath would withhold, so an
	// editor sees every problem at once.
	Lenient bool
	// DescribeFunction, when set, names a step's function in notes (a
	// description, or "" for the functionRef name itself).
	DescribeFunction func(ref string) string
	// ComposesNothing, when set, says a step's function (by its
	// functionRef name) composes no resources: a step that runs it
	// leaves nothing unvalidated, so it gets no note.
	ComposesNothing func(ref string) bool
}

// Render runs a Composition's function-patch-and-transform steps (or a
// classic Composition's resources, which behave the same) against an XR,
// side-effect free, exactly as the function does: base, then each patch in
// order with PatchSets expanded, then Crossplane's own metadata. A step
// starts from the desired state the steps before it left, as in a
// pipeline: a template with a base replaces a resource of its name, one
// without patches it. Steps running other functions pass the desired
// state through; they are noted. Render never panics: a failure becomes a
// Note.
func Render(in Input) (out render.Output) {
	defer func() {
		if r := recover(); r != nil {
			out.Notes = append(out.Notes, render.Note{Path: fieldpath.Path{fieldpath.Field("spec")}, OnKey: true, Severity: severity.Error, Code: "render", Message: fmt.Sprintf("rendering failed: %v", r)})
		}
	}()
	spec, _ := in.Composition["spec"].(map[string]any)
	out.XR, _ = paved.DeepCopy(in.XR).(map[string]any)
	if out.XR == nil {
		out.XR = map[string]any{}
	}
	env, _ := paved.DeepCopy(in.Environment).(map[string]any)
	if env == nil {
		env = map[string]any{}
	}
	envUnknown := in.EnvironmentUnknown
	// fctx is the pipeline's context but for the environment, which
	// env holds.
	fctx := make(map[string]any, len(in.Context))
	for k, v := range in.Context {
		if k != render.EnvironmentContextKey {
			fctx[k] = v
		}
	}
	root := fieldpath.Path{fieldpath.Field("spec")}
	index := map[string]int{}              // resource name → index in out.Resources
	desired := map[string]map[string]any{} // the desired composed resources so far
	opaque := false                        // an earlier step ran a function crd-lsp does not run
	add := func(rs []render.Resource, notes []render.Note) {
		for _, res := range rs {
			if i, ok := index[res.Name]; ok && res.Name != "" {
				out.Resources[i] = res // a later step overwrites a resource of the same name
				continue
			}
			index[res.Name] = len(out.Resources)
			out.Resources = append(out.Resources, res)
		}
		out.Notes = append(out.Notes, notes...)
	}
	if steps, ok := spec["pipeline"].([]any); ok {
		for i, s := range steps {
			sm, _ := s.(map[string]any)
			sp := root.Child(fieldpath.Field("pipeline"), fieldpath.Index(i))
			name, _ := sm["step"].(string)
			input, _ := sm["input"].(map[string]any)
			if IsPatchAndTransform(input) {
				so := RenderStep(StepInput{Input: input, Path: sp.Child(fieldpath.Field("input")), Step: name, XR: in.XR, DesiredXR: out.XR,
					Desired: desired, Environment: env, EnvironmentUnknown: envUnknown, Opaque: opaque, Lenient: in.Lenient})
				out.XR, desired, env = so.DesiredXR, so.Desired, so.Environment
				add(so.Resources, so.Notes)
				continue
			}
			if in.ContextStep != nil {
				whole := make(map[string]any, len(fctx)+1)
				for k, v := range fctx {
					whole[k] = v
				}
				whole[render.EnvironmentContextKey] = env
				if cs, ok := in.ContextStep(i, sm, whole); ok {
					if cs.Context != nil {
						fctx = make(map[string]any, len(cs.Context))
						for k, v := range cs.Context {
							fctx[k] = v
						}
						env, _ = fctx[render.EnvironmentContextKey].(map[string]any)
						delete(fctx, render.EnvironmentContextKey)
						if env == nil {
							env = map[string]any{}
						}
					}
					envUnknown = envUnknown || cs.Unknown
					out.Notes = append(out.Notes, cs.Notes...)
					if cs.Failed && !in.Lenient {
						break // the pipeline stops at a failing step
					}
					continue
				}
			}
			fn := ""
			if ref, ok := sm["functionRef"].(map[string]any); ok {
				fn, _ = ref["name"].(string)
			}
			if in.ComposesNothing != nil && in.ComposesNothing(fn) {
				continue // nothing it does is left unvalidated
			}
			opaque = true
			out.Notes = append(out.Notes, render.Note{Path: sp.Child(fieldpath.Field("step")), Severity: severity.Info, Code: "render-step",
				Message: fmt.Sprintf("step %q runs %s, which crd-lsp cannot run until it is configured (%s): it passes the desired state through, and resources it would compose are not rendered or validated", name, describeFunction(in.DescribeFunction, fn), render.HowToConfigure)})
		}
	} else if _, ok := spec["resources"]; ok {
		r := &renderer{lenient: in.Lenient, xr: in.XR, dxr: out.XR, env: env, envUnknown: envUnknown, holder: spec, hp: root, classic: true}
		add(r.run(), r.notes)
	}
	for _, res := range out.Resources {
		if res.Object != nil {
			if err := render.ComposedMetadata(res.Object, res.Name, in.XR, in.Namespaced && !render.IsClusterScoped(in.ClusterScoped, res.Object)); err != nil {
				out.Notes = append(out.Notes, render.MetadataNote(res, in.XR, err))
			}
		}
	}
	return out
}

// describeFunction names a step's function in a note.
func describeFunction(d func(string) string, fn string) string {
	if d != nil {
		if s := d(fn); s != "" {
			return s
		}
	}
	return orDefault(fn, "a function")
}

// IsPatchAndTransform says whether a step input is
// function-patch-and-transform's (pt.fn.crossplane.io Resources).
func IsPatchAndTransform(input map[string]any) bool {
	av, _ := input["apiVersion"].(string)
	return strings.HasPrefix(av, "pt.fn.crossplane.io/") && input["kind"] == "Resources"
}

// StepInput is one function-patch-and-transform step to run from the
// desired state the steps before it left, as the function receives it.
type StepInput struct {
	// Input is the step's input (pt.fn.crossplane.io Resources), at Path in
	// the Composition (spec.pipeline[i].input); Step is the step's name.
	Input map[string]any
	Path  fieldpath.Path
	Step  string
	// XR is the observed composite resource.
	XR map[string]any
	// DesiredXR is the desired composite the earlier steps returned (nil
	// when none did); Desired their desired composed resources by name.
	// Neither is modified.
	DesiredXR map[string]any
	Desired   map[string]map[string]any
	// Environment is the Composition environment from the pipeline's
	// context (nil: none yet); EnvironmentUnknown as in Input.
	Environment        map[string]any
	EnvironmentUnknown bool
	// Opaque says an earlier step ran a function that was not run (its
	// desired state passed through), so a template without a base may
	// patch a resource that step would have composed.
	Opaque bool
	// Lenient as in Input.
	Lenient bool
}

// StepOutput is what a step returns, as function-patch-and-transform
// returns it: Crossplane's own metadata is not added (the reconciler adds
// it after the pipeline; ComposedMetadata does it).
type StepOutput struct {
	// Resources are the step's resource templates, rendered (Object is nil
	// for a template that was not).
	Resources []render.Resource
	// Desired is the desired composed resources after the step: the
	// earlier ones, with those this step rendered added or replaced.
	Desired map[string]map[string]any
	// DesiredXR is the desired composite after the step (apiVersion and
	// kind set, as the function does, and what environment patches wrote).
	DesiredXR map[string]any
	// Withheld says a resource was left out of the desired state until a
	// Required field is set: the function then marks the composite not
	// ready.
	Withheld bool
	// Environment is the environment after the step's environment patches;
	// the function writes it back to the context.
	Environment map[string]any
	Notes       []render.Note
}

// RenderStep runs one function-patch-and-transform step from an existing
// desired state, exactly as the function does: environment patches, then
// each resource template (a base replaces a desired resource of its name;
// a template without a base patches a copy of the one an earlier step
// composed, and without one the function fails), with the environment
// written back. It never panics and never modifies its input.
func RenderStep(in StepInput) (out StepOutput) {
	defer func() {
		if r := recover(); r != nil {
			out.Notes = append(out.Notes, render.Note{Path: in.Path, OnKey: true, Severity: severity.Error, Code: "render", Message: fmt.Sprintf("rendering failed: %v", r)})
		}
	}()
	out.DesiredXR, _ = paved.DeepCopy(in.DesiredXR).(map[string]any)
	if out.DesiredXR == nil {
		out.DesiredXR = map[string]any{}
	}
	// The function gives the desired composite the observed one's kind.
	out.DesiredXR["apiVersion"] = in.XR["apiVersion"]
	out.DesiredXR["kind"] = in.XR["kind"]
	env, _ := paved.DeepCopy(in.Environment).(map[string]any)
	if env == nil {
		env = map[string]any{}
	}
	if env["apiVersion"] == nil && env["kind"] == nil {
		// As the function: an environment without a kind gets its own.
		env["apiVersion"], env["kind"] = "internal.crossplane.io/v1alpha1", "Environment"
	}
	desired := make(map[string]map[string]any, len(in.Desired))
	for k, v := range in.Desired {
		desired[k] = v
	}
	r := &renderer{lenient: in.Lenient, xr: in.XR, dxr: out.DesiredXR, env: env, envUnknown: in.EnvironmentUnknown, holder: in.Input, hp: in.Path, step: in.Step, desired: in.Desired, opaque: in.Opaque}
	out.Resources = r.run()
	for _, res := range out.Resources {
		switch {
		case res.Object != nil && res.Name != "":
			desired[res.Name] = res.Object
		case res.Withheld:
			out.Withheld = true
		}
	}
	out.Desired, out.Environment, out.Notes = desired, env, r.notes
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

type renderer struct {
	lenient bool
	xr      map[string]any // observed composite
	dxr     map[string]any // desired composite
	env     map[string]any
	// envUnknown: what env holds is not known.
	envUnknown bool
	holder     map[string]any // spec of a classic Composition, or a P&T input
	hp         fieldpath.Path
	step       string
	notes      []render.Note
	// classic Compositions merge by policy.mergeOptions; P&T by
	// policy.toFieldPath.
	classic bool
	// desired are the composed resources earlier steps desire (not
	// modified); opaque: an earlier step was not run.
	desired map[string]map[string]any
	opaque  bool
	// envSize and dxrSize track what environment patches write.
	envSize, dxrSize *budget
}

func (r *renderer) note(p fieldpath.Path, onKey bool, sev severity.Severity, code, msg string) {
	r.notes = append(r.notes, render.Note{Path: p, OnKey: onKey, Severity: sev, Code: code, Message: msg})
}

// patchRef is a patch and where it is written (inside a patchSet when it
// came from one).
type patchRef struct {
	patch map[string]any
	path  fieldpath.Path
}

func (r *renderer) run() []render.Resource {
	sets := map[string][]patchRef{}
	setList, _ := r.holder["patchSets"].([]any)
	for i, s := range setList {
		sm, _ := s.(map[string]any)
		name, _ := sm["name"].(string)
		patches, _ := sm["patches"].([]any)
		for j, p := range patches {
			pm, _ := p.(map[string]any)
			sets[name] = append(sets[name], patchRef{pm, r.hp.Child(fieldpath.Field("patchSets"), fieldpath.Index(i), fieldpath.Field("patches"), fieldpath.Index(j))})
		}
	}
	// Environment patches run first, as in P&T.
	if envm, ok := r.holder["environment"].(map[string]any); ok {
		patches, _ := envm["patches"].([]any)
		for j, p := range patches {
			pm, _ := p.(map[string]any)
			pp := r.hp.Child(fieldpath.Field("environment"), fieldpath.Field("patches"), fieldpath.Index(j))
			r.environmentPatch(pm, pp)
		}
	}
	list, _ := r.holder["resources"].([]any)
	var out []render.Resource
	for i, t := range list {
		tm, _ := t.(map[string]any)
		out = append(out, r.resource(i, tm, sets))
	}
	return out
}

// resource renders one resource template. A failure, even a bug, becomes a
// note on the resource, which is then not rendered.
func (r *renderer) resource(i int, tm map[string]any, sets map[string][]patchRef) (res render.Resource) {
	rp := r.hp.Child(fieldpath.Field("resources"), fieldpath.Index(i))
	defer func() {
		if e := recover(); e != nil {
			r.note(rp, true, severity.Error, "render", fmt.Sprintf("rendering this resource failed: %v", e))
			res.Object = nil
		}
	}()
	name, _ := tm["name"].(string)
	res = render.Resource{Name: name, Step: r.step, Path: rp}
	base, ok := tm["base"].(map[string]any)
	if !ok {
		prev, found := r.desired[name]
		switch {
		case found && name != "":
			base = prev // patch a copy of what an earlier step composed
		case r.opaque:
			r.note(rp, true, severity.Warning, "render", fmt.Sprintf("resource %q has no base: it can only patch a resource an earlier step composed, and an earlier step runs a function crd-lsp did not run", name))
			return res
		default:
			r.note(rp, true, severity.Error, "render", fmt.Sprintf("composed resource %q has no base template, and was not produced by a previous function in the pipeline", name))
			return res
		}
	}
	obj, _ := paved.DeepCopy(base).(map[string]any)
	size := newBudget(obj)
	// Expand PatchSets at their point of use.
	var patches []patchRef
	pl, _ := tm["patches"].([]any)
	for j, p := range pl {
		pm, _ := p.(map[string]any)
		pp := rp.Child(fieldpath.Field("patches"), fieldpath.Index(j))
		if typeOf(pm) == "PatchSet" {
			setName, _ := pm["patchSetName"].(string)
			set, ok := sets[setName]
			if !ok {
				if r.lenient {
					r.note(pp, true, severity.Error, "render-invalid", fmt.Sprintf("cannot find PatchSet by name %s: its patches are left out", setName))
					// A misspelt name would have set what the PatchSet it
					// meant sets; a name like no other, nothing known.
					if meant, ok := closestSet(setName, sets); ok {
						for _, p := range sets[meant] {
							if to := target(p.patch); to != nil {
								res.Failures = append(res.Failures, render.Failure{Patch: pp, To: to})
							}
						}
					}
					continue
				}
				r.note(pp, true, severity.Error, "render-invalid", fmt.Sprintf("resource %q is not rendered: cannot find PatchSet by name %s", name, setName))
				return res
			}
			patches = append(patches, set...)
			continue
		}
		patches = append(patches, patchRef{pm, pp})
	}
	for _, p := range patches {
		t := typeOf(p.patch)
		switch t {
		case "FromCompositeFieldPath", "FromEnvironmentFieldPath", "CombineFromComposite", "CombineFromEnvironment":
		default:
			continue // reads an observed composed resource, which a render has not
		}
		src := r.xr
		if strings.HasSuffix(t, "Environment") || t == "FromEnvironmentFieldPath" {
			src = r.env
		}
		w, skip, err := apply(p.patch, p.path, src, obj, r.classic, size)
		switch {
		case err == nil && skip != nil:
			skip.Environment = strings.HasSuffix(t, "Environment") || t == "FromEnvironmentFieldPath"
			skip.Unknown = skip.Environment && r.envUnknown
			skip.Required = policyOf(p.patch) == "Required"
			res.Skips = append(res.Skips, *skip)
			if skip.Required && r.lenient {
				r.note(p.path, true, severity.Info, "render-required", fmt.Sprintf("resource %q is only created once %s is set (policy.fromFieldPath: Required)", orDefault(name, "#"+fmt.Sprint(i)), strings.Join(skip.From, ", ")))
			} else if skip.Required {
				r.note(p.path, true, severity.Info, "render-required", fmt.Sprintf("resource %q is not created while %s is not set (policy.fromFieldPath: Required)", orDefault(name, "#"+fmt.Sprint(i)), strings.Join(skip.From, ", ")))
				res.Skips = nil
				res.Withheld = true
				return res
			}
		case err != nil && r.lenient:
			r.failed(p.path, "", err)
			// A failing transform: what the patch writes is unknown. (A
			// fieldPath that does not parse is reported where it is
			// written; what it would set is still missing.)
			var te *transformError
			if to := target(p.patch); to != nil && errors.As(err, &te) {
				res.Failures = append(res.Failures, render.Failure{Patch: p.path, To: to})
			}
		case err != nil:
			r.failed(p.path, name, err)
			return res
		default:
			res.Writes = append(res.Writes, w...)
		}
	}
	res.Object = obj
	return res
}

// closestSet is the defined PatchSet a missing name most likely means
// (suggest.Closest).
func closestSet(name string, sets map[string][]patchRef) (string, bool) {
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	return suggest.Closest(name, names)
}

// target is the field a patch writes: toFieldPath, which defaults to
// fromFieldPath; nil when neither parses.
func target(pm map[string]any) fieldpath.Path {
	to, ok := pm["toFieldPath"].(string)
	if !ok {
		to, _ = pm["fromFieldPath"].(string)
	}
	p, err := fieldpath.Parse(to)
	if err != nil || len(p) == 0 {
		return nil
	}
	return p
}

func typeOf(pm map[string]any) string {
	if t, _ := pm["type"].(string); t != "" {
		return t
	}
	return "FromCompositeFieldPath"
}

func policyOf(pm map[string]any) string {
	pol, _ := pm["policy"].(map[string]any)
	if v, _ := pol["fromFieldPath"].(string); v != "" {
		return v
	}
	return "Optional"
}

// environmentPatch applies an environment patch between the composite and
// the environment (FromComposite/ToEnvironment write the environment,
// ToComposite/FromEnvironment the desired composite).
func (r *renderer) environmentPatch(pm map[string]any, pp fieldpath.Path) {
	var src, dst map[string]any
	var b **budget
	switch typeOf(pm) {
	case "FromCompositeFieldPath", "ToEnvironmentFieldPath", "CombineFromComposite":
		src, dst, b = r.xr, r.env, &r.envSize
	case "ToCompositeFieldPath", "FromEnvironmentFieldPath", "CombineToComposite":
		src, dst, b = r.env, r.dxr, &r.dxrSize
	default:
		return
	}
	if *b == nil {
		*b = newBudget(dst)
	}
	if _, _, err := apply(pm, pp, src, dst, r.classic, *b); err != nil {
		r.failed(pp, "", err)
	}
}

// failed notes a patch that failed, on the transform that failed when it
// is one. P&T would stop rendering; the resource is not rendered. A
// transform that is invalid whatever its input gets code render-invalid
// (the Composition checks report it already).
func (r *renderer) failed(pp fieldpath.Path, resource string, err error) {
	what := "the patch is left out"
	if resource != "" {
		what = fmt.Sprintf("resource %q is not rendered", resource)
	}
	var te *transformError
	var le *LimitError
	if errors.As(err, &le) {
		// A limit of crd-lsp's, not a mistake in the Composition.
		p := pp
		if errors.As(err, &te) {
			p = pp.Child(fieldpath.Field("transforms"), fieldpath.Index(te.index))
		}
		r.note(p, true, severity.Warning, "render-limit", fmt.Sprintf("%s: %v", what, le))
		return
	}
	if errors.As(err, &te) {
		code := "render-transform"
		var tr *TransformError
		if errors.As(te.err, &tr) && tr.Invalid {
			code = "render-invalid"
		}
		r.note(pp.Child(fieldpath.Field("transforms"), fieldpath.Index(te.index)), true, severity.Error, code, fmt.Sprintf("%s: %v", what, te.err))
		return
	}
	code := "render-patch"
	var ie *invalidError
	if errors.As(err, &ie) {
		code = "render-invalid"
	}
	r.note(pp, true, severity.Error, code, fmt.Sprintf("%s: %v", what, err))
}

// invalidError is a patch that is wrong whatever the composite holds.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }

type transformError struct {
	index int
	err   error
}

func (e *transformError) Error() string {
	return fmt.Sprintf("transform at index %d: %v", e.index, e.err)
}

func (e *transformError) Unwrap() error { return e.err }

// apply runs one patch from src to dst. A source that is not set skips
// the patch (skip non-nil), as P&T does for optional and required paths
// alike (Required additionally withholds the resource; the caller decides).
func apply(pm map[string]any, pp fieldpath.Path, src, dst map[string]any, classic bool, b *budget) ([]render.Write, *render.Skip, error) {
	t := typeOf(pm)
	from, _ := pm["fromFieldPath"].(string)
	to, hasTo := pm["toFieldPath"].(string)
	var value any
	var reads []string
	if strings.HasPrefix(t, "Combine") {
		comb, _ := pm["combine"].(map[string]any)
		vars, _ := comb["variables"].([]any)
		in := make([]any, len(vars))
		for i, v := range vars {
			vm, _ := v.(map[string]any)
			fp, _ := vm["fromFieldPath"].(string)
			reads = append(reads, fp)
			x, err := getString(src, fp)
			if err != nil {
				if paved.IsNotFound(err) {
					return nil, &render.Skip{To: mustParse(to), Patch: pp, From: reads[len(reads)-1:]}, nil
				}
				return nil, nil, err
			}
			in[i] = x
		}
		strategy, _ := comb["strategy"].(string)
		if strategy != "string" {
			return nil, nil, &invalidError{fmt.Errorf("combine strategy %q is not supported", strategy)}
		}
		str, _ := comb["string"].(map[string]any)
		format, ok := str["fmt"].(string)
		if !ok {
			return nil, nil, &invalidError{fmt.Errorf("given combine strategy %s requires configuration", strategy)}
		}
		combined, err := formatValue("the combined value", format, in...)
		if err != nil {
			return nil, nil, err
		}
		value = combined
	} else {
		if !hasTo {
			to = from // toFieldPath defaults to fromFieldPath
		}
		reads = []string{from}
		x, err := getString(src, from)
		if err != nil {
			if paved.IsNotFound(err) {
				return nil, &render.Skip{To: mustParse(to), Patch: pp, From: reads}, nil
			}
			return nil, nil, err
		}
		value = x
	}
	transforms, _ := pm["transforms"].([]any)
	out, at, err := transformAll(transforms, value, classic)
	if err != nil {
		return nil, nil, &transformError{index: at, err: err}
	}
	top, err := fieldpath.Parse(to)
	if err != nil {
		return nil, nil, &invalidError{fmt.Errorf("invalid toFieldPath %q: %v", to, err)}
	}
	var opts paved.MergeOptions
	if classic {
		pol, _ := pm["policy"].(map[string]any)
		mo, _ := pol["mergeOptions"].(map[string]any)
		opts, err = paved.LegacyMergeOptions(mo)
	} else {
		opts, err = paved.PatchMergeOptions(pm)
	}
	if err != nil {
		return nil, nil, err
	}
	targets := []fieldpath.Path{top}
	if hasWildcard(top) {
		if targets, err = paved.Expand(dst, top); err != nil {
			return nil, nil, err
		}
		if len(targets) == 0 {
			return nil, nil, fmt.Errorf("cannot expand ToFieldPath %s", to)
		}
	}
	size := valueSize(out, MaxObjectSize)
	if size > MaxValueSize {
		return nil, nil, &LimitError{What: "the value this patch writes", Size: size, Limit: MaxValueSize}
	}
	var writes []render.Write
	for _, tp := range targets {
		if err := b.add("the object this patch writes to", size); err != nil {
			return nil, nil, err
		}
		if err := paved.Merge(dst, tp, out, opts); err != nil {
			return nil, nil, fmt.Errorf("cannot patch to object: %v", err)
		}
		writes = append(writes, render.Write{To: tp, Patch: pp, From: strings.Join(reads, ", "), Reads: reads})
	}
	return writes, nil, nil
}

func getString(obj map[string]any, p string) (any, error) {
	fp, err := fieldpath.Parse(p)
	if err != nil {
		return nil, &invalidError{fmt.Errorf("invalid fieldPath %q: %v", p, err)}
	}
	return paved.Get(obj, fp)
}

func mustParse(s string) fieldpath.Path {
	p, _ := fieldpath.Parse(s)
	return p
}

func hasWildcard(p fieldpath.Path) bool {
	for _, s := range p {
		if s.Kind == fieldpath.KindWildcard {
			return true
		}
	}
	return false
}
