// This file renders a Composition's function pipeline (patch-and-transform in-
// process, other steps as env.Options.Pipeline runs them) and turns what real
// functions did into diagnostics.

package analysis

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/dummy"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/functions/known"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Pipeline runs a Composition's function pipeline with real composition
// functions. A front end puts one in Env when functions are configured
// (internal/functions' Pipeline over a Registry implements it); analysis
// never starts or calls a function itself: it hands the Pipeline the
// Composition, the composite as Crossplane prepares it and a Router for
// the steps it runs in-process (function-patch-and-transform), and reads
// the plain results.
type Pipeline interface {
	// Runs says whether the Pipeline runs a step through a real function
	// (rather than natively, or not at all).
	Runs(step functions.Step) bool
	// Run runs in's pipeline: steps native takes run in-process, those
	// the Pipeline can reach run for real, the others pass the desired
	// state through. It honours ctx and always returns.
	Run(ctx context.Context, in functions.Input, native functions.Router) functions.Output
}

// Rendering is a rendered Composition: its resources and notes, the
// composite it was rendered with, and what real functions did.
type Rendering struct {
	render.Output
	// Synthesized: the composite was synthesised from the XRD.
	Synthesized bool
	// Functions are the composed resources a real function composed (or
	// last changed), by name, with the index of its step.
	Functions map[string]int
	// Pipeline is the pipeline's run when real functions ran (nil when the
	// Composition was rendered natively only).
	Pipeline *functions.Output
	// Namespaced and Legacy describe the composite rendered with: a
	// namespaced (Crossplane v2) XR, a legacy (v1 or LegacyCluster) one.
	Namespaced, Legacy bool
	// EnvironmentSource says where a field read from the environment
	// would come from (environment.go), for findings on one it lacks.
	EnvironmentSource string
	// NoValue are the places each go-templating step crd-lsp rendered
	// in-process wrote "<no value>", by step index.
	NoValue map[int][]gotemplating.NoValue
}

// Codes of the notes on steps that real functions ran.
const (
	codeFunctionResult = "function-result"
	codeFunctionFailed = "function-failed"
)

// runsFunctions says whether a step of m runs through the pipeline
// engine: for real (env's Pipeline), or a function crd-lsp runs
// in-process besides patch-and-transform (function-go-templating; for a
// strict render, function-sequencer too).
func runsFunctions(m map[string]any, env Env, lenient bool) bool {
	for _, st := range functions.Steps(m) {
		if f := nativeFunction(st); rendersStep(env, st) || !lenient && f != nil {
			return true
		}
	}
	return false
}

// rendersStep says whether a step other than patch-and-transform is
// rendered: run for real by env's Pipeline, or natively
// (function-go-templating).
func rendersStep(env Env, st functions.Step) bool {
	f := nativeFunction(st)
	return f != nil && !f.RenderOnly || env.Options.Pipeline != nil && env.Options.Pipeline.Runs(st)
}

// nativeFunction is the known function with an in-process runner whose
// input a step holds (go-templating, function-dummy, …), nil for none.
func nativeFunction(st functions.Step) *functions.Known {
	g, ok := baseGVK(st.Input)
	if !ok {
		return nil
	}
	if f := known.ByInput(g); f != nil && f.Native != nil {
		return f
	}
	return nil
}

func stepPath(i int) fieldpath.Path {
	return fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline"), fieldpath.Index(i)}
}

// renderPipeline renders a Composition's pipeline through env.Options.Pipeline:
// patch-and-transform steps run in-process (patchandtransform.RenderStep, from the
// desired state the steps before them left), the others as the Pipeline
// runs them. The result has the shape of a native render: every composed
// resource the pipeline desires, with Crossplane's metadata, the native
// steps' templates that rendered nothing, and notes on the steps.
//
// It reads as three steps: route the steps (pipelineRun.route), run the
// pipeline, and merge what each step did into a Rendering
// (pipelineRun.rendering).
func renderPipeline(ctx context.Context, m, xr map[string]any, namespaced, lenient bool, clusterScoped func(apiVersion, kind string) bool, env Env, er *environmentRun, start map[string]any) Rendering {
	pr := &pipelineRun{
		env: env, er: er, steps: functions.Steps(m), lenient: lenient,
		deadline: time.Now().Add(gotemplating.DefaultTimeout),
		native:   map[int]patchandtransform.StepOutput{},
		envNotes: map[int][]render.Note{},
		noValue:  map[int][]gotemplating.NoValue{},
	}
	ctx = gotemplating.WithNoValue(ctx, func(st functions.Step, _ gotemplating.Template, at []gotemplating.NoValue) {
		pr.record(func() { pr.noValue[st.Index] = at }) // the step's last run (it may be asked again for required resources)
	})
	in := pipelineInput(m, xr, env, start)
	var out functions.Output
	if env.Options.Pipeline != nil {
		out = env.Options.Pipeline.Run(ctx, in, pr.route)
	} else {
		in.Route = pr.route
		out = functions.Run(ctx, in)
	}
	rd := pr.rendering(xr, out)
	for _, res := range rd.Resources {
		if res.Object != nil {
			if err := render.ComposedMetadata(res.Object, res.Name, xr, namespaced && !render.IsClusterScoped(clusterScoped, res.Object)); err != nil {
				rd.Notes = append(rd.Notes, render.MetadataNote(res, xr, err))
			}
		}
	}
	return rd
}

// pipelineRun is one run of a Composition's pipeline: how its steps are
// routed, and what the steps crd-lsp runs in-process recorded (the run
// may call them concurrently, so mu guards what they record).
type pipelineRun struct {
	env      Env
	er       *environmentRun
	steps    []functions.Step
	lenient  bool
	deadline time.Time // for the go templates run in-process

	mu       sync.Mutex
	native   map[int]patchandtransform.StepOutput // patch-and-transform steps' outputs, by step index
	envNotes map[int][]render.Note                // notes of function-environment-configs steps run natively
	noValue  map[int][]gotemplating.NoValue       // where go templates run in-process wrote "<no value>"
	sealed   bool                                 // the pipeline ran: record does nothing more
}

// record runs f under the run's lock, unless the run is sealed: a step
// whose call outlived the pipeline (it timed out, and its runner went on)
// no longer touches what the rendering reads.
func (pr *pipelineRun) record(f func()) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if !pr.sealed {
		f()
	}
}

// realFunction says whether env's Pipeline runs st for real.
func (pr *pipelineRun) realFunction(st functions.Step) bool {
	return pr.env.Options.Pipeline != nil && pr.env.Options.Pipeline.Runs(st)
}

// route is the pipeline's functions.Router: the steps crd-lsp runs
// in-process, with who runs them; nil for the others.
func (pr *pipelineRun) route(st functions.Step) (functions.Runner, string) {
	switch {
	case functions.IsPatchAndTransform(st):
		return functions.Native(pr.patchAndTransform), "crd-lsp (patch-and-transform, in-process)"
	case pr.realFunction(st):
		return nil, ""
	case isEnvironmentStep(st.Input):
		return functions.Native(pr.er.native(pr.envNotes, pr.record)), "crd-lsp (function-environment-configs, in-process)"
	}
	if f := nativeFunction(st); f != nil && !(f.RenderOnly && pr.lenient) {
		nenv := functions.NativeEnv{Files: pr.env.Workspace.Rendering().TemplateFiles, Unrun: pr.unrun, Deadline: pr.deadline}
		// The release the workspace pins, when the step is linked to this
		// very function: the renderer follows what that release does.
		if l := linkFunction(st.Function, st.Input, pr.env); l.Fn == f && l.Pinned {
			nenv.Release = l.Release
		}
		run := f.Native(nenv)
		return functions.Native(run), "crd-lsp (" + strings.TrimPrefix(f.Name, "function-") + ", in-process)"
	}
	return nil, ""
}

// unrun names the first step before st that nothing runs, natively or
// for real, and that may leave data a template reads (readiness and
// ordering functions leave none).
func (pr *pipelineRun) unrun(st functions.Step) string {
	for _, e := range pr.steps[:min(st.Index, len(pr.steps))] {
		if run, _ := pr.route(e); run != nil || pr.realFunction(e) || known.LeavesNoData(e.Function) {
			continue
		}
		return fmt.Sprintf("step %q (%s)", e.Name, orFunction(e.Function))
	}
	return ""
}

// patchAndTransform runs a patch-and-transform step in-process
// (patchandtransform.RenderStep) on the desired state the steps before it left, and
// records its output for rendering.
func (pr *pipelineRun) patchAndTransform(_ context.Context, st functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
	environment, _ := req.Context[render.EnvironmentContextKey].(map[string]any)
	desired := make(map[string]map[string]any, len(req.Desired.Resources))
	for n, r := range req.Desired.Resources {
		desired[n] = r.Object
	}
	// A step before it that nothing runs leaves a desired state that is
	// not known.
	opaque := false
	for _, e := range pr.steps[:min(st.Index, len(pr.steps))] {
		if !functions.IsPatchAndTransform(e) && !known.ComposesNothing(e.Function) && !rendersStep(pr.env, e) {
			opaque = true
		}
	}
	var unknown bool
	pr.record(func() { unknown = pr.er.unknown })
	so := patchandtransform.RenderStep(patchandtransform.StepInput{Input: st.Input, Path: stepPath(st.Index).Child(fieldpath.Field("input")), Step: st.Name,
		XR: req.Observed.Composite.Object, DesiredXR: req.Desired.Composite.Object, Desired: desired, Environment: environment, EnvironmentUnknown: unknown, Opaque: opaque, Lenient: pr.lenient})
	pr.record(func() { pr.native[st.Index] = so })
	return stepResponse(req, so, pr.lenient), nil
}

// stepResponse is a patch-and-transform step's output as the function's
// response to req: resources it left as they were keep their identity
// (and so the step that last changed them), and unless lenient, its
// first error fails it as the function fails then.
func stepResponse(req functions.NativeRequest, so patchandtransform.StepOutput, lenient bool) functions.NativeResponse {
	rsp := functions.NativeResponse{Desired: functions.State{Composite: req.Desired.Composite, Resources: map[string]functions.Resource{}}}
	rsp.Desired.Composite.Object = so.DesiredXR
	if so.Withheld {
		rsp.Desired.Composite.Ready = functions.ReadyFalse
	}
	for n, obj := range so.Desired {
		if old, ok := req.Desired.Resources[n]; ok && sameMap(old.Object, obj) {
			rsp.Desired.Resources[n] = old // passed through as it was
			continue
		}
		rsp.Desired.Resources[n] = functions.Resource{Object: obj}
	}
	rsp.Context = map[string]any{}
	for k, v := range req.Context {
		rsp.Context[k] = v
	}
	rsp.Context[render.EnvironmentContextKey] = so.Environment
	if !lenient {
		// The function stops at the first failure, as Crossplane then.
		for _, n := range so.Notes {
			if n.Severity == severity.Error {
				rsp.Results = append(rsp.Results, functions.Result{Severity: functions.SeverityFatal, Message: n.Message})
				break
			}
		}
	}
	return rsp
}

// rendering merges what each step did in out into a Rendering of the
// composite xr: the native steps' resources and notes, and the results
// and composed resources of the steps functions ran.
func (pr *pipelineRun) rendering(xr map[string]any, out functions.Output) Rendering {
	pr.record(func() { pr.sealed = true })
	rd := Rendering{Pipeline: &out, Functions: map[string]int{}, NoValue: pr.noValue}
	rd.XR, _ = paved.DeepCopy(xr).(map[string]any)
	if rd.XR == nil {
		rd.XR = map[string]any{}
	}
	merge(rd.XR, out.Desired.Composite.Object)
	if out.Err != nil {
		rd.Notes = append(rd.Notes, render.Note{Path: fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline")}, OnKey: true, Severity: severity.Error, Code: codeFunctionFailed, Message: out.Err.Error()})
	}
	ran := map[int]functions.StepResult{}
	for _, sr := range out.Steps {
		ran[sr.Step.Index] = sr
	}
	claimed := pr.claimed(out)
	for _, st := range pr.steps {
		if ns, ok := pr.envNotes[st.Index]; ok {
			rd.Notes = append(rd.Notes, ns...)
			continue
		}
		if so, ok := pr.native[st.Index]; ok {
			pr.nativeStep(&rd, so, st, out, claimed)
			continue
		}
		if sr, ok := ran[st.Index]; ok { // else after the step that stopped the pipeline
			pr.functionStep(&rd, sr, st, out, claimed)
		}
	}
	return rd
}

// claimed maps each resource to the step it belongs to: the last native
// step with a template for it that no later step changed (even when that
// template wrote nothing: its skipped patches say why a field is
// missing). Resources not in it belong to the step that last changed them.
func (pr *pipelineRun) claimed(out functions.Output) map[string]int {
	claimed := map[string]int{}
	for _, st := range pr.steps {
		for _, res := range pr.native[st.Index].Resources {
			if final, ok := out.Desired.Resources[res.Name]; ok && res.Name != "" && final.Step <= st.Index {
				claimed[res.Name] = st.Index
			}
		}
	}
	return claimed
}

// nativeStep adds a patch-and-transform step's resources (as the
// pipeline left those it claims; the templates that rendered nothing)
// and notes to rd.
func (pr *pipelineRun) nativeStep(rd *Rendering, so patchandtransform.StepOutput, st functions.Step, out functions.Output, claimed map[string]int) {
	for _, res := range so.Resources {
		final, desired := out.Desired.Resources[res.Name]
		switch {
		case res.Name != "" && desired && claimed[res.Name] == st.Index:
			res.Object = final.Object
		case res.Object != nil:
			continue // replaced or removed by a later step
		}
		rd.Resources = append(rd.Resources, res)
	}
	rd.Notes = append(rd.Notes, so.Notes...)
}

// functionStep adds what a step the pipeline ran (or skipped) did to rd:
// a note that it was skipped, its failure or results, and the resources
// it was the last to change.
func (pr *pipelineRun) functionStep(rd *Rendering, sr functions.StepResult, st functions.Step, out functions.Output, claimed map[string]int) {
	sp := stepPath(st.Index)
	name := pr.env.functionName(st.Function)
	if sr.Skipped {
		if !functions.IsPatchAndTransform(st) && !known.ComposesNothing(st.Function) {
			rd.Notes = append(rd.Notes, render.Note{Path: sp.Child(fieldpath.Field("step")), Severity: severity.Info, Code: "render-step",
				Message: fmt.Sprintf("step %q runs %s, which crd-lsp cannot run until it is configured (%s): it passes the desired state through, and resources it would compose are not rendered or validated", st.Name, name, render.HowToConfigure)})
		}
		return
	}
	rest := ""
	if st.Index < len(pr.steps)-1 {
		rest = "; the steps after it were not run"
	}
	if sr.Err != nil {
		rd.Notes = append(rd.Notes, render.Note{Path: sp.Child(fieldpath.Field("step")), Severity: severity.Error, Code: codeFunctionFailed,
			Message: fmt.Sprintf("step %q failed: %v%s", st.Name, sr.Err, rest)})
		return
	}
	for _, r := range sr.Results {
		rd.Notes = append(rd.Notes, render.Note{Path: sp.Child(fieldpath.Field("step")), Severity: resultSeverity(r.Severity), Code: codeFunctionResult, Message: resultMessage(name, r, rest)})
	}
	names := make([]string, 0, len(sr.Composed))
	for _, n := range sr.Composed {
		if _, native := claimed[n]; native {
			continue
		}
		if r, ok := out.Desired.Resources[n]; ok && r.Step == st.Index {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		rd.Functions[n] = st.Index
		path := sp
		if p, ok := dummyResourcePath(st, sp, n); ok && dummy.Is(st) && !pr.realFunction(st) {
			path = p // the resource is literal in the step's input
		}
		rd.Resources = append(rd.Resources, render.Resource{Name: n, Step: st.Name, Path: path, Object: out.Desired.Resources[n].Object})
	}
}

// resultSeverity is a function result's severity as a note's.
func resultSeverity(s functions.Severity) severity.Severity {
	switch s {
	case functions.SeverityFatal:
		return severity.Error
	case functions.SeverityWarning:
		return severity.Warning
	}
	return severity.Info
}

// resultMessage is a note's message for a result of the function named
// name; rest says what a fatal result stopped.
func resultMessage(name string, r functions.Result, rest string) string {
	if r.Severity == functions.SeverityFatal {
		return fmt.Sprintf("%s failed: %s%s", name, r.Message, rest)
	}
	return fmt.Sprintf("%s: %s", name, r.Message)
}

func orFunction(fn string) string {
	if fn == "" {
		return "a function"
	}
	return fn
}

// sameMap says whether a and b are the same map (not merely equal).
func sameMap(a, b map[string]any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// merge writes src over dst, recursing into objects.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = paved.DeepCopy(v)
	}
}

// stepIndex is the pipeline index in a path below spec.pipeline[i].
func stepIndex(p fieldpath.Path) (int, bool) {
	if len(p) >= 3 && p[0].Field == "spec" && p[1].Field == "pipeline" && p[2].Kind == fieldpath.KindIndex {
		return p[2].Index, true
	}
	return 0, false
}

// functionDiagnostics turns what real functions did in a rendering into
// diagnostics: their results and failures on their steps (an execution
// error of a go template at its place), and what the resources they
// composed lack or hold that their kinds' schemas reject, on the template
// document that composed the resource (at the key when it is written
// literally) or else on the step. example names the example composite
// the rendering used; "" is a synthesised one, whose placeholders may be
// what a function fails on or writes: its findings are warnings, and
// only missing required fields are reported.
func functionDiagnostics(ctx context.Context, d *document.Doc, m map[string]any, rd Rendering, example string, env Env) []Diagnostic {
	if rd.Pipeline == nil {
		return nil
	}
	ff := &functionFindings{d: d, example: example, tsteps: map[int]*templateStep{}, repeated: map[string]int{}, more: map[int]int{}, env: env}
	for _, ts := range templateSteps(d, m) {
		ff.tsteps[ts.index] = ts
	}
	for i, ts := range fileTemplateSteps(m, env) {
		ff.tsteps[i] = ts
	}
	ff.with = "rendered with " + example
	if example == "" {
		ff.with = "rendered with a composite resource synthesised from the XRD"
	}
	for _, n := range rd.Notes {
		if n.Code == codeFunctionResult || n.Code == codeFunctionFailed {
			ff.note(n)
		}
	}
	ff.noValue = rd.NoValue
	ff.noValues(m, env)
	for _, res := range rd.Resources {
		idx, ok := rd.Functions[res.Name]
		if !ok || res.Object == nil || ctx.Err() != nil {
			continue
		}
		if sch, ok := schemaFor(d, res.Object, env); ok {
			ff.resource(ctx, res, idx, sch)
		}
	}
	return ff.counted()
}

// functionFindings gathers functionDiagnostics' findings on a Composition
// document d.
type functionFindings struct {
	d        *document.Doc
	example  string // the example composite's file; "" for a synthesised one
	with     string // what the messages say the rendering was made with
	tsteps   map[int]*templateStep
	out      []Diagnostic
	repeated map[string]int // a template document's finding → its index in out
	more     map[int]int    // index in out → how many more resources share it
	noValue  map[int][]gotemplating.NoValue
	env      Env
}

// note adds a function's result or failure on its step (an execution
// error of a go template at its place in the template).
func (ff *functionFindings) note(n render.Note) {
	idx, _ := stepIndex(n.Path)
	ts := ff.tsteps[idx]
	if ts != nil && len(ts.problems) > 0 && n.Code == codeFunctionResult && (n.Severity == severity.Error || ts.problems[0].Limit) {
		return // the template's syntax error (or limit) is reported where it is
	}
	dg := diagnosticAt(ff.d, n.Path, n.OnKey, n.Severity, n.Code, n.Message)
	if ts != nil {
		if sp, ok := ts.resultSpan(n.Message); ok {
			dg.Span = sp
		}
	}
	if ff.example == "" && dg.Severity == severity.Error && n.Code == codeFunctionResult {
		dg.Severity = severity.Warning
		dg.Message += " (" + ff.with + ")"
	}
	ff.out = append(ff.out, dg)
}

// resource adds what the resource res, composed by step idx, lacks or
// holds that its kind's schema sch rejects.
func (ff *functionFindings) resource(ctx context.Context, res render.Resource, idx int, sch *schemas.Schema) {
	ts := ff.tsteps[idx]
	var doc gotemplating.Document
	hasDoc := false
	if ts != nil {
		doc, hasDoc = ts.producer(res.Name, res.Object)
	}
	seen := map[string]bool{}
	for _, e := range append(sch.ValidateThrough(ctx, res.Object), objectManifestErrors(ctx, res.Object, ff.d.File.URI, ff.env)...) {
		if e.Severity != severity.Error || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
			continue
		}
		missing := missingPath(e)
		if missing == nil && hasDoc && doc.Plain && baseCodes[e.Code] {
			continue // the template document's own check reports it
		}
		if missing == nil && len(ff.noValue[idx]) > 0 && holdsNoValue(res.Object, e.Path) {
			continue // the "<no value>" the template wrote is reported where it wrote it
		}
		literal := missing == nil && hasDoc && ts.literal(doc, e.Path)
		if missing == nil && ff.example == "" && !literal {
			continue // the placeholders may have written it
		}
		p, code := e.Path, "render-value"
		msg := fmt.Sprintf("resource %q that step %q composed: %s: %s (%s)", res.Name, res.Step, e.Path, e.Message, ff.with)
		if missing != nil {
			if len(missing) > 0 && missing[0].Field == "metadata" {
				continue
			}
			p, code = missing, "render-required"
			msg = fmt.Sprintf("%s is required by %s, but the resource %q that step %q composed lacks it (%s)", missing, sch.GVK.Kind, res.Name, res.Step, ff.with)
		}
		if seen[p.String()] {
			continue
		}
		seen[p.String()] = true
		sev := severity.Error
		if ff.example == "" && !literal {
			sev = severity.Warning
		}
		dg := diagnosticAt(ff.d, stepPath(idx).Child(fieldpath.Field("step")), false, sev, code, msg)
		if !hasDoc {
			ff.out = append(ff.out, dg)
			continue
		}
		if sp, _, ok := ts.pathSpan(doc, p, true); ok {
			dg.Span = sp
		} else if where := ts.fileLine(doc, p); where != "" {
			dg.Message += " [" + where + "]"
			dg.Span = diagnosticAt(ff.d, stepPath(idx).Child(fieldpath.Field("input"), fieldpath.Field("fileSystem"), fieldpath.Field("dirPath")), false, 0, "", "").Span
		}
		// The resources one template document makes in a loop share
		// their findings: one, counting the others.
		key := fmt.Sprint(idx, doc.Index, p, code, e.Message, sev)
		if i, ok := ff.repeated[key]; ok {
			ff.more[i]++
			continue
		}
		ff.repeated[key] = len(ff.out)
		ff.out = append(ff.out, dg)
	}
}

// counted is the findings, those shared by the resources of one template
// document saying how many more resources they stand for.
func (ff *functionFindings) counted() []Diagnostic {
	for i, n := range ff.more {
		noun := "resource"
		if n > 1 {
			noun = "resources"
		}
		ff.out[i].Message += fmt.Sprintf(" (and %d more %s this template document composed)", n, noun)
	}
	return ff.out
}

// hasExample says whether the workspace has an example composite for a
// Composition's kind that could select it.
func hasExample(m map[string]any, env Env) bool {
	return len(selectingExamples(m, env)) > 0
}
