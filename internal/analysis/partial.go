package analysis

import (
	"context"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// patchFragment checks a document of a kustomize patch (env.PatchOf):
// kustomize merges it into a base object before anything reaches the API
// server, so what it sets must be right — types, formats, enum values,
// field names (its merge directives, $patch and the like, aside) — but
// what a whole object needs is not its business: required fields, CEL
// rules over the object, a CRD's, XRD's or Composition's own rules.
func patchFragment(ctx context.Context, d *document.Doc, m map[string]any, gvk schemas.GVK, env Env) []Diagnostic {
	if env.Schemas == nil {
		return nil
	}
	sch, found := nearest(env.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		if env.UnknownKind != 0 && !schemaless[gvk.Group] && !IsClientSide(gvk, env.ClientKinds) {
			return []Diagnostic{at(d, fieldpath.Path{fieldpath.Field("kind")}, false, env.UnknownKind, "unknown-kind", unknownKindMessage(d, gvk, env))}
		}
		return nil
	}
	var kept []schemas.Error
	for _, e := range sch.Validate(ctx, m) {
		switch {
		case e.Code == "required", e.Code == "cel":
		case e.Code == "unknown-field" && strings.HasPrefix(e.Field, "$"):
		default:
			kept = append(kept, e)
		}
	}
	return fromSchemaErrors(d, kept)
}
