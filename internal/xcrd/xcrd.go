// Package xcrd derives the CRDs of the composite resource (XR) and claim
// that a Crossplane CompositeResourceDefinition (XRD) defines, with the
// fields Crossplane itself adds, so that XRs, claims and patches that use
// those fields validate as they would in a cluster.
//
// It follows the behaviour of Crossplane v2's internal/xcrd package (read
// from its crd.go and schemas.go; nothing copied): v1 XRDs, and v2 XRDs with
// scope LegacyCluster, get the legacy shape (compositionRef,
// compositionSelector, claimRef, writeConnectionSecretToRef, resourceRefs …
// at the top of spec; status.connectionDetails and claimConditionTypes);
// v2 XRDs with scope Namespaced (the default) or Cluster get those under
// spec.crossplane and status.crossplane, and offer no claims. Legacy XRs
// also accept Crossplane v1.20's publishConnectionDetailsTo and
// environmentConfigRefs, so v1-era files do not get false errors.
//
// Invariants: pure functions of the XRD; bad input is an error, never a panic.
package xcrd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// xrd is the part of an XRD the derivation reads.
type xrd struct {
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group                          string                                         `json:"group"`
		Names                          apiextensionsv1.CustomResourceDefinitionNames  `json:"names"`
		ClaimNames                     *apiextensionsv1.CustomResourceDefinitionNames `json:"claimNames,omitempty"`
		Scope                          string                                         `json:"scope,omitempty"`
		DefaultCompositionUpdatePolicy string                                         `json:"defaultCompositionUpdatePolicy,omitempty"`
		DefaultCompositeDeletePolicy   string                                         `json:"defaultCompositeDeletePolicy,omitempty"`
		Versions                       []struct {
			Name                     string                                           `json:"name"`
			Served                   bool                                             `json:"served"`
			Referenceable            bool                                             `json:"referenceable"`
			Deprecated               bool                                             `json:"deprecated,omitempty"`
			DeprecationWarning       *string                                          `json:"deprecationWarning,omitempty"`
			AdditionalPrinterColumns []apiextensionsv1.CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
			Schema                   *struct {
				OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema,omitempty"`
			} `json:"schema,omitempty"`
		} `json:"versions"`
	} `json:"spec"`
}

func decode(obj map[string]any) (*xrd, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var x xrd
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, fmt.Errorf("reading the XRD: %w", err)
	}
	if x.Spec.Group == "" || x.Spec.Names.Kind == "" || x.Spec.Names.Plural == "" {
		return nil, errors.New("the XRD needs spec.group, spec.names.kind and spec.names.plural")
	}
	if len(x.Spec.Versions) == 0 {
		return nil, errors.New("the XRD has no spec.versions")
	}
	return &x, nil
}

// legacy reports whether the XR has Crossplane v1's shape.
func (x *xrd) legacy() bool {
	return !strings.HasSuffix(x.APIVersion, "/v2") || x.Spec.Scope == "LegacyCluster"
}

func (x *xrd) scope() apiextensionsv1.ResourceScope {
	if strings.HasSuffix(x.APIVersion, "/v2") && (x.Spec.Scope == "" || x.Spec.Scope == "Namespaced") {
		return apiextensionsv1.NamespaceScoped
	}
	return apiextensionsv1.ClusterScoped
}

// ForCompositeResource derives the CRD of the composite resource (XR) an
// XRD defines, exactly as Crossplane does.
func ForCompositeResource(obj map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	x, err := decode(obj)
	if err != nil {
		return nil, err
	}
	names := x.Spec.Names
	names.Categories = appendUnique(names.Categories, "composite")
	var spec, status map[string]apiextensionsv1.JSONSchemaProps
	if x.legacy() {
		spec, status = mustProps(legacyXRSpec), mustProps(legacyStatus)
		setDefault(spec, "compositionUpdatePolicy", x.Spec.DefaultCompositionUpdatePolicy)
	} else {
		inner := mustProps(modernXRCrossplane)
		if x.scope() == apiextensionsv1.NamespaceScoped {
			inner["resourceRefs"] = mustProp(namespacedResourceRefs)
		}
		setDefault(inner, "compositionUpdatePolicy", x.Spec.DefaultCompositionUpdatePolicy)
		spec = map[string]apiextensionsv1.JSONSchemaProps{"crossplane": {Type: "object", Description: "Configures how Crossplane will reconcile this composite resource", Properties: inner}}
		status = mustProps(modernStatus)
	}
	return build(x, names, x.scope(), spec, status)
}

// ForCompositeResourceClaim derives the claim CRD of an XRD that offers
// one (a legacy XRD with spec.claimNames).
func ForCompositeResourceClaim(obj map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	x, err := decode(obj)
	if err != nil {
		return nil, err
	}
	if x.Spec.ClaimNames == nil || !x.legacy() {
		return nil, errors.New("the XRD offers no claim")
	}
	names := *x.Spec.ClaimNames
	names.Categories = appendUnique(names.Categories, "claim")
	spec := mustProps(claimSpec)
	setDefault(spec, "compositeDeletePolicy", x.Spec.DefaultCompositeDeletePolicy)
	return build(x, names, apiextensionsv1.NamespaceScoped, spec, mustProps(legacyStatus))
}

func build(x *xrd, names apiextensionsv1.CustomResourceDefinitionNames, scope apiextensionsv1.ResourceScope, spec, status map[string]apiextensionsv1.JSONSchemaProps) (*apiextensionsv1.CustomResourceDefinition, error) {
	if names.ListKind == "" {
		names.ListKind = names.Kind + "List"
	}
	if names.Singular == "" {
		names.Singular = strings.ToLower(names.Kind)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: names.Plural + "." + x.Spec.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: x.Spec.Group,
			Names: names,
			Scope: scope,
		},
	}
	storage := false
	for i, v := range x.Spec.Versions {
		if v.Name == "" {
			return nil, fmt.Errorf("spec.versions[%d] has no name", i)
		}
		user := apiextensionsv1.JSONSchemaProps{}
		if v.Schema != nil && len(v.Schema.OpenAPIV3Schema) > 0 && string(v.Schema.OpenAPIV3Schema) != "null" {
			if err := json.Unmarshal(v.Schema.OpenAPIV3Schema, &user); err != nil {
				return nil, fmt.Errorf("spec.versions[%d].schema.openAPIV3Schema: %w", i, err)
			}
		}
		root := base()
		root.Description = user.Description
		root.XValidations = user.XValidations
		s := root.Properties["spec"]
		st := root.Properties["status"]
		if us, ok := user.Properties["spec"]; ok {
			s = merge(us, spec)
		} else {
			s.Properties = spec
		}
		if us, ok := user.Properties["status"]; ok {
			st = merge(us, status)
		} else {
			st.Properties = status
		}
		root.Properties["spec"], root.Properties["status"] = s, st
		for k, p := range user.Properties {
			if k != "spec" && k != "status" && k != "metadata" && k != "apiVersion" && k != "kind" {
				root.Properties[k] = p
			}
		}
		ver := apiextensionsv1.CustomResourceDefinitionVersion{
			Name:                     v.Name,
			Served:                   v.Served,
			Storage:                  v.Referenceable,
			Deprecated:               v.Deprecated,
			DeprecationWarning:       v.DeprecationWarning,
			AdditionalPrinterColumns: v.AdditionalPrinterColumns,
			Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: root},
			Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
		}
		storage = storage || v.Referenceable
		crd.Spec.Versions = append(crd.Spec.Versions, ver)
	}
	if !storage {
		crd.Spec.Versions[0].Storage = true
	}
	return crd, nil
}

// merge adds Crossplane's properties to the user's object schema; the
// user's own properties of the same name win, as in Crossplane.
func merge(user apiextensionsv1.JSONSchemaProps, add map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	if user.Properties == nil {
		user.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
	}
	if user.Type == "" {
		user.Type = "object"
	}
	for k, v := range add {
		if _, ok := user.Properties[k]; !ok {
			user.Properties[k] = v
		}
	}
	return user
}

func base() *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"spec"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"kind":       {Type: "string"},
			"metadata":   {Type: "object"},
			"spec":       {Type: "object"},
			"status":     {Type: "object"},
		},
	}
}

func appendUnique(xs []string, x string) []string {
	for _, v := range xs {
		if v == x {
			return xs
		}
	}
	return append(xs, x)
}

func mustProps(js string) map[string]apiextensionsv1.JSONSchemaProps {
	var out map[string]apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		panic("xcrd: bad built-in schema: " + err.Error())
	}
	return out
}

// setDefault gives props[name] the default the XRD asks for, if any.
func setDefault(props map[string]apiextensionsv1.JSONSchemaProps, name, value string) {
	if value == "" {
		return
	}
	p := props[name]
	raw, _ := json.Marshal(value)
	p.Default = &apiextensionsv1.JSON{Raw: raw}
	props[name] = p
}

func mustProp(js string) apiextensionsv1.JSONSchemaProps {
	var out apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		panic("xcrd: bad built-in schema: " + err.Error())
	}
	return out
}
