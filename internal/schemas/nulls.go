// This file places nulls the API server prunes: a required field written as
// null is reported on the null itself.

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

// placeNulls puts a required field written as null, which the server
// drops and then misses, on the null key itself rather than on the object
// holding it. A dropped null nothing needs is not reported: the server
// accepts the object, and every key being typed is null for a moment.
func placeNulls(errs []Error, nulls []fieldpath.Path) []Error {
	for i, e := range errs {
		if e.Code != "required" || e.Field == "" {
			continue
		}
		p := e.Path.Child(fieldpath.Field(e.Field))
		for _, n := range nulls {
			if n.String() == p.String() {
				errs[i].Path, errs[i].OnKey, errs[i].Field = p, true, ""
				errs[i].Message = fmt.Sprintf("missing required field %q: its value is null, which the API server drops (the field is not nullable)", e.Field)
			}
		}
	}
	return errs
}
