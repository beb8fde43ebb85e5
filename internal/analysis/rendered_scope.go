// This file holds rendered resources to the scope rules of Crossplane v2's
// composite reconciler (namespaced XRs compose namespaced resources in their
// namespace).

package analysis

import (
	"context"
	"fmt"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/render"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// scopeDiagnostics holds each rendered resource to the scope rules
// Crossplane v2's composite reconciler enforces: a namespaced XR cannot
// compose a cluster-scoped resource (the reconciler refuses to apply it:
// "cannot apply cluster scoped composed resource … for a namespaced
// composite resource"), and a cluster-scoped XR (scope: Cluster) puts a
// composed resource in no namespace, so a namespaced kind needs one in
// its template. Legacy XRs (Crossplane v1, LegacyCluster) keep their
// rules, checked elsewhere.
func scopeDiagnostics(ctx context.Context, d *document.Doc, m map[string]any, rd Rendering, env Env) []Diagnostic {
	if rd.Legacy {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	xrKind, _ := ref["kind"].(string)
	var out []Diagnostic
	for _, res := range rd.Resources {
		sch, ok := resourceSchema(ctx, d, res, env)
		if !ok {
			continue
		}
		md, _ := res.Object["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		kind, _ := res.Object["kind"].(string)
		p := res.Path
		if _, hasBase := valueAt(m, p.Child(fieldpath.Field("base"))).(map[string]any); hasBase {
			p = p.Child(fieldpath.Field("base"), fieldpath.Field("kind"))
		} else if _, literal := valueAt(m, p.Child(fieldpath.Field("kind"))).(string); literal {
			p = p.Child(fieldpath.Field("kind")) // a resource written out whole (function-dummy's response)
		}
		switch {
		case rd.Namespaced && sch.Scope == schemas.Cluster && ns == "":
			out = append(out, diagnosticAt(d, p, false, severity.Error, "composition-scope",
				fmt.Sprintf("Crossplane cannot apply cluster scoped composed resource %q (a %s) for a namespaced composite resource: a namespaced %s composes only namespaced kinds (use a namespaced kind, such as a provider's .m. API group, or give the XRD scope: Cluster)", res.Name, kind, xrKind)))
		case !rd.Namespaced && sch.Scope == schemas.Namespaced && ns == "" && !writesNamespace(res):
			out = append(out, diagnosticAt(d, p, false, severity.Error, "composition-scope",
				fmt.Sprintf("resource %q is a namespaced %s, and the cluster-scoped %s puts what it composes in no namespace: set metadata.namespace in the template (or patch it)", res.Name, kind, xrKind)))
		}
	}
	return out
}

// writesNamespace says a patch of the resource writes (or would have
// written, had its source been set) metadata.namespace.
func writesNamespace(res render.Resource) bool {
	ns := fieldpath.Path{fieldpath.Field("metadata"), fieldpath.Field("namespace")}
	for _, w := range res.Writes {
		if w.To.HasPrefix(ns) || ns.HasPrefix(w.To) {
			return true
		}
	}
	for _, s := range res.Skips {
		if s.To.HasPrefix(ns) || ns.HasPrefix(s.To) {
			return true
		}
	}
	for _, f := range res.Failures {
		if f.To.HasPrefix(ns) || ns.HasPrefix(f.To) {
			return true
		}
	}
	return false
}
