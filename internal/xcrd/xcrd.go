// Package xcrd derives the CRDs of the composite resource (XR) and of the
// claim that a Crossplane CompositeResourceDefinition (XRD) defines, with
// the fields Crossplane itself adds, so that XRs, claims and patches that
// use those fields validate as they would in a cluster.
//
// The derivation is a reimplementation (nothing copied) of Crossplane's
// own, read from:
//
//   - Crossplane v2.3: crossplane-runtime v2.3.3 pkg/xcrd (crd.go,
//     schemas.go, crd_test.go), where the package moved from Crossplane's
//     internal/xcrd in v2.3.0; v2.0–v2.2's internal/xcrd only lack the
//     root x-kubernetes-validations (v2.2) and scale subresource (v2.3);
//   - Crossplane v1.20: internal/xcrd (crd.go, schemas.go, crd_test.go);
//   - both versions' XRD CRD (cluster/crds/apiextensions.crossplane.io_
//     compositeresourcedefinitions.yaml) for the defaults the API server
//     gives an XRD before Crossplane reads it.
//
// How a CRD is derived, per XRD version:
//
//   - metadata: the XR CRD is named after the XRD (metadata.name, else
//     <plural>.<group>), the claim CRD <claimPlural>.<group>; labels are the
//     XRD's labels plus spec.metadata.labels, annotations
//     spec.metadata.annotations; a controller owner reference to the XRD
//     when the XRD has a uid.
//   - spec: group, conversion and names from the XRD (claimNames for the
//     claim), plus the category "composite" or "claim"; the XR's scope from
//     spec.scope, the claim's Namespaced.
//   - versions: served, deprecated, deprecationWarning as given, storage =
//     referenceable, the status subresource, the XRD's scale subresource
//     (v2) and printer columns followed by Crossplane's.
//   - schema: Crossplane starts from its own root (apiVersion, kind,
//     metadata.name limited to 63 characters or the XRD's lower limit,
//     spec required) and takes from the XRD's schema only the root
//     description (and x-kubernetes-validations in v2), spec's properties,
//     required, description, oneOf, x-kubernetes-validations and
//     x-kubernetes-preserve-unknown-fields, and status's properties,
//     required, description, oneOf and x-kubernetes-validations. Its own
//     spec and status properties then replace the XRD's of the same name.
//
// The shape of the XR follows its scope. Crossplane v2 reads spec.scope
// (default LegacyCluster for apiextensions.crossplane.io/v1 XRDs, Namespaced
// for /v2): LegacyCluster XRs keep Crossplane's fields at the top of spec
// (compositionRef, compositionSelector, compositionRevisionRef,
// compositionRevisionSelector, compositionUpdatePolicy, resourceRefs,
// claimRef, writeConnectionSecretToRef) and status (conditions,
// connectionDetails, claimConditionTypes), and are the only ones that can
// be claimed; Namespaced and Cluster XRs get the composition fields and
// resourceRefs (without namespace when Namespaced) under spec.crossplane and
// only status.conditions. Crossplane v1.20 has no scope: every XR is
// cluster scoped with the legacy shape plus publishConnectionDetailsTo,
// resourceRefs without namespace and conditions without observedGeneration.
//
// Deliberate leniencies, for an editor that must say something useful about
// files a cluster would reject: a /v2 XRD with scope LegacyCluster (which
// Crossplane v2's API rejects) derives the legacy shape; the result carries
// the API server's CRD defaults (listKind, singular, conversion strategy).
//
// Invariants: pure functions of the XRD; bad input is an error, never a
// panic.
package xcrd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The scopes an XRD's spec.scope can name.
const (
	ScopeNamespaced    = "Namespaced"
	ScopeCluster       = "Cluster"
	ScopeLegacyCluster = "LegacyCluster"
)

// The categories Crossplane adds to the CRDs it derives.
const (
	CategoryComposite = "composite"
	CategoryClaim     = "claim"
)

// Options chooses whose derivation to mirror.
type Options struct {
	// CrossplaneMajor is 2 (Crossplane v2.3, the default when 0) or 1
	// (Crossplane v1.20).
	CrossplaneMajor int
}

func (o Options) major() (int, error) {
	switch o.CrossplaneMajor {
	case 0, 2:
		return 2, nil
	case 1:
		return 1, nil
	}
	return 0, fmt.Errorf("unsupported Crossplane major version %d (want 1 or 2)", o.CrossplaneMajor)
}

// ForCompositeResource derives the CRD of the composite resource (XR) an
// XRD defines, exactly as Crossplane does.
func ForCompositeResource(xrd map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	return ForCompositeResourceFor(xrd, Options{})
}

// ForCompositeResourceClaim derives the claim CRD of a v1 XRD with
// spec.claimNames; an error if the XRD offers no claim.
func ForCompositeResourceClaim(xrd map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	return ForCompositeResourceClaimFor(xrd, Options{})
}

// ForCompositeResourceFor is ForCompositeResource as the given Crossplane
// major version derives it.
func ForCompositeResourceFor(obj map[string]any, o Options) (*apiextensionsv1.CustomResourceDefinition, error) {
	major, err := o.major()
	if err != nil {
		return nil, err
	}
	x, err := decode(obj, major)
	if err != nil {
		return nil, err
	}
	scope := x.scope(major)
	crdScope := apiextensionsv1.ClusterScoped
	if scope == ScopeNamespaced {
		crdScope = apiextensionsv1.NamespaceScoped
	}
	name := x.Metadata.Name
	if name == "" {
		name = x.Spec.Names.Plural + "." + x.Spec.Group
	}
	crd := x.newCRD(name, x.Spec.Names, CategoryComposite, crdScope)
	for i, v := range x.Spec.Versions {
		ver, err := x.version(i, v, major)
		if err != nil {
			return nil, err
		}
		ver.AdditionalPrinterColumns = append(ver.AdditionalPrinterColumns, xrColumns(major, scope)...)
		root := ver.Schema.OpenAPIV3Schema
		setAll(root, "spec", xrSpecProps(major, scope, x.updateDefault()))
		setAll(root, "status", statusProps(major, scope))
		crd.Spec.Versions = append(crd.Spec.Versions, ver)
	}
	return finish(crd), nil
}

// ForCompositeResourceClaimFor is ForCompositeResourceClaim as the given
// Crossplane major version derives it.
func ForCompositeResourceClaimFor(obj map[string]any, o Options) (*apiextensionsv1.CustomResourceDefinition, error) {
	major, err := o.major()
	if err != nil {
		return nil, err
	}
	x, err := decode(obj, major)
	if err != nil {
		return nil, err
	}
	if err := x.checkClaimNames(major); err != nil {
		return nil, err
	}
	names := *x.Spec.ClaimNames
	crd := x.newCRD(names.Plural+"."+x.Spec.Group, names, CategoryClaim, apiextensionsv1.NamespaceScoped)
	for i, v := range x.Spec.Versions {
		ver, err := x.version(i, v, major)
		if err != nil {
			return nil, err
		}
		ver.AdditionalPrinterColumns = append(ver.AdditionalPrinterColumns, claimColumns()...)
		root := ver.Schema.OpenAPIV3Schema
		setAll(root, "spec", claimSpecProps(major, x.deleteDefault()))
		setAll(root, "status", statusProps(major, ScopeLegacyCluster))
		crd.Spec.Versions = append(crd.Spec.Versions, ver)
	}
	return finish(crd), nil
}

// xrd is the part of an XRD the derivation reads.
type xrd struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name   string            `json:"name"`
		UID    types.UID         `json:"uid"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Group                          string                                         `json:"group"`
		Names                          apiextensionsv1.CustomResourceDefinitionNames  `json:"names"`
		ClaimNames                     *apiextensionsv1.CustomResourceDefinitionNames `json:"claimNames"`
		Scope                          *string                                        `json:"scope"`
		DefaultCompositionUpdatePolicy *string                                        `json:"defaultCompositionUpdatePolicy"`
		DefaultCompositeDeletePolicy   *string                                        `json:"defaultCompositeDeletePolicy"`
		Conversion                     *apiextensionsv1.CustomResourceConversion      `json:"conversion"`
		Metadata                       *struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Versions []xrdVersion `json:"versions"`
	} `json:"spec"`
}

type xrdVersion struct {
	Name                     string                                           `json:"name"`
	Served                   bool                                             `json:"served"`
	Referenceable            bool                                             `json:"referenceable"`
	Deprecated               *bool                                            `json:"deprecated"`
	DeprecationWarning       *string                                          `json:"deprecationWarning"`
	AdditionalPrinterColumns []apiextensionsv1.CustomResourceColumnDefinition `json:"additionalPrinterColumns"`
	Schema                   *struct {
		OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
	} `json:"schema"`
	Subresources *struct {
		Scale *apiextensionsv1.CustomResourceSubresourceScale `json:"scale"`
	} `json:"subresources"`
}

const (
	apiV1 = "apiextensions.crossplane.io/v1"
	apiV2 = "apiextensions.crossplane.io/v2"
)

func decode(obj map[string]any, major int) (*xrd, error) {
	if obj == nil {
		return nil, errors.New("no XRD")
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("reading the XRD: %w", err)
	}
	var x xrd
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, fmt.Errorf("reading the XRD: %w", err)
	}
	switch x.APIVersion {
	case apiV1:
	case apiV2:
		if major == 1 {
			return nil, errors.New("apiextensions.crossplane.io/v2 XRDs need Crossplane v2")
		}
	default:
		return nil, fmt.Errorf("apiVersion %q is not an XRD's (want %s or %s)", x.APIVersion, apiV1, apiV2)
	}
	if x.Kind != "" && x.Kind != "CompositeResourceDefinition" {
		return nil, fmt.Errorf("kind %q is not CompositeResourceDefinition", x.Kind)
	}
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"spec.group", x.Spec.Group},
		{"spec.names.kind", x.Spec.Names.Kind},
		{"spec.names.plural", x.Spec.Names.Plural},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the XRD has no %s", strings.Join(missing, ", "))
	}
	if len(x.Spec.Versions) == 0 {
		return nil, errors.New("the XRD has no spec.versions")
	}
	if major == 2 && x.Spec.Scope != nil {
		switch *x.Spec.Scope {
		case ScopeNamespaced, ScopeCluster, ScopeLegacyCluster:
		default:
			return nil, fmt.Errorf("spec.scope %q is not Namespaced, Cluster or LegacyCluster", *x.Spec.Scope)
		}
	}
	if p := x.Spec.DefaultCompositionUpdatePolicy; p != nil && *p != "Automatic" && *p != "Manual" {
		return nil, fmt.Errorf("spec.defaultCompositionUpdatePolicy %q is not Automatic or Manual", *p)
	}
	if p := x.Spec.DefaultCompositeDeletePolicy; p != nil && *p != "Background" && *p != "Foreground" {
		return nil, fmt.Errorf("spec.defaultCompositeDeletePolicy %q is not Background or Foreground", *p)
	}
	return &x, nil
}

// scope is the XRD's spec.scope as the API server defaults it; Crossplane
// v1 has no scope, its XRs are all legacy cluster scoped ones.
func (x *xrd) scope(major int) string {
	if major == 1 {
		return ScopeLegacyCluster
	}
	if x.Spec.Scope != nil {
		return *x.Spec.Scope
	}
	if x.APIVersion == apiV2 {
		return ScopeNamespaced
	}
	return ScopeLegacyCluster
}

// updateDefault is spec.defaultCompositionUpdatePolicy as the API server
// defaults it, for every XRD version.
func (x *xrd) updateDefault() string {
	if p := x.Spec.DefaultCompositionUpdatePolicy; p != nil {
		return *p
	}
	return "Automatic"
}

// deleteDefault is spec.defaultCompositeDeletePolicy as the API server
// defaults it: Background for /v1 XRDs, none for /v2.
func (x *xrd) deleteDefault() string {
	if p := x.Spec.DefaultCompositeDeletePolicy; p != nil {
		return *p
	}
	if x.APIVersion == apiV1 {
		return "Background"
	}
	return ""
}

func (x *xrd) checkClaimNames(major int) error {
	c := x.Spec.ClaimNames
	if c == nil {
		return errors.New("the XRD offers no claim (no spec.claimNames)")
	}
	if s := x.scope(major); s != ScopeLegacyCluster {
		return fmt.Errorf("the XRD offers no claim: only LegacyCluster composite resources can be claimed, its scope is %s", s)
	}
	if c.Kind == "" || c.Plural == "" {
		return errors.New("the XRD's spec.claimNames needs kind and plural")
	}
	n := x.Spec.Names
	for _, p := range [][2]string{{c.Kind, n.Kind}, {c.Plural, n.Plural}, {c.Singular, n.Singular}, {c.ListKind, n.ListKind}} {
		if p[0] != "" && p[0] == p[1] {
			return fmt.Errorf("claim name %q conflicts with the composite resource's name", p[0])
		}
	}
	return nil
}

func (x *xrd) newCRD(name string, names apiextensionsv1.CustomResourceDefinitionNames, category string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	names.Categories = append(append([]string(nil), names.Categories...), category)
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:      x.Spec.Group,
			Names:      names,
			Scope:      scope,
			Conversion: x.Spec.Conversion,
		},
	}
	labels := map[string]string{}
	for k, v := range x.Metadata.Labels {
		labels[k] = v
	}
	if m := x.Spec.Metadata; m != nil {
		for k, v := range m.Labels {
			labels[k] = v
		}
		if len(m.Annotations) > 0 {
			crd.Annotations = m.Annotations
		}
	}
	if len(labels) > 0 {
		crd.Labels = labels
	}
	if x.Metadata.UID != "" {
		crd.OwnerReferences = []metav1.OwnerReference{{
			APIVersion:         apiV1,
			Kind:               "CompositeResourceDefinition",
			Name:               x.Metadata.Name,
			UID:                x.Metadata.UID,
			Controller:         ptr(true),
			BlockOwnerDeletion: ptr(true),
		}}
	}
	return crd
}

// maxNameLength: XR and claim names are used as label values.
const maxNameLength = 63

// version derives one CRD version with Crossplane's root schema and the
// parts of the XRD's schema Crossplane keeps; the caller adds Crossplane's
// spec and status fields.
func (x *xrd) version(i int, v xrdVersion, major int) (apiextensionsv1.CustomResourceDefinitionVersion, error) {
	where := fmt.Sprintf("spec.versions[%d]", i)
	if v.Name == "" {
		return apiextensionsv1.CustomResourceDefinitionVersion{}, fmt.Errorf("%s has no name", where)
	}
	where += " (" + v.Name + ")"
	if v.Schema == nil || len(v.Schema.OpenAPIV3Schema) == 0 || string(v.Schema.OpenAPIV3Schema) == "null" {
		return apiextensionsv1.CustomResourceDefinitionVersion{}, fmt.Errorf("%s has no schema.openAPIV3Schema", where)
	}
	var user apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(v.Schema.OpenAPIV3Schema, &user); err != nil {
		return apiextensionsv1.CustomResourceDefinitionVersion{}, fmt.Errorf("%s schema.openAPIV3Schema: %w", where, err)
	}

	nameLen := int64(maxNameLength)
	if l := user.Properties["metadata"].Properties["name"].MaxLength; l != nil && *l < nameLen {
		nameLen = *l
	}
	root := &apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Required:    []string{"spec"},
		Description: user.Description,
		Properties: props{
			"apiVersion": strType(),
			"kind":       strType(),
			"metadata":   object(nil, props{"name": {Type: "string", MaxLength: &nameLen}}),
		},
	}
	if major >= 2 {
		root.XValidations = user.XValidations
	}

	us := user.Properties["spec"]
	spec := object(us.Required, copyProps(us.Properties))
	spec.Description = us.Description
	spec.OneOf = us.OneOf
	spec.XValidations = us.XValidations
	spec.XPreserveUnknownFields = us.XPreserveUnknownFields
	root.Properties["spec"] = spec

	ust := user.Properties["status"]
	status := object(ust.Required, copyProps(ust.Properties))
	status.Description = ust.Description
	status.OneOf = ust.OneOf
	status.XValidations = ust.XValidations
	root.Properties["status"] = status

	ver := apiextensionsv1.CustomResourceDefinitionVersion{
		Name:                     v.Name,
		Served:                   v.Served,
		Storage:                  v.Referenceable,
		Deprecated:               v.Deprecated != nil && *v.Deprecated,
		DeprecationWarning:       v.DeprecationWarning,
		AdditionalPrinterColumns: append([]apiextensionsv1.CustomResourceColumnDefinition(nil), v.AdditionalPrinterColumns...),
		Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: root},
		Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
	}
	if major >= 2 && v.Subresources != nil && v.Subresources.Scale != nil {
		ver.Subresources.Scale = v.Subresources.Scale
	}
	return ver, nil
}

func copyProps(in props) props {
	out := props{}
	for k, v := range in {
		out[k] = v
	}
	return out
}

// setAll puts Crossplane's properties into root.properties[field],
// replacing the XRD's of the same name.
func setAll(root *apiextensionsv1.JSONSchemaProps, field string, add props) {
	p := root.Properties[field]
	for k, v := range add {
		p.Properties[k] = v
	}
	root.Properties[field] = p
}

// finish applies the defaults the API server gives a new CRD (listKind,
// singular, conversion strategy, webhook port) without inventing a status.
func finish(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	return crd
}

func jsonString(s string) apiextensionsv1.JSON {
	raw, _ := json.Marshal(s)
	return apiextensionsv1.JSON{Raw: raw}
}
