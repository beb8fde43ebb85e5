// This file checks an XRD by the CRDs Crossplane derives from it
// (ValidateXRD), placing findings in the XRD.

package schemas

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/xcrd"
)

// ValidateXRD checks what an XRD's schema becomes: Crossplane derives the
// composite resource's CRD (and the claim's) from it and creates them, so
// a schema the API server rejects (a bad type, properties written as a
// list, a broken CEL rule) leaves the XRD without a working kind.
// Crossplane's XRD webhook did exactly this (a dry-run create of the
// derived CRDs); today the XRD is accepted and never becomes established.
// The derived CRDs are validated as ValidateCRD validates a CRD document,
// and the findings are placed in the XRD: the derived schema sits at the
// same path as the XRD's (spec.versions[i].schema.openAPIV3Schema…), the
// claim CRD's names at spec.claimNames. major is the targeted Crossplane
// version (0 means 2). Problems the XRD's own schema reports (missing
// names, a bad scope) are left to it.
func ValidateXRD(ctx context.Context, obj map[string]any, major int) (out []Error) {
	defer func() {
		if r := recover(); r != nil {
			out = append(out, Error{Severity: severity.Warning, Code: "xrd", OnKey: true, Message: fmt.Sprintf("XRD validation stopped early: %v", r)})
			sortErrors(out)
		}
	}()
	out = xrdSchemaKeywords(obj)
	r := &resolver{in: obj}
	opts := xcrd.Options{CrossplaneMajor: major}
	xr, err := xcrd.ForCompositeResourceFor(obj, opts)
	if err != nil {
		if e, ok := derivationError(r, err); ok {
			out = append(out, e)
		}
		sortErrors(out)
		return out
	}
	out = append(out, validateDerived(ctx, r, xr, false)...)
	if spec, _ := obj["spec"].(map[string]any); spec["claimNames"] != nil {
		claim, err := xcrd.ForCompositeResourceClaimFor(obj, opts)
		if err != nil {
			if e, ok := derivationError(r, err); ok {
				out = append(out, e)
			}
		} else {
			out = append(out, validateDerived(ctx, r, claim, true)...)
		}
	}
	sortErrors(out)
	return dedupe(out)
}

// validateDerived runs the API server's CRD validation on a derived CRD
// and maps its paths into the XRD.
func validateDerived(ctx context.Context, r *resolver, crd *apiextensionsv1.CustomResourceDefinition, claim bool) []Error {
	// Defaulting records the storage version as stored, as on create.
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		return []Error{{Severity: severity.Error, OnKey: true, Code: "xrd", Message: "cannot derive the CRD: " + err.Error()}}
	}
	var out []Error
	for _, fe := range apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, &internal) {
		if claim && strings.HasPrefix(fe.Field, "metadata.") {
			continue // the claim CRD's name is made of claimNames.plural and group: reported there
		}
		fe.Field = xrdPath(crdDocumentPath(fe.Field), claim)
		e := r.convertOne(fe, "")
		if e.Code != "required" {
			e.Code = "xrd"
		}
		out = append(out, e)
	}
	return out
}

// xrdPath maps a path of a derived CRD document to the XRD: the claim
// CRD's names are the XRD's claimNames.
func xrdPath(p string, claim bool) string {
	if !claim {
		return p
	}
	if p == "spec.names" || strings.HasPrefix(p, "spec.names.") {
		return "spec.claimNames" + p[len("spec.names"):]
	}
	return p
}

// schemaDecodeRE is xcrd's error for a schema that does not decode into
// the API server's schema type.
var schemaDecodeRE = regexp.MustCompile(`^(spec\.versions\[(\d+)\]) \([^)]*\) schema\.openAPIV3Schema: (.*)$`)

// derivationError positions the derivation failures that are about the
// schema (or the claim's names); the rest (no group, no versions, a bad
// scope) are the XRD's own schema's findings.
func derivationError(r *resolver, err error) (Error, bool) {
	msg := err.Error()
	if m := schemaDecodeRE.FindStringSubmatch(msg); m != nil {
		base := r.resolve(m[1] + ".schema.openAPIV3Schema")
		inner := strings.TrimPrefix(m[3], "json: ")
		if e, ok := structFieldError(r.at(base), inner); ok {
			e.Path = append(append(fieldpath.Path(nil), base...), e.Path...)
			e.Code = "xrd"
			return e, true
		}
		return Error{Severity: severity.Error, Path: base, OnKey: true, Code: "xrd", Message: "the schema does not decode: " + inner}, true
	}
	if strings.Contains(msg, "claim name") || strings.Contains(msg, "claimNames") {
		return Error{Severity: severity.Error, Path: fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("claimNames")}, OnKey: true, Code: "xrd", Message: msg}, true
	}
	return Error{}, false
}
