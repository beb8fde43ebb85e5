// This file renders a Composition from the composite Crossplane would hand
// its functions (internal/composite, internal/render, Env.Options.Pipeline).

package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/composite"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/known"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// RenderComposition renders a Composition document against xr (an example
// XR or claim), or, when xr is nil, against the smallest composite its XRD
// accepts. Either way the composite is first prepared as Crossplane would
// hand it to the functions (internal/composite: claim sync, defaults,
// configurators). When env's Pipeline runs a step of the Composition for
// real, the whole pipeline runs through it (patch-and-transform steps
// still in-process); otherwise patch-and-transform steps are rendered
// natively and other steps pass the desired state through, noted. ok is
// false when the document is not a Composition, or no XRD defines its
// composite and no xr is given.
//
// lenient renders past failing patches and withheld resources, for
// diagnostics and previews; the CLI renders exactly as P&T does.
func RenderComposition(ctx context.Context, d *document.Doc, m map[string]any, xr map[string]any, env Env, lenient bool) (rd Rendering, ok bool) {
	m = AsFunctionsRead(m, env)
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	gvk, ok := baseGVK(ref)
	if !ok {
		return rd, false
	}
	def, defined := compositeDefinition(d, gvk, env, xr)
	synthesized := false
	switch {
	case xr != nil:
		xr, _ = composite.FromExample(def, m, xr)
	case defined && def.XR != nil:
		xr = composite.Synthesize(def, m)
		synthesized = true
	default:
		return rd, false
	}
	scoped := clusterScoped(d, env)
	// The environment: spec.environment in Crossplane v1, the starting
	// context, function-environment-configs steps (environment.go).
	er := newEnvironmentRun(env, synthesized, lenient)
	start, notes, failed := er.start(d, m, xr, env)
	switch {
	case failed && !lenient:
		// Crossplane composes nothing without its environment.
		rd.XR = xr
	case runsFunctions(m, env, lenient):
		rd = renderPipeline(ctx, m, xr, def.Namespaced, lenient, scoped, env, er, start)
	default:
		rd.Output = patchandtransform.Render(patchandtransform.Input{Composition: m, XR: xr, Namespaced: def.Namespaced, Lenient: lenient, ClusterScoped: scoped,
			Environment: start, EnvironmentUnknown: er.unknown, Context: env.Workspace.Rendering().Cluster.Context, ContextStep: er.contextStep(xr), DescribeFunction: env.Workspace.EmbeddedFunction, ComposesNothing: known.ComposesNothing})
	}
	rd.Notes = append(notes, rd.Notes...)
	if !failed || lenient {
		xrConditions(&rd)
	}
	rd.EnvironmentSource = er.describe()
	rd.Synthesized = synthesized
	rd.Namespaced, rd.Legacy = def.Namespaced, def.Legacy
	return rd, true
}

// clusterScoped answers patchandtransform.Input.ClusterScoped from the schemas: a
// kind whose definition says Cluster (an unknown kind is not).
func clusterScoped(d *document.Doc, env Env) func(apiVersion, kind string) bool {
	if env.Workspace.Schemas == nil {
		return nil
	}
	return func(apiVersion, kind string) bool {
		sch, ok := nearest(env.Workspace.Schemas.Candidates(gvk.Parse(apiVersion, kind)), d.File.URI)
		return ok && sch.Scope == schemas.Cluster
	}
}

// compositeDefinition describes the composite kind gvk from the XRD nearest
// the document; known is false when no XRD defines it, and the definition
// is then guessed from the example (a claim is a legacy XR's).
func compositeDefinition(d *document.Doc, gvk schemas.GVK, env Env, example map[string]any) (def composite.Definition, known bool) {
	def = composite.Definition{APIVersion: gvk.APIVersion(), Kind: gvk.Kind}
	var sch *schemas.Schema
	if env.Workspace.Schemas != nil {
		sch, _ = nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	}
	if sch == nil {
		md, _ := example["metadata"].(map[string]any)
		spec, _ := example["spec"].(map[string]any)
		_, modern := spec["crossplane"]
		def.Namespaced = md["namespace"] != nil && !def.IsClaim(example)
		def.Legacy = def.IsClaim(example) || (!modern && (env.Workspace.CrossplaneMajor == 1 || !def.Namespaced))
		return def, false
	}
	def.Namespaced = sch.Scope == schemas.Namespaced
	def.Legacy = sch.LegacyXR || env.Workspace.CrossplaneMajor == 1
	def.ClaimKind = sch.ClaimKind
	def.XR, _ = sch.Structural()
	if def.ClaimKind != "" {
		claim := schemas.GVK{Group: gvk.Group, Version: gvk.Version, Kind: def.ClaimKind}
		if cs, ok := nearest(env.Workspace.Schemas.Candidates(claim), d.File.URI); ok {
			def.Claim, _ = cs.Structural()
		}
	}
	return def, true
}

// relName is path relative to the document's folder when that is shorter.
func relName(path, doc string) string {
	doc = document.FilePath(doc)
	if rel, err := filepath.Rel(filepath.Dir(doc), path); err == nil && len(rel) < len(path) {
		return rel
	}
	return path
}

// conditionTime is the lastTransitionTime crossplane render gives every
// condition (cmd/crank/render/render.go conditionTime, v2.2.1): a fixed
// time, so output does not change between runs.
const conditionTime = "2024-01-01T00:00:00Z"

// xrConditions sets the rendered composite's conditions as crossplane
// render does after a pipeline that did not fail (v2.2.1
// cmd/crank/render/render.go): Ready is Available, or Creating when the
// desired composite is not ready or, its readiness unspecified, some
// composed resource is not ready ("Unready resources: a, b, and c" —
// crossplane-runtime's StableNAndSomeMore); then the conditions the
// functions returned, but for the system types Ready, Synced and
// Healthy, each replacing one of its type.
func xrConditions(rd *Rendering) {
	if rd.XR == nil {
		return
	}
	var unready []string
	compositeReady := functions.ReadyUnspecified
	var conds []functions.Condition
	if p := rd.Pipeline; p != nil {
		if p.Stopped >= 0 || p.Err != nil {
			return // crossplane render prints nothing after a failed step
		}
		compositeReady = p.Desired.Composite.Ready
		for n, r := range p.Desired.Resources {
			if r.Ready != functions.ReadyTrue {
				unready = append(unready, n)
			}
		}
		for _, st := range p.Steps {
			conds = append(conds, st.Conditions...)
		}
	} else {
		for _, r := range rd.Resources {
			if r.Object != nil && r.Name != "" {
				unready = append(unready, r.Name)
			}
		}
	}
	ready := map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": conditionTime}
	switch {
	case compositeReady == functions.ReadyFalse:
		ready = map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": conditionTime}
	case compositeReady == functions.ReadyUnspecified && len(unready) > 0:
		sort.Strings(unready)
		ready = map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": conditionTime, "message": "Unready resources: " + firstNAndSomeMore(3, unready)}
	}
	status, _ := rd.XR["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		rd.XR["status"] = status
	}
	list, _ := status["conditions"].([]any)
	set := func(c map[string]any) {
		for i, x := range list {
			if xm, _ := x.(map[string]any); xm != nil && xm["type"] == c["type"] {
				list[i] = c
				return
			}
		}
		list = append(list, c)
	}
	set(ready)
	for _, c := range conds {
		switch c.Type {
		case "Ready", "Synced", "Healthy":
			continue
		}
		cm := map[string]any{"type": c.Type, "status": c.Status, "reason": c.Reason, "lastTransitionTime": conditionTime}
		if c.Message != "" {
			cm["message"] = c.Message
		}
		set(cm)
	}
	status["conditions"] = list
}

// firstNAndSomeMore is crossplane-runtime's FirstNAndSomeMore: the first n
// names, then ", and <count> more" (or ", and <last>" for exactly n).
func firstNAndSomeMore(n int, names []string) string {
	switch {
	case len(names) > n:
		return fmt.Sprintf("%s, and %d more", strings.Join(names[:n], ", "), len(names)-n)
	case len(names) == n:
		return fmt.Sprintf("%s, and %s", strings.Join(names[:n-1], ", "), names[n-1])
	}
	return strings.Join(names, ", ")
}

// DocRendering is one document of a file as RenderFile rendered it.
type DocRendering struct {
	Doc *document.Doc
	// Err says the document does not parse.
	Err       error
	Rendering Rendering
	// NoXRD: a Composition whose compositeTypeRef no XRD defines, and no
	// composite was given.
	NoXRD bool
}

// RenderFile renders each Composition of a file, in document order, with
// the composite xr (nil: the smallest its XRD accepts), as crossplane
// render does (strictly: a failing patch fails). It is the one entry of
// crd-lsp render and the MCP render tool; documents that parse to other
// kinds are left out.
func RenderFile(ctx context.Context, f *document.File, xr map[string]any, env Env) []DocRendering {
	var out []DocRendering
	for _, d := range f.Docs {
		obj, err := d.Object()
		if err != nil {
			out = append(out, DocRendering{Doc: d, Err: err})
			continue
		}
		m, _ := obj.(map[string]any)
		if m["kind"] != "Composition" {
			continue
		}
		rd, ok := RenderComposition(ctx, d, m, xr, env, false)
		out = append(out, DocRendering{Doc: d, Rendering: rd, NoXRD: !ok})
	}
	return out
}
