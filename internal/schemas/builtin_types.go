// This file adjusts findings on built-in kinds to what the API server's typed
// decoding does (resource quantities).

package schemas

import (
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// quantityPattern is the syntax of resource.Quantity as the built-in
// bundle's generator writes it (internal/schemas/builtin/internal/generate)
// on the untyped node that stands for a Quantity: a string or a number.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// builtinTypes adjusts the findings on a built-in kind to what the API
// server's typed decoding does with Go types no OpenAPI schema states:
//
//   - a []byte field (format: byte: Secret data, ConfigMap binaryData)
//     decodes "" to an empty slice: valid, though kube-openapi's byte
//     format refuses the empty string;
//   - a resource.Quantity accepts only a string or a number: the bundle's
//     untyped node (a pattern applies only to strings) lets a boolean, a
//     list or an object through, which the server's decoding rejects.
func builtinTypes(vv *versionValidator, obj map[string]any, errs []Error) []Error {
	r := &resolver{in: obj}
	kept := errs[:0]
	for _, e := range errs {
		if e.Code == "format" && strings.HasPrefix(e.Message, "must be of type byte") {
			if s, ok := r.at(e.Path).(string); ok && s == "" {
				continue
			}
		}
		kept = append(kept, e)
	}
	if vv.structural != nil {
		kept = append(kept, quantities(vv.structural, obj, nil)...)
		sortErrors(kept)
	}
	return kept
}

func isQuantity(s *structuralschema.Structural) bool {
	return s != nil && s.Type == "" && s.XPreserveUnknownFields && s.ValueValidation != nil && s.ValueValidation.Pattern == quantityPattern
}

// quantities reports every Quantity in v (at path p, schema s) that is
// neither a string nor a number.
func quantities(s *structuralschema.Structural, v any, p fieldpath.Path) []Error {
	if s == nil || v == nil {
		return nil
	}
	if isQuantity(s) {
		what := ""
		switch v.(type) {
		case string, int64, float64, int:
			return nil
		case bool:
			what = "a boolean"
		case []any:
			what = "a list"
		case map[string]any:
			what = "an object"
		default:
			what = fmt.Sprintf("%T", v)
		}
		return []Error{{Path: p, Severity: severity.Error, Code: "type",
			Message: fmt.Sprintf(`must be a quantity, a string such as "500m" or "1Gi" or a number, not %s`, what)}}
	}
	var out []Error
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			c, ok := s.Properties[k]
			switch {
			case ok:
				out = append(out, quantities(&c, x, p.Child(fieldpath.Field(k)))...)
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				out = append(out, quantities(s.AdditionalProperties.Structural, x, p.Child(fieldpath.Field(k)))...)
			}
		}
	case []any:
		for i, x := range v {
			out = append(out, quantities(s.Items, x, p.Child(fieldpath.Index(i)))...)
		}
	}
	return out
}
