// Package gvk is the one name of a Kubernetes kind at one version, and the
// one reading of an object's apiVersion.
package gvk

import "strings"

// GVK names a kind at one version.
type GVK struct{ Group, Version, Kind string }

// Parse reads an apiVersion ("group/version", or "version" for the core
// group) and a kind. It does not judge them: a version with another "/"
// stays in Version, for callers that report it.
func Parse(apiVersion, kind string) GVK {
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		group, version = "", apiVersion
	}
	return GVK{Group: group, Version: version, Kind: kind}
}

// Of is the GVK an object (decoded YAML or JSON) names.
func Of(obj map[string]any) GVK {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return Parse(av, k)
}

// APIVersion is the apiVersion field value: "group/version" or "version".
func (g GVK) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// String is "apps/v1, Kind=Deployment", as apimachinery prints a GVK.
func (g GVK) String() string { return g.APIVersion() + ", Kind=" + g.Kind }
