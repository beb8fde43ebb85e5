package analysis

import (
	"context"
	"fmt"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

var crdGVK = schemas.GVK{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// validateObject checks one Kubernetes object against its schema, the way the
// API server would on create.
func validateObject(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	gvk, diags, ok := resourceHeader(d, m)
	if !ok {
		return diags
	}
	if gvk == crdGVK {
		return fromSchemaErrors(d, schemas.ValidateCRD(ctx, m))
	}
	if env.Schemas == nil {
		return nil
	}
	sch, found := env.Schemas.Lookup(gvk)
	if !found {
		if env.UnknownKind == 0 {
			return nil
		}
		return []Diagnostic{at(d, fieldpath.Path{fieldpath.Field("kind")}, false, env.UnknownKind, "unknown-kind",
			fmt.Sprintf("no schema for %s %s: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml", gvk.APIVersion(), gvk.Kind))}
	}
	return fromSchemaErrors(d, sch.Validate(ctx, m))
}

func fromSchemaErrors(d *document.Doc, errs []schemas.Error) []Diagnostic {
	out := make([]Diagnostic, 0, len(errs))
	for _, e := range errs {
		out = append(out, at(d, e.Path, e.OnKey, severityOf(e.Severity), e.Code, e.Message))
	}
	return out
}

func severityOf(s schemas.Severity) Severity {
	switch s {
	case schemas.SeverityWarning:
		return SeverityWarning
	case schemas.SeverityInfo:
		return SeverityInfo
	}
	return SeverityError
}
