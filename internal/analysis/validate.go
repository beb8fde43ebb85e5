// This file checks one object against its schema as the API server would on
// create, and picks the schema: the best-ranked definition nearest the
// document (nearest).

package analysis

import (
	"gopkg.in/yaml.v3"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/functions/known"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/gvk"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/structural"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

var crdGVK = schemas.GVK{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// validateObject checks one Kubernetes object against its schema, the way the
// API server would on create.
func validateObject(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	gvk, diags, ok := resourceHeader(d, m)
	if !ok {
		return diags
	}
	if env.Options.UptestPlaceholders {
		m = withUptestValues(m)
	}
	if env.Role.PatchOf != "" {
		return patchFragment(ctx, d, m, gvk, env)
	}
	if gvk == crdGVK {
		return append(fromSchemaErrors(d, schemas.ValidateCRD(ctx, m)), conflictingDefinitions(d, m, env)...)
	}
	if env.Workspace.Schemas == nil {
		return nil
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	isComposition := gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "Composition"
	var modeErr []Diagnostic
	if isComposition {
		modeErr = compositionMode(d, m, env)
	}
	var errs []schemas.Error
	if found {
		errs = withoutUptestVariables(withoutExpressions(withDeclarative(sch, gvk, m, sch.Validate(ctx, m)), m, env), m, env)
		for i, e := range errs {
			if e.Code == "invalid-definition" && sch.Source.File != "" {
				errs[i].Message = strings.Replace(e.Message, sch.Source.File, relName(sch.Source.File, d.File.URI), 1)
			}
		}
		if len(modeErr) > 0 {
			errs = withoutClassicFields(errs)
		}
	}
	if isComposition {
		orig := m
		m = AsFunctionsRead(m, env)
		probs := composition.Check(m, checksEnv(d, m, env))
		errs, probs = withoutRestatedPipeline(errs, probs)
		out := fromSchemaErrors(d, errs)
		out = append(out, modeErr...)
		out = append(out, compositionDiagnostics(d, m, probs, env)...)
		out = append(out, compositionBases(ctx, d, m, env)...)
		out = append(out, renderedChecks(ctx, d, m, env)...)
		out = append(out, functionInputs(ctx, d, m, env)...)
		out = append(out, stepLinks(d, orig, env)...)
		out = append(out, undefinedFunctions(d, pipelineAt(orig, compositionPipeline), compositionPipeline, env)...)
		out = append(out, goTemplates(ctx, d, m, env)...)
		return withoutRestated(out)
	}
	if gvk.Group == "apiextensions.crossplane.io" && gvk.Kind == "CompositeResourceDefinition" {
		// What Crossplane derives from the XRD must pass as a CRD.
		out := append(fromSchemaErrors(d, errs), fromSchemaErrors(d, derivedOnly(errs, schemas.ValidateXRD(ctx, m, env.Workspace.CrossplaneMajor)))...)
		return append(out, conflictingDefinitions(d, m, env)...)
	}
	if !found {
		if diags := unknownKind(d, gvk, env); diags != nil {
			return diags
		}
	}
	if gvk.Group == opsGroup {
		return append(catalogNoted(sch, found, fromSchemaErrors(d, errs)), operationChecks(ctx, d, m, gvk, env)...)
	}
	if gvk.Group == "pkg.crossplane.io" && gvk.Kind == "Function" && developmentRuntime(m) {
		errs = renderIgnoresPackage(errs)
	}
	return append(catalogNoted(sch, found, fromSchemaErrors(d, errs)), objectManifest(ctx, d, m, env)...)
}

// developmentRuntime reports whether a Function is annotated for
// crossplane render's Development runtime: a declaration in a render
// functions file, whose function the developer runs.
func developmentRuntime(m map[string]any) bool {
	meta, _ := m["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	rt, _ := ann[functions.AnnotationRuntime].(string)
	return rt == functions.RuntimeDevelopment
}

// renderIgnoresPackage turns findings on a Development Function's
// spec.package into hints: crossplane render never pulls it (function
// repositories' examples often hold a placeholder there); only applying
// the file to a cluster would meet them.
func renderIgnoresPackage(errs []schemas.Error) []schemas.Error {
	for i, e := range errs {
		if len(e.Path) >= 2 && e.Path[0].Field == "spec" && e.Path[1].Field == "package" && e.Severity < severity.Hint {
			errs[i].Severity = severity.Hint
			errs[i].Message += " (crossplane render ignores the package of a Function with the Development runtime; the API server would reject it)"
		}
	}
	return errs
}

// unknownKindMessage says that no schema defines gvk and, when other
// versions of the kind are known (otherVersions), which and where from.
func unknownKindMessage(d *document.Doc, gvk schemas.GVK, env Env) (msg string, otherVersions bool) {
	var served []string
	var from *schemas.Schema
	for _, k := range env.Workspace.Schemas.Kinds() {
		if k.GVK.Group == gvk.Group && k.GVK.Kind == gvk.Kind && k.GVK.Version != gvk.Version {
			served = append(served, k.GVK.Version)
			if from == nil {
				from, _ = nearest(env.Workspace.Schemas.Candidates(k.GVK), d.File.URI)
			}
		}
	}
	if len(served) > 0 && from != nil {
		where := "built-in " + from.Source.Name
		switch from.Source.Kind {
		case schemas.SourcePackage:
			where = "package " + from.Source.Name + ":" + from.Source.Version
		case schemas.SourceWorkspace:
			where = relName(from.Source.File, d.File.URI)
		case schemas.SourceCatalog:
			where = "the catalog " + from.Source.Name
		case schemas.SourceCluster:
			where = "the cluster " + from.Source.Name
		}
		return fmt.Sprintf("%s %s is not served: %s defines %s only as %s, so the API server rejects it (kubectl: no matches for kind %q in version %q)", gvk.APIVersion(), gvk.Kind, where, gvk.Kind, strings.Join(served, ", "), gvk.Kind, gvk.APIVersion()), true
	}
	if env.Workspace.CrossplaneMajor != 0 && env.Workspace.OtherMajor != nil {
		if other := env.Workspace.OtherMajor(gvk); other != 0 {
			did := fmt.Sprintf("Crossplane v%d did", other)
			if other > env.Workspace.CrossplaneMajor {
				did = fmt.Sprintf("it is new in Crossplane v%d", other)
			}
			return fmt.Sprintf("no schema for %s %s: Crossplane v%d, which this file targets, does not serve it (%s); the targeted version comes from the nearest crossplane.yaml's spec.crossplane.version, else the crossplaneVersion setting", gvk.APIVersion(), gvk.Kind, env.Workspace.CrossplaneMajor, did), false
		}
	}
	if env.Workspace.Unpulled > 0 {
		deps := "dependency"
		if env.Workspace.Unpulled > 1 {
			deps = "dependencies"
		}
		return fmt.Sprintf("no schema for %s %s: it may come from the %d %s of %s not in the package cache yet (run crd-lsp pull); else add the CRD or XRD that defines it to the workspace", gvk.APIVersion(), gvk.Kind, env.Workspace.Unpulled, deps, projectFile(env)), false
	}
	return fmt.Sprintf("no schema for %s %s: add the CRD or XRD that defines it to the workspace, or the package that ships it to %s", gvk.APIVersion(), gvk.Kind, dependsOn(env)), false
}

// clientSide are configuration kinds that tools read from files and that
// never reach an API server: they have no CRD, and no schema is missing.
// An entry is an API group (every kind of it) or Kind.group ("Kind" alone
// for the core group).
var clientSide = []string{
	"kustomize.config.k8s.io", // Kustomization, Component
	"config.kubernetes.io",    // KRM function ResourceList
	"kpt.dev", "fn.kpt.dev",   // Kptfile, function configs
	"kind.x-k8s.io",               // kind cluster config
	"k3d.io",                      // k3d config
	"ctlptl.dev",                  // ctlptl clusters and registries
	"skaffold",                    // skaffold/vN Config
	"kubeadm.k8s.io",              // kubeadm configurations
	"kubelet.config.k8s.io",       // KubeletConfiguration
	"kubeproxy.config.k8s.io",     // KubeProxyConfiguration
	"kubescheduler.config.k8s.io", // KubeSchedulerConfiguration
	"apiserver.config.k8s.io",     // admission, encryption, tracing configs
	"apiserver.k8s.io",            // AdmissionConfiguration
	"audit.k8s.io",                // audit Policy files
	"clientauthentication.k8s.io", // ExecCredential
	"Config",                      // kubeconfig files (v1 Config)
	"chainsaw.kyverno.io",         // chainsaw Test and Configuration files
	"cli.kyverno.io",              // kyverno CLI Test and Values files
	"kuttl.dev",                   // kuttl TestSuite, TestStep, TestAssert
	"eksctl.io",                   // eksctl ClusterConfig
	"backstage.io",                // Backstage catalog descriptors
	"meta.dev.upbound.io",         // up's project file (upbound.yaml)
	"Project.dev.crossplane.io",   // the Crossplane CLI's project file (crossplane-project.yaml)
}

// IsClientSide reports whether gvk is a client-side configuration kind,
// built in or listed in extra (entries as in clientSide).
func IsClientSide(gvk schemas.GVK, extra []string) bool {
	if gvk.Group == "" && gvk.Version == "builtin" {
		return true // kustomize's built-in plugin configurations (apiVersion: builtin)
	}
	for _, list := range [][]string{clientSide, extra} {
		for _, e := range list {
			kind, group, isKind := strings.Cut(e, ".")
			if e != "" && e[0] >= 'A' && e[0] <= 'Z' {
				if !isKind {
					group = ""
				}
				if kind == gvk.Kind && group == gvk.Group {
					return true
				}
				continue
			}
			if e == gvk.Group {
				return true
			}
		}
	}
	return false
}

// restatable are the schema findings a Composition check says better at
// the same place ("a readiness check needs a type" rather than "missing
// required field \"type\"").
var restatable = map[string]bool{"required": true, "enum": true, "cel": true}

// withoutRestated drops a schema finding when a Composition check reports
// at the same position, so one mistake gets one diagnostic.
func withoutRestated(diags []Diagnostic) []Diagnostic {
	checked := map[int]bool{}
	for _, d := range diags {
		if strings.HasPrefix(d.Code, "composition-") {
			checked[d.Span.Start] = true
		}
	}
	out := diags[:0]
	for _, d := range diags {
		if restatable[d.Code] && checked[d.Span.Start] && (d.Severity != severity.Info || strings.Contains(d.Message, known.NotEnforced)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// schemaless groups are not served by the API server and have no CRD:
// Crossplane package metadata (crossplane.yaml) is read by the package
// manager, not validated as a resource.
var schemaless = map[string]bool{"meta.pkg.crossplane.io": true}

// nearest picks, among the best-ranked candidates of equal source kind, the
// definition closest to the document in the directory tree: two versions
// of one configuration in a repository each validate their own examples.
func nearest(cands []*schemas.Schema, docURI string) (*schemas.Schema, bool) {
	if len(cands) == 0 {
		return nil, false
	}
	best, bestLen := cands[0], -1
	docPath := document.FilePath(docURI)
	for _, c := range cands {
		if c.Source.Kind != cands[0].Source.Kind {
			break
		}
		if n := SharedDirs(filepath.Dir(c.Source.File), docPath); n > bestLen {
			best, bestLen = c, n
		}
	}
	return best, true
}

// SharedDirs counts the leading folders dir and p share: how near a
// definition (or a Function, an EnvironmentConfig) is to a document.
func SharedDirs(dir, p string) int {
	a := strings.Split(filepath.ToSlash(dir), "/")
	b := strings.Split(filepath.ToSlash(p), "/")
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// withoutClassicFields drops what Crossplane v2's Composition schema says
// about a classic Composition once compositionMode has said it (one
// mistake, one finding): the classic fields are unknown, and the pipeline
// the defaulted mode wants is missing.
func withoutClassicFields(errs []schemas.Error) []schemas.Error {
	out := errs[:0:0]
	for _, e := range errs {
		if e.Code == "unknown-field" && len(e.Path) == 2 && e.Path[0].Field == "spec" {
			switch e.Path[1].Field {
			case "resources", "patchSets", "environment", "publishConnectionDetailsWithStoreConfigRef", "revisionActivationPolicy":
				continue
			}
		}
		if e.Code == "cel" && len(e.Path) == 1 && e.Path[0].Field == "spec" && strings.Contains(e.Message, "pipeline") {
			continue
		}
		if e.Code == "cel" && len(e.Path) == 0 && e.Severity == severity.Info {
			continue // "rules not checked because the object was invalid": it was, by mode
		}
		out = append(out, e)
	}
	return out
}

// compositionMode reports a classic Composition under Crossplane v2, which
// removed mode: Resources.
func compositionMode(d *document.Doc, m map[string]any, env Env) []Diagnostic {
	if env.Workspace.CrossplaneMajor != 2 {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	mode, _ := spec["mode"].(string)
	_, hasResources := spec["resources"]
	if mode != "Resources" && !(mode == "" && hasResources) {
		return nil
	}
	p := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("mode")}
	if mode == "" {
		p = fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("resources")}
	}
	msg := "mode: Resources was removed in Crossplane v2: move spec.resources and spec.patchSets into the input of a function-patch-and-transform step (mode: Pipeline; `crossplane beta convert pipeline-composition` does it)"
	if _, ok := spec["environment"]; ok {
		msg += ", spec.environment's selection into a function-environment-configs step"
	}
	return []Diagnostic{diagnosticAt(d, p, mode == "", severity.Error, "composition-mode",
		msg+", or target Crossplane v1 with spec.crossplane.version in crossplane.yaml or the crdLsp.crossplaneVersion setting")}
}

func fromSchemaErrors(d *document.Doc, errs []schemas.Error) []Diagnostic {
	out := make([]Diagnostic, 0, len(errs))
	for _, e := range errs {
		out = append(out, fromSchemaError(d, nil, e))
	}
	return out
}

// fromSchemaError positions a schema finding about the object at base
// (nil: the document's root), with the data its quick fix needs when the
// finding sits where the fix applies.
func fromSchemaError(d *document.Doc, base fieldpath.Path, e schemas.Error) Diagnostic {
	p := base.Child(e.Path...)
	dg := diagnosticAt(d, p, e.OnKey, e.Severity, e.Code, e.Message)
	if e.Code == "required" && e.Field != "" {
		dg.Path = p.Child(fieldpath.Field(e.Field)).String()
	}
	if _, _, found := d.Spans(p); found {
		switch e.Code {
		case "required":
			dg.Missing = e.Field
		case "unknown-field":
			dg.Replace = e.Suggestion
		}
	}
	return dg
}

// withoutRestatedPipeline keeps one finding where the Composition schema
// and a Composition check say the same of the pipeline: a repeated step
// name is said by the check (which names the earlier step) rather than as
// the list-map's duplicate entry; an empty or missing pipeline by the
// schema (where the API server says it) rather than by the check on mode.
func withoutRestatedPipeline(errs []schemas.Error, probs []composition.Problem) ([]schemas.Error, []composition.Problem) {
	stepNames := map[string]bool{}
	for _, p := range probs {
		if p.Code == "composition-pipeline" && strings.Contains(p.Message, "is already used by step") {
			stepNames[p.Path.Parent().String()] = true
		}
	}
	emptyPipeline := false
	keptErrs := errs[:0:0]
	for _, e := range errs {
		if e.Code == "duplicate" && stepNames[e.Path.String()] {
			continue
		}
		if ps := e.Path.String(); (ps == "spec.pipeline" && e.Code == "length") || (ps == "spec" && e.Code == "cel" && strings.Contains(e.Message, "pipeline")) {
			emptyPipeline = true
		}
		keptErrs = append(keptErrs, e)
	}
	keptProbs := probs[:0:0]
	for _, p := range probs {
		if emptyPipeline && p.Code == "composition-pipeline" && strings.Contains(p.Message, "needs at least one step") {
			continue
		}
		keptProbs = append(keptProbs, p)
	}
	return keptErrs, keptProbs
}

// checksEnv is what the Composition checks read: the mode and the
// schemas of the composite and composed kinds.
func checksEnv(d *document.Doc, m map[string]any, env Env) composition.Env {
	cenv := composition.Env{Mode: env.Options.CompositionMode}
	{
		steps := pipelineAt(m, compositionPipeline)
		cenv.PTRelease = func(i int) string {
			if i < 0 || i >= len(steps) {
				return ""
			}
			sm, _ := steps[i].(map[string]any)
			if l := linkStep(sm, env); l.Fn == &patchandtransform.Function && l.Pinned {
				return l.Release
			}
			return ""
		}
	}
	if env.Workspace.Schemas != nil {
		cenv.UnknownXR = func(g composition.GVK) (string, bool) { return unknownXR(env, g), env.Workspace.Unpulled > 0 }
		cenv.Versions = func(g composition.GVK) []string {
			var vs []string
			for _, k := range env.Workspace.Schemas.Kinds() {
				if k.GVK.Group == g.Group && k.GVK.Kind == g.Kind && k.GVK.Version != g.Version {
					vs = append(vs, k.GVK.Version)
				}
			}
			sort.Strings(vs)
			return slices.Compact(vs)
		}
		cenv.InvalidXR = func(g composition.GVK) (string, bool) {
			sch, ok := nearest(env.Workspace.Schemas.Candidates(schemas.GVK{Group: g.Group, Version: g.Version, Kind: g.Kind}), d.File.URI)
			if !ok || sch.Invalid() == "" {
				return "", false
			}
			return relName(sch.Source.File, d.File.URI), true
		}
		cenv.Claim = func(g composition.GVK) bool {
			sch, ok := nearest(env.Workspace.Schemas.Candidates(schemas.GVK{Group: g.Group, Version: g.Version, Kind: g.Kind}), d.File.URI)
			return ok && sch.IsClaim()
		}
		cenv.Schema = func(g composition.GVK) (*structuralschema.Structural, bool) {
			sch, ok := nearest(env.Workspace.Schemas.Candidates(schemas.GVK{Group: g.Group, Version: g.Version, Kind: g.Kind}), d.File.URI)
			if !ok {
				return nil, false
			}
			ss, err := sch.Structural()
			if err != nil {
				return nil, false
			}
			return ss, true
		}
	}
	return cenv
}

// unknownXR words what the store knows of a composite kind no XRD
// defines: the versions an XRD defines it at, or the XR kind probably
// meant (a claim kind named instead of its composite's, or a near
// spelling of an XR or claim kind).
func unknownXR(env Env, g composition.GVK) string {
	var versions, kinds []string
	claimOf := map[string]string{}
	for _, k := range env.Workspace.Schemas.Kinds() {
		if k.Schema == nil || !k.Schema.FromXRD() {
			continue
		}
		if k.GVK.Group == g.Group && k.GVK.Kind == g.Kind && !k.Schema.IsClaim() {
			versions = append(versions, k.GVK.Version)
		}
		if k.Schema.ClaimKind != "" {
			claimOf[k.Schema.ClaimKind] = k.GVK.Kind
		}
		if !k.Schema.IsClaim() {
			kinds = append(kinds, k.GVK.Kind)
		}
	}
	if len(versions) > 0 {
		sort.Strings(versions)
		return fmt.Sprintf(": the workspace's XRD defines %s only as %s", g.Kind, strings.Join(slices.Compact(versions), ", "))
	}
	if xr, ok := claimOf[g.Kind]; ok {
		return fmt.Sprintf(": %s is a claim kind; a Composition names its composite kind, %s", g.Kind, xr)
	}
	claims := make([]string, 0, len(claimOf))
	for c := range claimOf {
		claims = append(claims, c)
	}
	sort.Strings(claims)
	if best, ok := suggest.Closest(g.Kind, append(slices.Clone(kinds), claims...)); ok && best != g.Kind {
		if xr, isClaim := claimOf[best]; isClaim && !slices.Contains(kinds, best) {
			return fmt.Sprintf("; did you mean %q (the claim kind of %s; a Composition names the composite kind)?", best, xr)
		}
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// compositionDiagnostics positions the Composition checks' problems.
func compositionDiagnostics(d *document.Doc, m map[string]any, probs []composition.Problem, env Env) []Diagnostic {
	var out []Diagnostic
	for _, p := range probs {
		dg := diagnosticAt(d, p.Path, p.OnKey, p.Severity, p.Code, p.Message)
		if p.Code == "fieldpath-unknown" {
			dg = pinUnknownSegment(d, m, p, dg, env)
		}
		if p.InString >= 0 {
			if _, v, ok := d.Lookup(p.Path); ok && v.Kind == yaml.ScalarNode {
				start := d.File.NodeSpan(v).Start
				if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
					start++
				}
				pos := start + p.InString
				dg.Span = document.Span{Start: pos, End: min(pos+1, d.File.NodeSpan(v).End)}
			}
		}
		out = append(out, dg)
	}
	return out
}

// baseCodes are the schema errors a base can be judged by on its own:
// required fields and CEL rules wait for rendering (a patch may set them).
var baseCodes = map[string]bool{"unknown-field": true, "type": true, "enum": true, "pattern": true, "range": true, "length": true, "format": true, "duplicate": true}

// compositionBases validates each composed resource's base against its
// schema, classic and function-patch-and-transform alike.
func compositionBases(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	if env.Workspace.Schemas == nil {
		return nil
	}
	holders := resourceHolders(m)
	var out []Diagnostic
	for _, h := range holders {
		holder, _ := valueAt(m, h).(map[string]any)
		list, _ := holder["resources"].([]any)
		for i, r := range list {
			res, _ := r.(map[string]any)
			base, _ := res["base"].(map[string]any)
			if base == nil {
				continue
			}
			gvk, ok := baseGVK(base)
			if !ok {
				continue
			}
			sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
			if !found {
				continue // reported by the composition checks
			}
			bp := h.Child(fieldpath.Field("resources"), fieldpath.Index(i), fieldpath.Field("base"))
			for _, e := range sch.Validate(ctx, base) {
				if !baseCodes[e.Code] || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
					continue
				}
				out = append(out, catalogNoted(sch, true, []Diagnostic{fromSchemaError(d, bp, e)})...)
			}
		}
	}
	return out
}

func baseGVK(base map[string]any) (schemas.GVK, bool) {
	av, _ := base["apiVersion"].(string)
	k, _ := base["kind"].(string)
	if av == "" || k == "" {
		return schemas.GVK{}, false
	}
	return gvk.Parse(av, k), true
}

// freeForm reports whether the schema node at p is a free-form object:
// type object, x-kubernetes-preserve-unknown-fields, nothing declared.
func freeForm(sch *schemas.Schema, p fieldpath.Path) bool {
	ss, err := sch.Structural()
	if err != nil {
		return false
	}
	n, _ := structural.Walk(ss, p)
	return n != nil && n.Type == "object" && n.XPreserveUnknownFields && !n.XEmbeddedResource && len(n.Properties) == 0 && n.AdditionalProperties == nil
}

// pinUnknownSegment narrows a fieldpath-unknown problem to the segment of
// the fieldPath that names no field, and suggests the field that was
// probably meant (dg.Replace: a quick fix then replaces the segment).
func pinUnknownSegment(d *document.Doc, m map[string]any, pr composition.Problem, dg Diagnostic, env Env) Diagnostic {
	_, v, ok := d.Lookup(pr.Path)
	if pr.Segment < 0 || !ok || v.Kind != yaml.ScalarNode {
		return dg
	}
	str := v.Value
	fp, err := fieldpath.Parse(str)
	if err != nil || pr.Segment >= len(fp) || fp[pr.Segment].Kind != fieldpath.KindField {
		return dg
	}
	idx, name := pr.Segment, fp[pr.Segment].Field
	// The segment's bytes: the name after a '.', or at the start, as often
	// as earlier segments spell the same name.
	skip := 0
	for _, seg := range fp[:idx] {
		if seg.Kind == fieldpath.KindField && seg.Field == name {
			skip++
		}
	}
	off := -1
	for i := strings.Index(str, name); i >= 0; {
		if end := i + len(name); (i == 0 || str[i-1] == '.') && (end == len(str) || str[end] == '.' || str[end] == '[') {
			if skip == 0 {
				off = i
				break
			}
			skip--
		}
		j := strings.Index(str[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if off < 0 {
		return dg
	}
	start := d.File.NodeSpan(v).Start
	if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		start++
	}
	dg.Span = document.Span{Start: start + off, End: start + off + len(name)}
	if ss, _, ok := fieldPathSchema(d, m, pr.Path, env); ok {
		if node, _ := walkStructural(ss, fp[:idx]); node != nil {
			names := make([]string, 0, len(node.Properties))
			for n := range node.Properties {
				names = append(names, n)
			}
			if best, ok := suggest.Closest(name, names); ok {
				dg.Message += fmt.Sprintf("; did you mean %q?", best)
				dg.Replace = best
			}
		}
	}
	return dg
}

// derivedOnly drops the findings on an XRD's derived CRDs that sit at or
// below a finding of the XRD's own schema: one mistake (an uppercase claim
// plural), one finding.
func derivedOnly(own, derived []schemas.Error) []schemas.Error {
	var out []schemas.Error
	for _, e := range derived {
		restated := false
		for _, o := range own {
			restated = restated || (o.Severity == severity.Error && len(o.Path) > 0 && e.Path.HasPrefix(o.Path))
		}
		if !restated {
			out = append(out, e)
		}
	}
	return out
}
