// This file validates the manifest a provider-kubernetes Object applies:
// the API server of the Object's cluster keeps it as it is, the target
// cluster's API server judges it when the provider creates or updates it.

package analysis

import (
	"context"
	"slices"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// manifestPath is where an Object holds its manifest.
var manifestPath = fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("forProvider"), fieldpath.Field("manifest")}

// isObject: provider-kubernetes' Object, cluster-scoped (v1) or
// namespaced (v2's kubernetes.m.crossplane.io).
func isObject(g schemas.GVK) bool {
	return g.Kind == "Object" && (g.Group == "kubernetes.crossplane.io" || g.Group == "kubernetes.m.crossplane.io")
}

// appliesManifest: the Object's management policies let the provider
// create or update the manifest's resource (an Observe-only Object
// reads an existing one: its manifest need only name it).
func appliesManifest(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	policies, ok := spec["managementPolicies"].([]any)
	if !ok {
		return true // default ["*"]
	}
	return slices.ContainsFunc(policies, func(p any) bool { return p == "*" || p == "Create" || p == "Update" })
}

// manifestErrors validates obj's manifest (an Object's) against the
// schema of its kind, as the target cluster's API server does on create:
// ok is false when there is none to validate (no manifest, an
// Observe-only Object, a kind no schema defines: the target cluster may
// serve it).
func manifestErrors(ctx context.Context, obj map[string]any, uri string, env Env) ([]schemas.Error, *schemas.Schema, bool) {
	if env.Workspace.Schemas == nil || !appliesManifest(obj) {
		return nil, nil, false
	}
	manifest, _ := valueAt(obj, manifestPath).(map[string]any)
	g, ok := baseGVK(manifest)
	if !ok {
		return nil, nil, false
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(g), uri)
	if !found {
		return nil, nil, false
	}
	return sch.Validate(ctx, namedAsApplied(obj, manifest)), sch, true
}

// namedAsApplied is the manifest as provider-kubernetes sends it: one
// without metadata.name takes the Object's name (parseManifest in
// internal/controller/object/object.go at commit 005efae, getDesired in
// its v0.x releases), so the target cluster never sees it nameless. An
// Object without a name yet (a Composition's base: Crossplane names it)
// lends a stand-in.
func namedAsApplied(obj, manifest map[string]any) map[string]any {
	meta, _ := manifest["metadata"].(map[string]any)
	if name, _ := meta["name"].(string); name != "" {
		return manifest
	}
	name := "object"
	if om, ok := obj["metadata"].(map[string]any); ok {
		if n, ok := om["name"].(string); ok && n != "" {
			name = n
		}
	}
	named := make(map[string]any, len(manifest))
	for k, v := range manifest {
		named[k] = v
	}
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["name"] = name
	named["metadata"] = m
	return named
}

// manifestFinding words a finding on an Object's manifest: what the
// target cluster's API server says when the provider applies it. An
// unknown field is a warning: the provider's requests do not ask for
// strict field validation, so the server drops the field.
func manifestFinding(e schemas.Error) schemas.Error {
	if e.Code == "unknown-field" && e.Severity == severity.Error {
		e.Severity = severity.Warning
		e.Message += " (the target cluster's API server drops it when provider-kubernetes applies the manifest)"
		return e
	}
	if e.Severity == severity.Error {
		e.Message += " (the target cluster's API server refuses the manifest when provider-kubernetes applies it)"
	}
	return e
}

// objectManifestErrors are the findings on obj's manifest when obj is a
// provider-kubernetes Object, with paths from obj's root.
func objectManifestErrors(ctx context.Context, obj map[string]any, uri string, env Env) []schemas.Error {
	if g, ok := baseGVK(obj); !ok || !isObject(g) {
		return nil
	}
	errs, sch, ok := manifestErrors(ctx, obj, uri, env)
	if !ok {
		return nil
	}
	var out []schemas.Error
	for _, e := range errs {
		if e.Severity == severity.Info {
			continue
		}
		e = manifestFinding(e)
		if sch.Source.Kind == schemas.SourceCatalog {
			e.Message += " (schema from the catalog " + sch.Source.Name + ", " + catalogFidelity + ")"
		}
		e.Path = manifestPath.Child(e.Path...)
		out = append(out, e)
	}
	return out
}

// objectManifest validates the manifest of a provider-kubernetes Object
// document.
func objectManifest(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	errs := objectManifestErrors(ctx, m, d.File.URI, env)
	out := make([]Diagnostic, 0, len(errs))
	for _, e := range errs {
		out = append(out, fromSchemaError(d, nil, e))
	}
	return out
}
