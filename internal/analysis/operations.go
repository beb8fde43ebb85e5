// This file checks what Crossplane does with a pipeline beyond each step's
// input: a functionRef no Function defines, and the Operations of
// ops.crossplane.io (Operation, CronOperation, WatchOperation), whose
// pipelines are checked like a Composition's, whose schedule is parsed as
// Crossplane parses it and whose watched kind must be one the schemas
// know.

package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/robfig/cron/v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// undefinedFunctions warns on each step whose functionRef names no
// Function the workspace defines or its package root installs, when those
// are all known: Crossplane then cannot run the step ("cannot find an
// active FunctionRevision", crossplane v2.2.1 internal/xfn/function_runner.go:44).
func undefinedFunctions(d *document.Doc, steps []any, base fieldpath.Path, env Env) []Diagnostic {
	if env.Workspace.DefinedFunctions == nil {
		return nil
	}
	var names []string
	complete, asked := false, false
	var out []Diagnostic
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		name := stepFunctionName(sm)
		if name == "" {
			continue
		}
		if env.Workspace.FunctionOf != nil {
			if _, ok := env.Workspace.FunctionOf(name); ok {
				continue
			}
		}
		if env.Workspace.EmbeddedFunction != nil && env.Workspace.EmbeddedFunction(name) != "" {
			continue
		}
		if !asked {
			names, complete = env.Workspace.DefinedFunctions()
			asked = true
		}
		if !complete || len(names) == 0 || contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("no Function named %q is defined in the workspace or by the package's dependencies (defined: %s", name, quotedList(names))
		dg := diagnosticAt(d, base.Child(fieldpath.Index(i), fieldpath.Field("functionRef"), fieldpath.Field("name")), false, severity.Warning, "function-ref", "")
		if best, ok := suggest.Closest(name, names); ok {
			msg += fmt.Sprintf("; did you mean %q?", best)
			dg.Replace = best
		}
		dg.Message = msg + `); Crossplane cannot run the step ("cannot find an active FunctionRevision") unless such a Function is installed some other way`
		out = append(out, dg)
	}
	return out
}

func contains(vs []string, s string) bool {
	for _, v := range vs {
		if v == s {
			return true
		}
	}
	return false
}

func quotedList(vs []string) string {
	const most = 8
	q := make([]string, 0, min(len(vs), most))
	for _, v := range vs[:min(len(vs), most)] {
		q = append(q, fmt.Sprintf("%q", v))
	}
	s := strings.Join(q, ", ")
	if len(vs) > most {
		s += fmt.Sprintf(" and %d more", len(vs)-most)
	}
	return s
}

// opsGroup is the API group of Crossplane's Operations.
const opsGroup = "ops.crossplane.io"

// operationPipeline is where an Operation kind keeps its pipeline.
func operationPipeline(kind string) (fieldpath.Path, bool) {
	switch kind {
	case "Operation":
		return fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline")}, true
	case "CronOperation", "WatchOperation":
		return fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("operationTemplate"), fieldpath.Field("spec"), fieldpath.Field("pipeline")}, true
	}
	return nil, false
}

// operationChecks checks an Operation, CronOperation or WatchOperation
// beyond its schema: its pipeline's steps as a Composition's (inputs as
// their functions read them, functionRefs), a CronOperation's schedule as
// Crossplane parses it, and a WatchOperation's watched kind.
func operationChecks(ctx context.Context, d *document.Doc, m map[string]any, g gvk.GVK, env Env) []Diagnostic {
	base, ok := operationPipeline(g.Kind)
	if !ok {
		return nil
	}
	steps := pipelineAt(m, base)
	out := pipelineInputs(ctx, d, steps, base, env)
	out = append(out, pipelineLinks(d, steps, base, env)...)
	out = append(out, undefinedFunctions(d, steps, base, env)...)
	switch g.Kind {
	case "CronOperation":
		out = append(out, cronSchedule(d, m)...)
	case "WatchOperation":
		out = append(out, watchedKind(d, m, env)...)
	}
	return out
}

// cronSchedule parses a CronOperation's schedule as Crossplane does
// (robfig/cron/v3's ParseStandard: five fields or a descriptor such as
// @hourly, optionally led by TZ=; crossplane v2.2.1
// internal/controller/ops/cronoperation/constructor.go:88): one it cannot
// parse marks the CronOperation ScheduleInvalid and no Operation is ever
// created.
func cronSchedule(d *document.Doc, m map[string]any) []Diagnostic {
	p := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("schedule")}
	v, ok := lookup(m, p)
	s, isString := v.(string)
	if !ok || !isString || s == "" {
		return nil // the schema says what is missing or of the wrong type
	}
	if _, err := cron.ParseStandard(s); err != nil {
		return []Diagnostic{diagnosticAt(d, p, false, severity.Error, "cron-schedule",
			fmt.Sprintf("cannot parse cron schedule %q: %v (Crossplane marks the CronOperation ScheduleInvalid and creates no Operation; a schedule is five fields — minute hour day-of-month month day-of-week — or a descriptor such as @hourly)", s, err))}
	}
	return nil
}

// watchedKind says when the kind a WatchOperation watches is one no
// schema serves: Crossplane then cannot watch it.
func watchedKind(d *document.Doc, m map[string]any, env Env) []Diagnostic {
	if env.Workspace.Schemas == nil || env.Options.UnknownKind == 0 {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	watch, _ := spec["watch"].(map[string]any)
	av, _ := watch["apiVersion"].(string)
	k, _ := watch["kind"].(string)
	if av == "" || k == "" {
		return nil
	}
	g := gvk.Parse(av, k)
	if len(env.Workspace.Schemas.Candidates(g)) > 0 {
		return nil
	}
	p := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("watch"), fieldpath.Field("kind")}
	msg, _ := unknownKindMessage(d, schemas.GVK(g), env)
	return []Diagnostic{diagnosticAt(d, p, false, env.Options.UnknownKind, "unknown-kind", "the watched kind: "+msg)}
}
