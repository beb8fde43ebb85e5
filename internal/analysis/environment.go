// This file gives a rendered Composition the environment its pipeline
// builds (internal/functions/environmentconfigs): function-environment-configs steps run
// natively from the EnvironmentConfigs Env.Workspace.Render's Cluster knows, a classic
// Crossplane v1 Composition's spec.environment is resolved before its
// resources, and the context a pipeline starts with comes from the front
// end (crd-lsp render --context).

package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Cluster is what is known of the cluster a Composition runs in.
type Cluster struct {
	// EnvironmentConfigs are the EnvironmentConfigs it holds, best first
	// (of two with one name, the first is the one there).
	EnvironmentConfigs []map[string]any
	// Complete says EnvironmentConfigs are all it holds (crd-lsp render
	// --extra-resources, as crossplane render): a selection that finds
	// nothing among them certainly fails.
	Complete bool
	// From says where they come from, for messages: "in the workspace".
	From string
	// Resources are other resources functions' required-resource
	// selectors may find (--extra-resources besides EnvironmentConfigs).
	Resources []map[string]any
	// Context is the context a pipeline starts with (--context); nil is
	// an empty one.
	Context map[string]any
}

// codeEnvironment is the code of findings about how an environment is
// built.
const codeEnvironment = "environment"

// environmentRun records how a rendering's environment was built.
type environmentRun struct {
	opts     environmentconfigs.Options
	lenient  bool
	selected []string // EnvironmentConfigs merged, in order, across steps
	unknown  bool     // what the environment holds is not known
	loaded   bool     // a step (or spec.environment) loads EnvironmentConfigs
}

func newEnvironmentRun(env Env, synthesized, lenient bool) *environmentRun {
	from := env.Workspace.Rendering().Cluster.From
	if from == "" {
		from = "known"
	}
	return &environmentRun{lenient: lenient, opts: environmentconfigs.Options{Configs: environmentconfigs.InCluster(env.Workspace.Rendering().Cluster.EnvironmentConfigs, env.Workspace.CrossplaneMajor), Complete: env.Workspace.Rendering().Cluster.Complete,
		Synthesized: synthesized, From: from}}
}

// start is the environment the first step (or a classic Composition's
// resources) sees: the one Crossplane builds from spec.environment where
// the Composition API has it (before v1.18; v1.20 and v2 prune it), else
// the one in the starting context. notes are on spec.environment; failed
// says Crossplane composes nothing.
func (er *environmentRun) start(d *document.Doc, m, xr map[string]any, env Env) (map[string]any, []render.Note, bool) {
	initial, _ := env.Workspace.Rendering().Cluster.Context[environmentconfigs.ContextKey].(map[string]any)
	spec, _ := m["spec"].(map[string]any)
	es, ok := spec["environment"].(map[string]any)
	if !ok || !servesEnvironment(d, m, env) {
		return initial, nil, false
	}
	res := environmentconfigs.ResolveClassic(es, xr, er.opts)
	er.loaded = true
	er.selected = append(er.selected, res.Selected...)
	at := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("environment")}
	var notes []render.Note
	if res.Failure != nil {
		notes = append(notes, er.failure(at.Child(res.Failure.Path...), res.Failure, "Crossplane cannot compose the resources: "+res.Failure.Message))
	}
	if res.Unknown != "" || res.Failure != nil {
		er.unknown = true
	}
	if res.Unknown != "" {
		notes = append(notes, render.Note{Path: at, OnKey: true, Severity: severity.Info, Code: codeEnvironment,
			Message: "what the environment holds is not known: " + res.Unknown + "; fields read from it are not reported missing"})
	}
	return res.Environment, notes, res.Failure != nil
}

// servesEnvironment says whether the Composition schema that serves m
// has spec.environment (Crossplane before v1.18: the built-in v1.20 and
// v2 schemas do not, and the API server prunes it).
func servesEnvironment(d *document.Doc, m map[string]any, env Env) bool {
	gvk, ok := baseGVK(m)
	if !ok || env.Workspace.Schemas == nil {
		return false
	}
	sch, ok := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	if !ok {
		return false
	}
	st, err := sch.Structural()
	if err != nil || st == nil {
		return false
	}
	spec, ok := st.Properties["spec"]
	if !ok {
		return false
	}
	_, ok = spec.Properties["environment"]
	return ok
}

// failure is the note on a resolution that fails: an error when the
// failure is certain or the render strict, else a warning.
func (er *environmentRun) failure(p fieldpath.Path, f *environmentconfigs.Failure, msg string) render.Note {
	sev := severity.Warning
	if f.Certain || !er.lenient {
		sev = severity.Error
	}
	if !f.Certain && !er.opts.Complete {
		msg += ", unless the cluster holds an EnvironmentConfig crd-lsp does not know"
	}
	return render.Note{Path: p, OnKey: true, Severity: sev, Code: codeEnvironment, Message: msg}
}

// isEnvironmentStep says whether a step runs function-environment-
// configs (recognised by its input).
func isEnvironmentStep(input map[string]any) bool { return environmentconfigs.IsFunctionInput(input) }

// step runs a function-environment-configs step natively: the context
// it leaves (ctx with the environment it built), notes on it, and whether
// it fails.
func (er *environmentRun) step(i int, name string, input, xr, ctx map[string]any) render.ContextStepResult {
	prior, _ := ctx[environmentconfigs.ContextKey].(map[string]any)
	res := environmentconfigs.ResolveFunction(input, xr, prior, er.opts)
	er.loaded = true
	er.selected = append(er.selected, res.Selected...)
	sp := stepPath(i)
	out := render.ContextStepResult{Context: make(map[string]any, len(ctx)+1)}
	for k, v := range ctx {
		out.Context[k] = v
	}
	out.Context[environmentconfigs.ContextKey] = res.Environment
	if res.Failure != nil {
		out.Failed, out.Unknown = true, true
		out.Notes = append(out.Notes, er.failure(sp.Child(fieldpath.Field("input")).Child(res.Failure.Path...), res.Failure,
			fmt.Sprintf("step %q (function-environment-configs) fails: %s", name, res.Failure.Message)))
	}
	if res.Unknown != "" {
		out.Unknown = true
		out.Notes = append(out.Notes, render.Note{Path: sp.Child(fieldpath.Field("step")), Severity: severity.Info, Code: codeEnvironment,
			Message: fmt.Sprintf("what the environment holds after step %q is not known: %s; fields read from it are not reported missing", name, res.Unknown)})
	}
	er.unknown = er.unknown || out.Unknown
	return out
}

// contextStep is patchandtransform.Input.ContextStep for a native render.
func (er *environmentRun) contextStep(xr map[string]any) func(int, map[string]any, map[string]any) (render.ContextStepResult, bool) {
	return func(i int, sm, ctx map[string]any) (render.ContextStepResult, bool) {
		input, _ := sm["input"].(map[string]any)
		if !isEnvironmentStep(input) {
			return render.ContextStepResult{}, false
		}
		name, _ := sm["step"].(string)
		return er.step(i, name, input, xr, ctx), true
	}
}

// native runs a function-environment-configs step for a pipeline of real
// functions (when no real one is configured for it).
func (er *environmentRun) native(notes map[int][]render.Note, record func(func())) functions.NativeFunc {
	return func(_ context.Context, st functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
		var out render.ContextStepResult
		record(func() {
			out = er.step(st.Index, st.Name, st.Input, req.Observed.Composite.Object, req.Context)
			notes[st.Index] = out.Notes
		})
		rsp := functions.NativeResponse{Desired: req.Desired, Context: out.Context}
		if out.Failed && !er.lenient {
			for _, n := range out.Notes {
				if n.Severity != severity.Info {
					rsp.Results = append(rsp.Results, functions.Result{Severity: functions.SeverityFatal, Message: n.Message})
					break
				}
			}
		}
		return rsp, nil
	}
}

// describe says where a field read from the environment would come
// from, for a finding on a field it lacks.
func (er *environmentRun) describe() string {
	switch {
	case er.unknown:
		return "in the environment (what it holds is not known)"
	case !er.loaded:
		return "in the environment (crd-lsp renders with an empty one)"
	case len(er.selected) == 0:
		return fmt.Sprintf("in the environment (no EnvironmentConfig %s is selected)", er.opts.From)
	}
	qs := make([]string, len(er.selected))
	for i, s := range er.selected {
		qs[i] = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("in the environment (which EnvironmentConfig(s) %s %s give without it)", strings.Join(qs, ", "), er.opts.From)
}

// pipelineInput is what a pipeline of real functions runs with: the
// starting context (with the environment start, when there is one), and
// the resources required-resource selectors find: the known
// EnvironmentConfigs (as the API server serves them: one of a name, at
// v1beta1) and the other resources given.
func pipelineInput(m, xr map[string]any, env Env, start map[string]any) functions.Input {
	in := functions.Input{Composition: m, XR: xr}
	if len(env.Workspace.Rendering().Cluster.Context) > 0 || start != nil {
		in.Context = make(map[string]any, len(env.Workspace.Rendering().Cluster.Context)+1)
		for k, v := range env.Workspace.Rendering().Cluster.Context {
			in.Context[k] = v
		}
		if start != nil {
			in.Context[environmentconfigs.ContextKey] = start
		}
	}
	in.Resources = append(append(in.Resources, env.Workspace.Rendering().Cluster.Resources...), environmentconfigs.AsServed(environmentconfigs.InCluster(env.Workspace.Rendering().Cluster.EnvironmentConfigs, env.Workspace.CrossplaneMajor))...)
	return in
}
