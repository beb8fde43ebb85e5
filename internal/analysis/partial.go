// This file checks documents that are fragments rather than objects: kustomize
// patches, and values that are another tool's expressions.

package analysis

import (
	"context"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// patchFragment checks a document of a kustomize patch (env.Role.PatchOf):
// kustomize merges it into a base object before anything reaches the API
// server, so what it sets must be right — types, formats, enum values,
// field names (its merge directives, $patch and the like, aside) — but
// what a whole object needs is not its business: required fields, CEL
// rules over the object, a CRD's, XRD's or Composition's own rules.
func patchFragment(ctx context.Context, d *document.Doc, m map[string]any, gvk schemas.GVK, env Env) []Diagnostic {
	if env.Workspace.Schemas == nil {
		return nil
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return unknownKind(d, gvk, env)
	}
	var kept []schemas.Error
	for _, e := range withoutExpressions(sch.Validate(ctx, m), m, env) {
		switch {
		case e.Code == "required", e.Code == "cel", e.Code == schemas.CodeKubernetes:
			// kube-apiserver's own validation judges whole objects
			// (cross-field rules): a fragment is not one.
		case e.Code == "unknown-field" && strings.HasPrefix(e.Field, "$"):
		default:
			kept = append(kept, e)
		}
	}
	return fromSchemaErrors(d, kept)
}

// withoutExpressions drops findings on values that are expressions
// (env.Role.Expressions: "(…)" strings a tool evaluates first, as chainsaw's
// ($name)): what they stand for is only known once evaluated.
func withoutExpressions(errs []schemas.Error, m map[string]any, env Env) []schemas.Error {
	if !env.Role.Expressions {
		return errs
	}
	kept := errs[:0:0]
	for _, e := range errs {
		if isExpression(valueAt(m, e.Path)) {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

func isExpression(v any) bool {
	s, ok := v.(string)
	return ok && len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')'
}
