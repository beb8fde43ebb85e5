// This file runs the API server's create path for one object (validateObject):
// type and object meta, OpenAPI, unknown fields, CEL.

package schemas

import (
	"context"
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/structural"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// validateObject runs the API server's create path for a custom resource
// (see apiextensions-apiserver's customresource_handler.go
// unstructuredSchemaCoercer and registry/customresource strategy.go):
//
//  1. decoding: ObjectMeta is read strictly (unknown metadata fields are
//     reported), unknown fields are pruned (reported, not fatal), non-nullable
//     nulls without defaults are dropped, embedded ObjectMeta is coerced;
//  2. defaulting (so CEL rules see defaulted fields, e.g. upjet's
//     managementPolicies); then, with the status subresource, status is
//     dropped (PrepareForCreate), so only its unknown fields are reported;
//  3. validation: apiVersion/kind, ObjectMeta, the OpenAPI schema, embedded
//     resources' ObjectMeta, list-type map/set uniqueness, and, when none
//     of those found a blocking error, CEL x-kubernetes-validations (no old
//     object, so transition rules are skipped).
func validateObject(ctx context.Context, vv *versionValidator, in map[string]any, through bool) (out []Error) {
	defer func() {
		// The API server's code is not written for arbitrary input; a crash
		// must become a diagnostic, never take the server down.
		if r := recover(); r != nil {
			out = append(out, Error{Severity: severity.Warning, Code: "schema", OnKey: true, Message: fmt.Sprintf("validation stopped early: %v", r)})
			sortErrors(out)
		}
	}()
	obj, _ := deepCopyJSON(in).(map[string]any)
	ss := vv.structural
	r := &resolver{in: in, ss: ss}

	// apiVersion and kind must name this schema; the API server stops here
	// otherwise.
	if errs := validateTypeMeta(obj, vv.gvk); len(errs) > 0 {
		return r.convert(errs, "invalid")
	}

	// 1. Decoding.
	kind, apiVersion := obj["kind"], obj["apiVersion"]
	meta, foundMeta, metaUnknown, err := objectmeta.GetObjectMetaWithOptions(obj, objectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		// The API server rejects the request; report and carry on with the
		// fields that do decode.
		out = append(out, r.metadataDecodeError(err))
		meta, foundMeta, metaUnknown, _ = objectmeta.GetObjectMetaWithOptions(obj, objectmeta.ObjectMetaOptions{DropMalformedFields: true, ReturnUnknownFieldPaths: true})
	}
	unknown := metaUnknown
	var nulls []fieldpath.Path
	if ss != nil && !vv.preserve {
		prunedNulls(obj, ss, make(fieldpath.Path, 0, 16), &nulls)
		unknown = append(unknown, structuralpruning.PruneWithOptions(obj, ss, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, ss)
	}
	if ss != nil {
		ferr, paths := objectmeta.CoerceWithOptions(nil, obj, ss, false, objectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if ferr != nil {
			out = append(out, r.convert(field.ErrorList{ferr}, "metadata")...)
		}
		unknown = append(unknown, paths...)
	}
	for _, u := range unknown {
		out = append(out, r.unknownField(u, ss))
	}
	if kind != nil {
		obj["kind"] = kind
	}
	if apiVersion != nil {
		obj["apiVersion"] = apiVersion
	}
	if foundMeta && meta != nil {
		_ = objectmeta.SetObjectMeta(obj, meta)
	}

	// 2. Defaulting.
	if ss != nil {
		structuraldefaulting.Default(obj, ss)
	}

	// PrepareForCreate: with the status subresource, create drops status.
	if vv.hasStatus {
		delete(obj, "status")
	}

	// 3. Validation.
	var errs, embedded field.ErrorList
	metaErrs, clearedNamespace := validateObjectMeta(ctx, meta, vv.scope)
	errs = append(errs, metaErrs...)
	if clearedNamespace {
		out = append(out, Error{Path: fieldpath.Path{fieldpath.Field("metadata"), fieldpath.Field("namespace")}, Severity: severity.Warning, Code: "metadata",
			Message: fmt.Sprintf("ignored: %s is cluster-scoped, so the API server clears metadata.namespace", vv.gvk.Kind)})
	}
	if vv.validator != nil {
		errs = append(errs, validation.ValidateCustomResource(nil, obj, vv.validator)...)
	}
	if ss != nil {
		embedded = objectmeta.Validate(ctx, nil, obj, ss, false)
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, ss, obj)...)
	}
	out = append(out, r.convert(errs, "")...)
	out = append(out, r.convert(embedded, "metadata")...)
	errs = append(errs, embedded...)
	if vv.cel != nil {
		switch {
		case blocked(errs) && through:
			// What the API server says once the blocking errors are
			// fixed: each rule's finding, marked Deferred.
			celErrs, _ := vv.cel.Validate(ctx, nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
			for _, e := range r.convert(celErrs, "cel") {
				if e.Unevaluable {
					continue // a rule the invalid values keep from evaluating
				}
				e.Deferred = true
				e.Message += " (the API server checks this rule once the other errors are fixed)"
				out = append(out, e)
			}
		case blocked(errs):
			out = append(out, Error{OnKey: true, Severity: severity.Info, Code: "cel",
				Message: "some validation rules (x-kubernetes-validations) were not checked because the object was invalid; correct the existing errors to complete validation"})
		default:
			celErrs, _ := vv.cel.Validate(ctx, nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
			out = append(out, r.convert(celErrs, "cel")...)
		}
	}
	out = placeNulls(out, nulls)
	if vv.err != nil {
		out = append(out, Error{OnKey: true, Severity: severity.Warning, Code: "schema",
			Message: fmt.Sprintf("only partly validated: %v", vv.err)})
	}
	sortErrors(out)
	return dedupe(out)
}

// blocked mirrors the API server's hasBlockingErr: CEL rules are not run on
// an object with these errors.
func blocked(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// validateTypeMeta is customResourceValidator.ValidateTypeMeta.
func validateTypeMeta(obj map[string]any, gvk GVK) field.ErrorList {
	var errs field.ErrorList
	if k, _ := obj["kind"].(string); k != gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), obj["kind"], fmt.Sprintf("must be %v", gvk.Kind)))
	}
	if av, _ := obj["apiVersion"].(string); av != gvk.APIVersion() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), obj["apiVersion"], fmt.Sprintf("must be %v", gvk.APIVersion())))
	}
	return errs
}

// validateObjectMeta applies the API server's ObjectMeta rules on create,
// with adjustments for files: a missing namespace on a namespaced kind is
// fine (kubectl fills it in); a namespace on a cluster-scoped kind is not
// an error, because the create handler clears it before validating
// (rest.EnsureObjectNamespaceMatchesRequestNamespace), but it is reported
// through clearedNamespace; and generateName stands in for a missing name
// (the server generates the name before validating).
func validateObjectMeta(ctx context.Context, meta *metav1.ObjectMeta, scope Scope) (errs field.ErrorList, clearedNamespace bool) {
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	m := meta.DeepCopy()
	generated := false
	if m.Name == "" && m.GenerateName != "" {
		// What names.SimpleNameGenerator does, with a fixed suffix.
		base := m.GenerateName
		if len(base) > 58 {
			base = base[:58]
		}
		m.Name, generated = base+"x7k2q", true
	}
	if scope != Namespaced && m.Namespace != "" {
		m.Namespace, clearedNamespace = "", true
	}
	all := apimachineryvalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, m, nil, scope == Namespaced,
		apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))
	for _, e := range all {
		switch {
		case e.Field == "metadata.namespace" && e.Type == field.ErrorTypeRequired:
			continue
		case e.Field == "metadata.name" && generated:
			e.Field = "metadata.generateName"
			e.BadValue = meta.GenerateName
		}
		errs = append(errs, e)
	}
	return errs, clearedNamespace
}

// deepCopyJSON copies a JSON-compatible value, normalising Go integer and
// float types that YAML decoders produce to int64 and float64.
func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopyJSON(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopyJSON(x)
		}
		return l
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case uint64:
		return int64(v)
	case uint32:
		return int64(v)
	case uint:
		return int64(v)
	case float32:
		return float64(v)
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = deepCopyJSON(x)
		}
		return m
	}
	return v
}

func (r *resolver) unknownField(p string, ss *structuralschema.Structural) Error {
	path := r.resolve(p)
	last, _ := path.Last()
	e := Error{Severity: severity.Error, Path: path, OnKey: true, Code: "unknown-field", Field: last.Field, Message: fmt.Sprintf("unknown field %q", last.Field)}
	if best, ok := suggest.Closest(last.Field, siblingsOf(ss, path)); ok {
		e.Suggestion = best
		e.Message += fmt.Sprintf("; did you mean %q?", best)
	}
	return e
}

func (r *resolver) metadataDecodeError(err error) Error {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if e, ok := structFieldError(member(r.in, "metadata"), msg); ok {
		e.Path = append(fieldpath.Path{fieldpath.Field("metadata")}, e.Path...)
		e.Code = "metadata"
		return e
	}
	return Error{Severity: severity.Error, Path: fieldpath.Path{fieldpath.Field("metadata")}, Code: "metadata", Message: "invalid metadata: " + msg}
}

// siblingsOf lists the properties of the object that holds the field at p.
func siblingsOf(s *structuralschema.Structural, p fieldpath.Path) []string {
	parent := p.Parent()
	if len(parent) == 1 && parent[0] == fieldpath.Field("metadata") {
		names := make([]string, len(structural.ObjectMeta))
		for i, f := range structural.ObjectMeta {
			names[i] = f.Name
		}
		return names
	}
	cur := s
	for _, seg := range parent {
		next, ok := structural.Step(cur, seg)
		if !ok || next == nil {
			return nil
		}
		cur = next
	}
	if cur == nil {
		return nil
	}
	out := make([]string, 0, len(cur.Properties))
	for k := range cur.Properties {
		out = append(out, k)
	}
	return out
}

func dedupe(errs []Error) []Error {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		k := e.Path.String() + "\x00" + e.Code + "\x00" + e.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}
