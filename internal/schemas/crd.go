// This file checks CustomResourceDefinition documents as the API server does
// on create (ValidateCRD).

package schemas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// ValidateCRD checks an apiextensions.k8s.io/v1 CustomResourceDefinition
// document the way the API server does on create: strict decoding (unknown
// and duplicate fields are reported, as kubectl's default
// fieldValidation=Strict does), defaulting, conversion to the internal
// type, then apiextensions validation (structural schema rules, supported
// types and formats, defaults, CEL compilation and cost, names, group and
// versions). Paths are document paths: the validator's
// "…openAPIV3Schema.properties[foo].type" becomes
// …openAPIV3Schema.properties.foo.type, and schema parts the conversion
// hoists to spec (validation, subresources, additionalPrinterColumns,
// selectableFields — identical in every version) are reported on
// spec.versions[0].
func ValidateCRD(ctx context.Context, obj map[string]any) (out []Error) {
	defer func() {
		if r := recover(); r != nil {
			out = append(out, Error{Severity: severity.Warning, Code: "crd", OnKey: true, Message: fmt.Sprintf("CRD validation stopped early: %v", r)})
			sortErrors(out)
		}
	}()
	obj, _ = deepCopyJSON(obj).(map[string]any)
	r := &resolver{in: obj}
	raw, err := json.Marshal(obj)
	if err != nil {
		return []Error{{Severity: severity.Error, OnKey: true, Code: "crd", Message: err.Error()}}
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	strictErrs, err := kjson.UnmarshalStrict(raw, &v1, kjson.DisallowUnknownFields, kjson.DisallowDuplicateFields)
	if err != nil {
		// A wrong type: the API server rejects the document before
		// validating it.
		return []Error{decodeError(r, err)}
	}
	for _, se := range strictErrs {
		var fe kjson.FieldError
		if errors.As(se, &fe) {
			p := r.resolve(fe.FieldPath())
			last, _ := p.Last()
			out = append(out, Error{Severity: severity.Error, Path: p, OnKey: true, Code: "unknown-field", Message: fmt.Sprintf("unknown field %q", last.Field)})
		}
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		return append(out, Error{Severity: severity.Error, OnKey: true, Code: "crd", Message: err.Error()})
	}
	errs := apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, &internal)
	filled := false
	for _, fe := range errs {
		if isInstallTimeService(fe) {
			filled = true
			continue
		}
		fe.Field = crdDocumentPath(fe.Field)
		e := r.convertOne(fe, "")
		if e.Code != "required" {
			e.Code = "crd"
		}
		out = append(out, e)
	}
	if filled {
		p, _ := fieldpath.Parse(serviceField)
		out = append(out, Error{Path: p, OnKey: true, Severity: severity.Info, Code: "crd",
			Message: "the conversion webhook's service has no name or namespace: they are filled in when the CRD is installed (Crossplane's package manager does it, with the CA bundle, for the packages it installs); applied as it is, the API server would reject this CRD"})
	}
	sortErrors(out)
	return dedupe(out)
}

// serviceField is where a CRD names its conversion webhook's service.
const serviceField = "spec.conversion.webhook.clientConfig.service"

// isInstallTimeService: a conversion webhook service without a name or
// namespace, which a package manager completes at install (Crossplane's
// establisher sets both, the port and the CA bundle on every packaged CRD
// with a Webhook strategy), as provider packages ship them.
func isInstallTimeService(fe *field.Error) bool {
	f := crdDocumentPath(fe.Field)
	return fe.Type == field.ErrorTypeRequired && (f == serviceField+".name" || f == serviceField+".namespace")
}

// crdDocumentPath maps a path in the internal CRD to the v1 document.
func crdDocumentPath(p string) string {
	for _, m := range [...]struct{ internal, v1 string }{
		{"spec.validation", "spec.versions[0].schema"},
		{"spec.subresources", "spec.versions[0].subresources"},
		{"spec.additionalPrinterColumns", "spec.versions[0].additionalPrinterColumns"},
		{"spec.selectableFields", "spec.versions[0].selectableFields"},
		{"spec.version", "spec.versions[0].name"},
		{"spec.conversion.webhookClientConfig", "spec.conversion.webhook.clientConfig"},
		{"spec.conversion.conversionReviewVersions", "spec.conversion.webhook.conversionReviewVersions"},
	} {
		if p == m.internal || strings.HasPrefix(p, m.internal+".") || strings.HasPrefix(p, m.internal+"[") {
			return m.v1 + p[len(m.internal):]
		}
	}
	return p
}

// decodeError positions a decoding failure. encoding/json-style type errors
// name the field path without list indices ("spec.versions.name"), so the
// path is followed through the object, taking the first list element whose
// value has the wrong type.
func decodeError(r *resolver, err error) Error {
	var te *json.UnmarshalTypeError
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.As(err, &te) && te.Field != "" {
		p := findTyped(r.in, strings.Split(te.Field, "."), te.Value)
		return Error{Severity: severity.Error, Path: p, Code: "type", Message: fmt.Sprintf("must be of type %s, not %s", jsonTypeName(te.Type.Kind().String()), te.Value)}
	}
	if e, ok := structFieldError(r.in, msg); ok {
		return e
	}
	return Error{Severity: severity.Error, OnKey: true, Code: "crd", Message: msg}
}

// structFieldError positions a decoding error whose message reads
// "…cannot unmarshal X into Go struct field T.a.b of type Y" (as
// sigs.k8s.io/json and encoding/json word them) by following a.b through
// v.
func structFieldError(v any, msg string) (Error, bool) {
	i := strings.Index(msg, "Go struct field ")
	if i < 0 {
		return Error{}, false
	}
	rest := msg[i+len("Go struct field "):]
	f, typ, _ := strings.Cut(rest, " of type ")
	if dot := strings.IndexByte(f, '.'); dot >= 0 {
		f = f[dot+1:]
	}
	got := ""
	if j := strings.Index(msg, "cannot unmarshal "); j >= 0 {
		got, _, _ = strings.Cut(msg[j+len("cannot unmarshal "):], " into")
	}
	p := findTyped(v, strings.Split(f, "."), got)
	return Error{Severity: severity.Error, Path: p, Code: "type", Message: fmt.Sprintf("must be of type %s, not %s", jsonTypeName(typ), got)}, true
}

func jsonTypeName(goType string) string {
	switch {
	case goType == "string":
		return "string"
	case goType == "bool":
		return "boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "integer"
	case strings.HasPrefix(goType, "float"):
		return "number"
	case strings.HasPrefix(goType, "[]"), goType == "slice":
		return "array"
	case strings.HasPrefix(goType, "map"), goType == "struct":
		return "object"
	}
	if strings.Contains(goType, ".") { // a named struct type
		return "object"
	}
	return goType
}

// findTyped follows field names through v, descending into list elements;
// where a list has several elements, the first whose subtree holds a value
// of JSON type got at the end of the names wins.
//
// Map keys are not part of such paths either ("properties.properties" for
// properties.spec.properties): where a name is not a key of the object at
// hand, each of its object values (sorted by key) is tried in its place,
// one level at a time.
func findTyped(v any, names []string, got string) fieldpath.Path {
	var walk func(v any, names []string, skipped bool) (fieldpath.Path, bool)
	walk = func(v any, names []string, skipped bool) (fieldpath.Path, bool) {
		if len(names) == 0 && (got == "" || jsonTypeOf(v) == got) {
			return nil, true
		}
		if l, ok := v.([]any); ok {
			for i, x := range l {
				if p, ok := walk(x, names, skipped); ok {
					return append(fieldpath.Path{fieldpath.Index(i)}, p...), true
				}
			}
			return nil, false
		}
		if len(names) == 0 {
			if jsonTypeOf(v) == got || got == "" {
				return nil, true
			}
			// A map of the wrong element: the first entry of that type.
			if m, ok := v.(map[string]any); ok {
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for _, k := range keys {
					if jsonTypeOf(m[k]) == got {
						return fieldpath.Path{fieldpath.Field(k)}, true
					}
				}
			}
			return nil, false
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		x, ok := m[names[0]]
		if !ok {
			if skipped {
				return nil, false
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if _, isObj := m[k].(map[string]any); !isObj {
					continue
				}
				if p, ok := walk(m[k], names, true); ok {
					return append(fieldpath.Path{fieldpath.Field(k)}, p...), true
				}
			}
			return nil, false
		}
		p, ok := walk(x, names[1:], false)
		return append(fieldpath.Path{fieldpath.Field(names[0])}, p...), ok
	}
	if p, ok := walk(v, names, false); ok {
		return p
	}
	var p fieldpath.Path
	for _, n := range names {
		p = append(p, fieldpath.Field(n))
	}
	return p
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int64, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return ""
}
