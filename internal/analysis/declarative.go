package analysis

import (
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/k8srules"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// withDeclarative adds, for a built-in Kubernetes kind, what Kubernetes'
// declarative validation rules (internal/k8srules: the +k8s: tags of
// k8s.io/api) say of the object, to the schema's errs. A field the schema
// already reports on is left to the schema's finding.
func withDeclarative(sch *schemas.Schema, gvk schemas.GVK, m map[string]any, errs []schemas.Error) []schemas.Error {
	if sch == nil || sch.Source.Kind != schemas.SourceBuiltin || sch.KubernetesValidates(m) {
		return errs // kube-apiserver's own validation ran, declarative rules included
	}
	found := k8srules.Check(gvk.Group, gvk.Version, gvk.Kind, m)
	if len(found) == 0 {
		return errs
	}
	said := map[string]bool{}
	for _, e := range errs {
		p := e.Path
		if e.Code == "required" && e.Field != "" {
			p = p.Child(fieldpath.Field(e.Field))
		}
		said[p.String()] = true
	}
	for _, f := range found {
		if said[f.Path.String()] {
			continue
		}
		e := schemas.Error{Path: f.Path, Severity: severity.Error, Code: "k8s-validation", Message: f.Message}
		if f.Rule == "required" {
			e.Code = "required"
		}
		if f.Missing != "" {
			// Positioned, named and fixed as the schema's required findings.
			e.Path, e.Field, e.OnKey = f.Path.Parent(), f.Missing, true
		}
		errs = append(errs, e)
	}
	return errs
}
