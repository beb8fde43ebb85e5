package schemas

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// prunedNulls lists the keys of v (schema s, at p) whose value is null
// where the schema neither allows null nor has a default: the API server
// drops them before validating (PruneNonNullableNullsWithoutDefaults).
func prunedNulls(v any, s *structuralschema.Structural, p fieldpath.Path, out *[]fieldpath.Path) {
	if s == nil || len(p) > 64 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if len(p) == 0 && (k == "metadata" || k == "apiVersion" || k == "kind") {
				continue
			}
			var c *structuralschema.Structural
			if prop, ok := s.Properties[k]; ok {
				c = &prop
			} else if s.AdditionalProperties != nil {
				c = s.AdditionalProperties.Structural
			}
			if c == nil {
				continue
			}
			x := v[k]
			if x == nil {
				if !c.Nullable && c.Default.Object == nil {
					*out = append(*out, p.Child(fieldpath.Field(k)))
				}
				continue
			}
			prunedNulls(x, c, p.Child(fieldpath.Field(k)), out)
		}
	case []any:
		for i, x := range v {
			prunedNulls(x, s.Items, p.Child(fieldpath.Index(i)), out)
		}
	}
}

// placeNulls puts findings about a null the server dropped on its key: a
// required field written as null is missing (said on the null key, not on
// the object holding it); any other dropped null gets a note, because
// what the file says is not what the server keeps.
func placeNulls(errs []Error, nulls []fieldpath.Path) []Error {
	if len(nulls) == 0 {
		return errs
	}
	said := map[string]bool{}
	for i, e := range errs {
		if e.Code != "required" || e.Field == "" {
			continue
		}
		p := e.Path.Child(fieldpath.Field(e.Field))
		for _, n := range nulls {
			if n.String() == p.String() {
				errs[i].Path, errs[i].OnKey, errs[i].Field = p, true, ""
				errs[i].Message = fmt.Sprintf("missing required field %q: its value is null, which the API server drops (the field is not nullable)", e.Field)
				said[p.String()] = true
			}
		}
	}
	for _, n := range nulls {
		if said[n.String()] {
			continue
		}
		errs = append(errs, Error{Path: n, OnKey: true, Severity: SeverityInfo, Code: "null",
			Message: "null: the API server drops this field (it is not nullable and has no default), as if it were not written"})
	}
	return errs
}
