// Package workload generates the inputs of crd-lsp's speed and memory
// benchmarks (bench/run.sh, bench/side-by-side.sh): valid upjet AWS managed
// resources synthesised from their CRDs, the 300-document keystroke file
// with its edit sequence, and the first-diagnostic workspace. Output is a
// pure function of the CRDs read; nothing here is committed.
//
// It is a bench tool, not shipped, and imports no crd-lsp package: the
// benchmarks judge the crd-lsp binary from outside, as kubeconform and
// yaml-language-server are judged.
package workload

import (
	"fmt"
	"os"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Kind is one served version of a CRD, as the generator uses it.
type Kind struct {
	File       string // the CRD file it came from
	Group      string
	Version    string // the storage version (the newest served one if none)
	Kind       string
	Namespaced bool
	Schema     *apiextv1.JSONSchemaProps
}

// APIVersion is group/version.
func (k Kind) APIVersion() string { return k.Group + "/" + k.Version }

// ReadCRD reads a file holding one CRD.
func ReadCRD(path string) (*apiextv1.CustomResourceDefinition, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCRD(b)
}

// ParseCRD parses one CRD document (YAML or JSON).
func ParseCRD(b []byte) (*apiextv1.CustomResourceDefinition, error) {
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(b, &crd); err != nil {
		return nil, err
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Spec.Names.Kind == "" {
		return nil, fmt.Errorf("not a CustomResourceDefinition (kind %q)", crd.Kind)
	}
	return &crd, nil
}

// StorageKind returns the CRD's storage version (else its last served one)
// with its schema.
func StorageKind(file string, crd *apiextv1.CustomResourceDefinition) (Kind, error) {
	var pick *apiextv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Storage && v.Served {
			pick = v
			break
		}
		if v.Served {
			pick = v
		}
	}
	if pick == nil || pick.Schema == nil || pick.Schema.OpenAPIV3Schema == nil {
		return Kind{}, fmt.Errorf("%s: no served version with a schema", file)
	}
	return Kind{
		File:       file,
		Group:      crd.Spec.Group,
		Version:    pick.Name,
		Kind:       crd.Spec.Names.Kind,
		Namespaced: crd.Spec.Scope == apiextv1.NamespaceScoped,
		Schema:     pick.Schema.OpenAPIV3Schema,
	}, nil
}

// isProviderKind tells the provider's own configuration kinds
// (ProviderConfig, ProviderConfigUsage, ClusterProviderConfig) apart from
// managed resources.
func isProviderKind(k Kind) bool {
	return k.Group == "aws.upbound.io" || k.Group == "aws.m.upbound.io" || strings.Contains(k.Kind, "ProviderConfig")
}
