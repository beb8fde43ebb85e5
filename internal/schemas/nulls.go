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
// The order of the list is the maps' (placeNulls matches each finding
// against all of them); p is a buffer the walk appends to, copied only for
// a null found, and schemas are read in place: a document without nulls
// costs no allocation here.
func prunedNulls(v any, s *structuralschema.Structural, p fieldpath.Path, out *[]fieldpath.Path) {
	if s == nil || len(p) > 64 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		// One copy of a property's schema per call, on the stack (a map
		// value has no address; declared in the loop, it would be moved
		// to the heap): only a collection needs it.
		var prop structuralschema.Structural
		var ok bool
		for k, x := range v {
			if len(p) == 0 && (k == "metadata" || k == "apiVersion" || k == "kind") {
				continue
			}
			if prop, ok = s.Properties[k]; ok {
				if x == nil {
					nullAt(prop.Nullable, prop.Default.Object, p, k, out)
				} else if isCollection(x) {
					prunedNulls(x, &prop, append(p, fieldpath.Field(k)), out)
				}
				continue
			}
			if s.AdditionalProperties == nil || s.AdditionalProperties.Structural == nil {
				continue
			}
			c := s.AdditionalProperties.Structural
			if x == nil {
				nullAt(c.Nullable, c.Default.Object, p, k, out)
				continue
			}
			prunedNulls(x, c, append(p, fieldpath.Field(k)), out)
		}
	case []any:
		for i, x := range v {
			if isCollection(x) {
				prunedNulls(x, s.Items, append(p, fieldpath.Index(i)), out)
			}
		}
	}
}

// nullAt records the null at p.k unless the schema allows null there or
// defaults it.
func nullAt(nullable bool, def any, p fieldpath.Path, k string, out *[]fieldpath.Path) {
	if !nullable && def == nil {
		*out = append(*out, p.Child(fieldpath.Field(k)))
	}
}

func isCollection(x any) bool {
	switch x.(type) {
	case map[string]any, []any:
		return true
	}
	return false
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
