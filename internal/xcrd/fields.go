// This file holds the fields Crossplane adds to the XR and claim CRDs it
// derives from an XRD.

package xcrd

// The schema fragments and printer columns Crossplane adds to the CRDs it
// derives. Every function returns fresh values, so callers may modify them.

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

type props = map[string]apiextensionsv1.JSONSchemaProps

func strType() apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "string"}
}

func object(required []string, p props) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "object", Required: required, Properties: p}
}

// stringsObject builds an object whose properties are all strings.
func stringsObject(required []string, names ...string) apiextensionsv1.JSONSchemaProps {
	p := props{}
	for _, n := range names {
		p[n] = strType()
	}
	return object(required, p)
}

func stringMap() apiextensionsv1.JSONSchemaProps {
	s := strType()
	return apiextensionsv1.JSONSchemaProps{
		Type:                 "object",
		AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &s},
	}
}

func enum(def string, values ...string) apiextensionsv1.JSONSchemaProps {
	p := strType()
	for _, v := range values {
		p.Enum = append(p.Enum, jsonString(v))
	}
	if def != "" {
		d := jsonString(def)
		p.Default = &d
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// compositionProps are the fields by which an XR or claim chooses its
// Composition, common to every shape and version.
func compositionProps(updateDefault string) props {
	return props{
		"compositionRef":              stringsObject([]string{"name"}, "name"),
		"compositionSelector":         object([]string{"matchLabels"}, props{"matchLabels": stringMap()}),
		"compositionRevisionRef":      stringsObject([]string{"name"}, "name"),
		"compositionRevisionSelector": object([]string{"matchLabels"}, props{"matchLabels": stringMap()}),
		"compositionUpdatePolicy":     enum(updateDefault, "Automatic", "Manual"),
	}
}

// resourceRefs lists the composed resources; Crossplane v1 and namespaced
// XRs have no namespace in the reference.
func resourceRefs(withNamespace bool) apiextensionsv1.JSONSchemaProps {
	fields := []string{"apiVersion", "name", "kind"}
	if withNamespace {
		fields = append(fields, "namespace")
	}
	item := stringsObject([]string{"apiVersion", "kind"}, fields...)
	return apiextensionsv1.JSONSchemaProps{
		Type:      "array",
		Items:     &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item},
		XListType: ptr("atomic"),
	}
}

// publishConnectionDetailsTo exists in Crossplane v1 only (removed in v2).
func publishConnectionDetailsTo() apiextensionsv1.JSONSchemaProps {
	configRef := stringsObject(nil, "name")
	configRef.Default = &apiextensionsv1.JSON{Raw: []byte(`{"name": "default"}`)}
	return object([]string{"name"}, props{
		"name":      strType(),
		"configRef": configRef,
		"metadata": object(nil, props{
			"labels":      stringMap(),
			"annotations": stringMap(),
			"type":        strType(),
		}),
	})
}

// xrSpecProps are the spec fields Crossplane adds to an XR.
func xrSpecProps(major int, scope, updateDefault string) props {
	p := compositionProps(updateDefault)
	if major == 1 {
		p["resourceRefs"] = resourceRefs(false)
		p["claimRef"] = stringsObject([]string{"apiVersion", "kind", "namespace", "name"}, "apiVersion", "kind", "namespace", "name")
		p["publishConnectionDetailsTo"] = publishConnectionDetailsTo()
		p["writeConnectionSecretToRef"] = stringsObject([]string{"name", "namespace"}, "name", "namespace")
		return p
	}
	p["resourceRefs"] = resourceRefs(scope != ScopeNamespaced)
	if scope == ScopeLegacyCluster {
		p["claimRef"] = stringsObject([]string{"apiVersion", "kind", "namespace", "name"}, "apiVersion", "kind", "namespace", "name")
		p["writeConnectionSecretToRef"] = stringsObject([]string{"name", "namespace"}, "name", "namespace")
		return p
	}
	c := object(nil, p)
	c.Description = "Configures how Crossplane will reconcile this composite resource"
	return props{"crossplane": c}
}

// claimSpecProps are the spec fields Crossplane adds to a claim.
func claimSpecProps(major int, deleteDefault string) props {
	p := compositionProps("")
	p["compositeDeletePolicy"] = enum(deleteDefault, "Background", "Foreground")
	p["resourceRef"] = stringsObject([]string{"apiVersion", "kind", "name"}, "apiVersion", "kind", "name")
	p["writeConnectionSecretToRef"] = stringsObject([]string{"name"}, "name")
	if major == 1 {
		p["publishConnectionDetailsTo"] = publishConnectionDetailsTo()
	}
	return p
}

// statusProps are the status fields Crossplane adds; claims get the legacy
// XR's (claimConditionTypes included, as in Crossplane).
func statusProps(major int, scope string) props {
	cond := props{
		"lastTransitionTime": {Type: "string", Format: "date-time"},
		"message":            strType(),
		"reason":             strType(),
		"status":             strType(),
		"type":               strType(),
	}
	if major >= 2 {
		cond["observedGeneration"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	}
	item := object([]string{"lastTransitionTime", "reason", "status", "type"}, cond)
	p := props{
		"conditions": {
			Description:  "Conditions of the resource.",
			Type:         "array",
			XListType:    ptr("map"),
			XListMapKeys: []string{"type"},
			Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item},
		},
	}
	if major == 1 || scope == ScopeLegacyCluster {
		p["connectionDetails"] = object(nil, props{"lastPublishedTime": {Type: "string", Format: "date-time"}})
		s := strType()
		p["claimConditionTypes"] = apiextensionsv1.JSONSchemaProps{
			Type:      "array",
			XListType: ptr("set"),
			Items:     &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &s},
		}
	}
	return p
}

func column(name, typ, path string, priority int32) apiextensionsv1.CustomResourceColumnDefinition {
	return apiextensionsv1.CustomResourceColumnDefinition{Name: name, Type: typ, JSONPath: path, Priority: priority}
}

// xrColumns are appended after the XRD's own printer columns.
func xrColumns(major int, scope string) []apiextensionsv1.CustomResourceColumnDefinition {
	prefix := ".spec."
	if major >= 2 && scope != ScopeLegacyCluster {
		prefix = ".spec.crossplane."
	}
	return []apiextensionsv1.CustomResourceColumnDefinition{
		column("SYNCED", "string", ".status.conditions[?(@.type=='Synced')].status", 0),
		column("READY", "string", ".status.conditions[?(@.type=='Ready')].status", 0),
		column("COMPOSITION", "string", prefix+"compositionRef.name", 0),
		column("COMPOSITIONREVISION", "string", prefix+"compositionRevisionRef.name", 1),
		column("AGE", "date", ".metadata.creationTimestamp", 0),
	}
}

func claimColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	return []apiextensionsv1.CustomResourceColumnDefinition{
		column("SYNCED", "string", ".status.conditions[?(@.type=='Synced')].status", 0),
		column("READY", "string", ".status.conditions[?(@.type=='Ready')].status", 0),
		column("CONNECTION-SECRET", "string", ".spec.writeConnectionSecretToRef.name", 0),
		column("AGE", "date", ".metadata.creationTimestamp", 0),
	}
}
