// This file validates what a Composition renders: every composed
// resource as the API server would on create, each finding mapped back to
// where it can be fixed (the base, the patch, the example).

package analysis

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// upjet's CEL rules: "spec.forProvider.region is a required parameter"
// (the message is the CRD's own, not crd-lsp's).
var requiredParameter = regexp.MustCompile(`^(spec\.[A-Za-z0-9_.]+) is a required parameter`)

// missingPath is the field a finding on a rendered object says is
// missing, if any: a required field, or an upjet parameter its CEL rule
// requires.
func missingPath(e schemas.Error) fieldpath.Path {
	switch {
	case e.Code == "required" && e.Field != "":
		return e.Path.Child(fieldpath.Field(e.Field))
	case e.Code == "cel":
		if sm := requiredParameter.FindStringSubmatch(e.Message); sm != nil {
			p, _ := fieldpath.Parse(sm[1])
			return p
		}
	}
	return nil
}

// renderedChecks renders a Composition against the smallest composite its
// XRD accepts and validates every composed resource as the API server
// would on create, mapping each finding back to where it can be fixed: a
// required field nobody sets goes on the base's deepest key on its way; a
// required field set only from an optional composite field gets a warning
// on the patch that sets it.
func renderedChecks(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	out, ok := RenderComposition(ctx, d, m, nil, env, true)
	if !ok {
		return nil
	}
	synthesized := out.Synthesized
	diags := scopeDiagnostics(ctx, d, m, out, env)
	for _, n := range out.Notes {
		sev := n.Severity
		if n.Code == "render-invalid" || n.Code == codeFunctionResult || n.Code == codeFunctionFailed {
			continue // the Composition checks report invalid transforms; functionDiagnostics what functions said
		}
		if synthesized && (n.Code == "render-transform" || n.Code == "render-patch") {
			// Placeholders stand in for the composite's values: a failure
			// may be theirs, not the Composition's.
			sev = severity.Info
			n.Message += " (rendering with a synthesised composite resource)"
		}
		diags = append(diags, diagnosticAt(d, n.Path, n.OnKey, sev, n.Code, n.Message))
	}
	for _, res := range out.Resources {
		if _, ok := out.Functions[res.Name]; ok {
			continue // functionDiagnostics validates what functions composed
		}
		sch, ok := resourceSchema(ctx, d, res, env)
		if !ok {
			continue // unknown kinds are reported by the composition checks
		}
		basePath := res.Path.Child(fieldpath.Field("base"))
		seen := map[string]bool{}
		start := len(diags)
		var kube []schemas.Error
		for _, e := range append(sch.ValidateThrough(ctx, res.Object), objectManifestErrors(ctx, res.Object, d.File.URI, env)...) {
			missing := missingPath(e)
			if missing == nil {
				if dg, ok := constantValueDiagnostic(d, m, res, sch, e); ok {
					diags = append(diags, dg)
				} else if e.Severity != severity.Info && (e.Code == schemas.CodeKubernetes || e.Path.HasPrefix(manifestPath)) {
					kube = append(kube, e)
				}
				continue
			}
			if (len(missing) > 0 && missing[0].Field == "metadata") || seen[missing.String()] {
				continue
			}
			seen[missing.String()] = true
			if dg := missingDiagnostic(d, m, res, sch, basePath, missing, e.Message, out.EnvironmentSource); dg.Code != "" {
				diags = append(diags, dg)
			}
		}
		diags = append(diags, baseKubeFindings(ctx, d, m, res, sch, basePath, kube, env)...)
		catalogNoted(sch, true, diags[start:])
	}
	if !hasExample(m, env) {
		// Without an example, what functions did is judged here (with an
		// example, there).
		diags = append(diags, functionDiagnostics(ctx, d, m, out, "", env)...)
	}
	return uniqueDiagnostics(append(diags, exampleChecks(ctx, d, m, env)...))
}

// baseKubeFindings reports on the base what kube-apiserver's own
// validation says of a rendered built-in resource, or of the manifest of
// a rendered provider-kubernetes Object (found), that the base decides
// alone: a finding the base gets by itself too, in a part of the object
// (spec, data, a manifest's spec, …) no patch writes, skipped or failed
// to write. The API server's rules compare fields (a selector with the
// template's labels, requests with limits), so a value a patch writes
// anywhere in that part may be what the finding is about, and the
// placeholders of a synthesised composite are not the real values.
func baseKubeFindings(ctx context.Context, d *document.Doc, m map[string]any, res render.Resource, sch *schemas.Schema, basePath fieldpath.Path, found []schemas.Error, env Env) []Diagnostic {
	if len(found) == 0 {
		return nil
	}
	base, _ := valueAt(m, basePath).(map[string]any)
	if base == nil {
		return nil
	}
	var written []fieldpath.Path
	for _, w := range res.Writes {
		written = append(written, w.To)
	}
	for _, s := range res.Skips {
		written = append(written, s.To)
	}
	for _, f := range res.Failures {
		written = append(written, f.To)
	}
	alone := map[string]bool{}
	for _, e := range append(sch.Validate(ctx, base), objectManifestErrors(ctx, base, d.File.URI, env)...) {
		alone[e.Path.String()+"\x00"+e.Message] = true
	}
	var out []Diagnostic
	for _, e := range found {
		part := partOf(e.Path)
		if len(part) == 0 || part.Equal(fieldpath.Path{fieldpath.Field("metadata")}) || !alone[e.Path.String()+"\x00"+e.Message] ||
			slices.ContainsFunc(written, func(w fieldpath.Path) bool { return w.HasPrefix(part) || part.HasPrefix(w) }) {
			continue
		}
		out = append(out, fromSchemaError(d, basePath, e))
	}
	return out
}

// partOf is the part of a composed resource a finding at p is judged
// with: its first field, or, in an Object's manifest, the manifest's.
func partOf(p fieldpath.Path) fieldpath.Path {
	if p.HasPrefix(manifestPath) && len(p) > len(manifestPath) {
		return p[:len(manifestPath)+1]
	}
	if len(p) == 0 || p[0].Kind != fieldpath.KindField {
		return nil
	}
	return p[:1]
}

// uniqueDiagnostics drops repeats (the same finding from two renders).
func uniqueDiagnostics(diags []Diagnostic) []Diagnostic {
	seen := map[string]bool{}
	out := diags[:0]
	for _, dg := range diags {
		key := fmt.Sprint(dg.Span.Start, dg.Code, dg.Message)
		if dg.Code == codeEnvironment {
			key = fmt.Sprint(dg.Span.Start, dg.Code) // one finding on a selector, whichever composite found it first
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, dg)
		}
	}
	return out
}

// exampleChecks renders a Composition with the workspace's first example
// XR of its kind and validates each composed resource fully (types,
// enums, patterns, CEL): a value a patch wrote that the resource's schema
// rejects is reported on that patch's toFieldPath, naming the example.
// Values from the base are judged by the base checks, and presence by the
// smallest-XR render.
func exampleChecks(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	examples := selectingExamples(m, env)
	if len(examples) == 0 {
		return nil
	}
	ex := examples[0]
	out, ok := RenderComposition(ctx, d, m, ex.Object, env, true)
	if !ok {
		return nil
	}
	// The example's own mistakes are reported on the example: values that
	// come from them are not the Composition's.
	bad := invalidFields(ctx, ex, env)
	diags := functionDiagnostics(ctx, d, m, out, relName(ex.Path, d.File.URI), env)
	for _, n := range out.Notes {
		if n.Code == codeEnvironment && n.Severity != severity.Info {
			// The environment as the example's labels select it.
			diags = append(diags, diagnosticAt(d, n.Path, n.OnKey, severity.Warning, n.Code, fmt.Sprintf("%s (rendered with %s)", n.Message, relName(ex.Path, d.File.URI))))
		}
	}
	for _, res := range out.Resources {
		if _, ok := out.Functions[res.Name]; ok {
			continue
		}
		sch, ok := resourceSchema(ctx, d, res, env)
		if !ok {
			continue
		}
		start := len(diags)
		for _, e := range sch.Validate(ctx, res.Object) {
			if e.Code == "required" || e.Code == "unknown-field" || e.Severity == severity.Info || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
				continue
			}
			if dg, ok := constantValueDiagnostic(d, m, res, sch, e); ok {
				diags = append(diags, dg) // the Composition decides it, not the example
				continue
			}
			if w, ok := lastWrite(res.Writes, e.Path); ok && !readsAny(w, bad) {
				diags = append(diags, diagnosticAt(d, w.Patch.Child(fieldpath.Field("toFieldPath")), false, severity.Error, "render-value",
					fmt.Sprintf("rendered with %s, %s gets a value %s rejects: %s", relName(ex.Path, d.File.URI), e.Path, sch.GVK.Kind, e.Message)))
			}
		}
		catalogNoted(sch, true, diags[start:])
	}
	return diags
}

// lastWrite is the last patch that wrote p or one of its parents: the one
// whose value the rendered resource holds.
func lastWrite(writes []render.Write, p fieldpath.Path) (render.Write, bool) {
	for i := len(writes) - 1; i >= 0; i-- {
		if p.HasPrefix(writes[i].To) {
			return writes[i], true
		}
	}
	return render.Write{}, false
}

// readsAny reports whether a write read one of the fields (or a field
// within or around one).
func readsAny(w render.Write, fields []fieldpath.Path) bool {
	for _, r := range w.Reads {
		rp, err := fieldpath.Parse(r)
		if err != nil {
			continue
		}
		for _, f := range fields {
			if rp.HasPrefix(f) || f.HasPrefix(rp) {
				return true
			}
		}
	}
	return false
}

// invalidFields are the fields of an example composite (or claim) that its
// own schema rejects, as paths of the composite (a claim's spec becomes
// the XR's). A missing required field holds no value and is left out.
func invalidFields(ctx context.Context, ex Example, env Env) []fieldpath.Path {
	gvk, ok := baseGVK(ex.Object)
	if !ok || env.Workspace.Schemas == nil {
		return nil
	}
	sch, ok := nearest(env.Workspace.Schemas.Candidates(gvk), ex.Path)
	if !ok {
		return nil
	}
	var out []fieldpath.Path
	for _, e := range sch.Validate(ctx, ex.Object) {
		if e.Severity != severity.Error || e.Code == "required" || len(e.Path) == 0 || e.Path[0].Field != "spec" {
			continue
		}
		out = append(out, e.Path)
	}
	return out
}

// valueCodes are the schema errors about a value (not its presence).
var valueCodes = map[string]bool{"type": true, "enum": true, "pattern": true, "range": true, "length": true, "format": true}

// constantValueDiagnostic reports a value the resource rejects when the
// Composition alone decides it, whatever the composite holds: a patch
// whose last transform is a map or match writes one of the Composition's
// own values. It goes on that transform.
func constantValueDiagnostic(d *document.Doc, m map[string]any, res render.Resource, sch *schemas.Schema, e schemas.Error) (Diagnostic, bool) {
	if !valueCodes[e.Code] {
		return Diagnostic{}, false
	}
	for i := len(res.Writes) - 1; i >= 0; i-- { // the last writer decides the value
		w := res.Writes[i]
		if !e.Path.Equal(w.To) {
			continue
		}
		pm, _ := valueAt(m, w.Patch).(map[string]any)
		ts, _ := pm["transforms"].([]any)
		if len(ts) == 0 {
			return Diagnostic{}, false
		}
		last, _ := ts[len(ts)-1].(map[string]any)
		if t, _ := last["type"].(string); t == "map" || t == "match" {
			return diagnosticAt(d, w.Patch.Child(fieldpath.Field("transforms"), fieldpath.Index(len(ts)-1)), true, severity.Error, "render-value",
				fmt.Sprintf("this %s transform gives %s a value %s rejects: %s", t, e.Path, sch.GVK.Kind, e.Message)), true
		}
		return Diagnostic{}, false
	}
	return Diagnostic{}, false
}

// resourceSchema is the schema a rendered resource is validated against.
func resourceSchema(ctx context.Context, d *document.Doc, res render.Resource, env Env) (*schemas.Schema, bool) {
	if res.Object == nil || ctx.Err() != nil || env.Workspace.Schemas == nil {
		return nil, false
	}
	gvk, ok := baseGVK(res.Object)
	if !ok {
		return nil, false
	}
	return nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
}

// missingDiagnostic places a required field that the rendered resource
// lacks: on a patch that would set it from an optional composite field
// (a warning), else on the base's deepest existing key on its way.
//
// envSource says where a field read from the environment would come from
// (Rendering.EnvironmentSource).
func missingDiagnostic(d *document.Doc, m map[string]any, res render.Resource, sch *schemas.Schema, basePath, missing fieldpath.Path, why, envSource string) Diagnostic {
	for _, s := range res.Skips {
		if s.Required && (s.To.HasPrefix(missing) || missing.HasPrefix(s.To)) {
			return Diagnostic{} // the resource waits for the field: the patch sets it
		}
	}
	for _, f := range res.Failures {
		if f.To.HasPrefix(missing) || missing.HasPrefix(f.To) {
			return Diagnostic{} // a patch that could not run may set it: its own finding says why
		}
	}
	var skips []render.Skip
	for _, s := range res.Skips {
		if s.To.HasPrefix(missing) || missing.HasPrefix(s.To) {
			if s.Unknown {
				return Diagnostic{} // the environment may well hold it
			}
			skips = append(skips, s)
		}
	}
	if len(skips) > 0 {
		// Every patch that would set it: the composite's and the
		// environment's writers alike.
		var when []string
		for _, s := range skips {
			when = append(when, skipWhen(m, s, envSource))
		}
		return diagnosticAt(d, skips[0].Patch.Child(fieldpath.Field("toFieldPath")), false, severity.Warning, "render-required",
			fmt.Sprintf("%s is required by %s, and only set when %s", missing, sch.GVK.Kind, strings.Join(when, ", or when ")))

	}
	// The deepest ancestor present in the base.
	anchor := basePath
	for i := 1; i < len(missing); i++ {
		if valueAt(m, basePath.Child(missing[:i]...)) == nil {
			break
		}
		anchor = basePath.Child(missing[:i]...)
	}
	msg := fmt.Sprintf("%s is required by %s, but neither the base nor any patch sets it", missing, sch.GVK.Kind)
	if valueAt(m, basePath) == nil {
		// A template without a base patches what an earlier step composed.
		anchor = res.Path
		msg = fmt.Sprintf("%s is required by %s, but neither the resource %q an earlier step composed nor any patch here sets it", missing, sch.GVK.Kind, res.Name)
	}
	if strings.Contains(why, "required parameter") {
		msg += " (" + why + ")"
	}
	dg := diagnosticAt(d, anchor, true, severity.Error, "render-required", msg)
	if last, ok := missing.Last(); ok && last.Kind == fieldpath.KindField && anchor.Equal(basePath.Child(missing.Parent()...)) {
		if _, _, found := d.Spans(anchor); found {
			dg.Missing = last.Field // it belongs right in the object the finding is on
		}
	}
	return dg
}

// skipWhen says what would have to be set for a skipped patch to write:
// a composite field, or an environment field, which an environment patch
// may copy from an optional composite field too.
func skipWhen(m map[string]any, s render.Skip, envSource string) string {
	from := strings.Join(s.From, " and ")
	if !s.Environment {
		return from + " is set on the composite resource"
	}
	if envSource == "" {
		envSource = "in the environment"
	}
	when := from + " is set " + envSource
	if xs := environmentPatchSources(m, s.From); len(xs) > 0 {
		when += fmt.Sprintf(", or when %s is set on the composite resource (an environment patch copies it there)", strings.Join(xs, " or "))
	}
	return when
}

// environmentPatchSources are the composite fields that environment
// patches (spec.environment.patches, a patch-and-transform input's
// environment.patches) copy into one of the environment fields read.
func environmentPatchSources(m map[string]any, read []string) []string {
	spec, _ := m["spec"].(map[string]any)
	holders := []map[string]any{spec}
	steps, _ := spec["pipeline"].([]any)
	for _, st := range steps {
		sm, _ := st.(map[string]any)
		if in, ok := sm["input"].(map[string]any); ok {
			holders = append(holders, in)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range holders {
		env, _ := h["environment"].(map[string]any)
		patches, _ := env["patches"].([]any)
		for _, p := range patches {
			pm, _ := p.(map[string]any)
			t, _ := pm["type"].(string)
			if t != "" && t != "FromCompositeFieldPath" && t != "ToEnvironmentFieldPath" {
				continue
			}
			from, _ := pm["fromFieldPath"].(string)
			to, _ := pm["toFieldPath"].(string)
			if to == "" {
				to = from
			}
			tp, err1 := fieldpath.Parse(to)
			if from == "" || err1 != nil || seen[from] {
				continue
			}
			for _, r := range read {
				rp, err := fieldpath.Parse(r)
				if err == nil && (rp.HasPrefix(tp) || tp.HasPrefix(rp)) {
					seen[from] = true
					out = append(out, from)
					break
				}
			}
		}
	}
	return out
}
