// This file reads project files (crossplane-project.yaml, upbound.yaml) as
// package roots.

package packages

import (
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/registry"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Project files: besides crossplane.yaml, two project formats name a
// package's dependencies, and crd-lsp reads both as package roots:
//
//   - crossplane-project.yaml, the Crossplane CLI's project
//     (crossplane/cli, apis/dev/v1alpha1: apiVersion
//     dev.crossplane.io/v1alpha1, kind Project): spec.dependencies lists
//     {type: xpkg, xpkg: {apiVersion, kind, package, version}} entries
//     (other types, k8s, crd, git and http, carry no package and are
//     skipped); spec.crossplane.version as in crossplane.yaml.
//   - upbound.yaml, up's project (apiVersion meta.dev.upbound.io/v1alpha1
//     or v2alpha1, kind Project): spec.dependsOn in crossplane.yaml's
//     forms.

// Groups of the project files' apiVersions.
const (
	CrossplaneProjectGroup = "dev.crossplane.io"
	UpboundProjectGroup    = "meta.dev.upbound.io"
)

// MetaFileNames are the files read as package roots, in the order they
// are preferred when one folder holds several.
var MetaFileNames = []string{"crossplane.yaml", "crossplane-project.yaml", "upbound.yaml"}

// IsMetaFile reports whether path names a package root file.
func IsMetaFile(path string) bool {
	base := filepath.Base(path)
	for _, n := range MetaFileNames {
		if base == n {
			return true
		}
	}
	return false
}

// projectGroup is the apiVersion group a project file must use ("" for
// crossplane.yaml).
func projectGroup(path string) string {
	switch filepath.Base(path) {
	case "crossplane-project.yaml":
		return CrossplaneProjectGroup
	case "upbound.yaml":
		return UpboundProjectGroup
	}
	return ""
}

// DependsOnField is where the package root file at path lists its
// dependencies, as a sentence fragment: "dependsOn in crossplane.yaml",
// "spec.dependencies in crossplane-project.yaml".
func DependsOnField(path string) string {
	if projectGroup(path) == CrossplaneProjectGroup {
		return "spec.dependencies in " + filepath.Base(path)
	}
	if path == "" {
		return "dependsOn in crossplane.yaml"
	}
	return "dependsOn in " + filepath.Base(path)
}

// parseProject reads a project file's Project document.
func (m *Meta) parseProject(root *yaml.Node, data []byte, group string) {
	m.project = true
	av := mapGet(root, "apiVersion")
	m.APIVersion = av.Value
	if k := mapGet(root, "kind"); k != nil {
		m.Kind = k.Value
		if k.Value != "Project" {
			m.problem(m.span(k, data), severity.Error, "unknown project kind "+strconv.Quote(k.Value)+"; want Project")
		}
	}
	if md := mapGet(root, "metadata"); md != nil {
		if n := mapGet(md, "name"); n != nil {
			m.Name = n.Value
		}
	}
	m.FunctionsPath = "functions"
	spec := mapGet(root, "spec")
	if spec == nil {
		return
	}
	if cp := mapGet(spec, "crossplane"); cp != nil {
		if v := mapGet(cp, "version"); v != nil {
			m.Crossplane = v.Value
		}
	}
	if r := mapGet(spec, "repository"); r != nil && r.Kind == yaml.ScalarNode {
		m.Repository = strings.TrimSpace(r.Value)
	}
	if ps := mapGet(spec, "paths"); ps != nil {
		if f := mapGet(ps, "functions"); f != nil && f.Kind == yaml.ScalarNode && f.Value != "" {
			m.FunctionsPath = f.Value
		}
	}
	if fns := mapGet(spec, "functions"); fns != nil && fns.Kind == yaml.SequenceNode {
		for _, f := range fns.Content {
			for _, src := range []string{"directory", "tarball"} {
				if n := mapGet(mapGet(f, src), "name"); n != nil && n.Value != "" {
					m.Functions = append(m.Functions, n.Value)
				}
			}
		}
	}
	if group == UpboundProjectGroup {
		if deps := mapGet(spec, "dependsOn"); deps != nil && deps.Kind == yaml.SequenceNode {
			for _, e := range deps.Content {
				m.parseDep(e, data)
			}
		}
		return
	}
	deps := mapGet(spec, "dependencies")
	if deps == nil || deps.Kind != yaml.SequenceNode {
		return
	}
	for _, e := range deps.Content {
		if e.Kind != yaml.MappingNode {
			m.problem(m.span(e, data), severity.Error, "a spec.dependencies entry must be a mapping")
			continue
		}
		t := mapGet(e, "type")
		x := mapGet(e, "xpkg")
		switch {
		case t != nil && t.Value != "xpkg":
			continue // k8s, crd, git, http: no package to pull
		case x == nil:
			m.problem(m.span(e, data), severity.Error, "a dependency of type xpkg needs xpkg: {apiVersion, kind, package, version}")
			continue
		}
		m.parseDep(x, data)
	}
}

// isProjectDoc reports whether a document's apiVersion is the project
// format of the file at path.
func isProjectDoc(path string, av *yaml.Node) (string, bool) {
	g := projectGroup(path)
	return g, g != "" && av != nil && strings.HasPrefix(av.Value, g+"/")
}

// EmbeddedFunctionRef is the functionRef name a project's Compositions use
// for a function the project embeds: as the Crossplane CLI (and up) name
// it, the DNS label (crossplane-runtime's ToDNSLabel) of the repository
// path (no registry host) with "_" and the function's name appended.
func EmbeddedFunctionRef(repository, fn string) string {
	path := repository
	if ref, err := registry.ParseReference(repository); err == nil {
		path = ref.Repository
	}
	return dnsLabel(path + "_" + fn)
}
