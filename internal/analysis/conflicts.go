// This file reports, on a CRD or XRD, the other definitions of its kind in the
// workspace or packages that serve a version differently, and which one wins.

package analysis

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// conflictingDefinitions reports, on a CRD or XRD document, the other
// workspace or package definitions of the same kind whose schema differs.
// Each document of that kind is validated against the definition nearest
// to it, which is how a repository keeps two versions of a configuration
// apart: an information. It is a warning when the choice is not the
// folders': two definitions in one folder (the first file by name wins),
// or a package's (which wins everywhere). Identical copies are not
// reported.
func conflictingDefinitions(d *document.Doc, m map[string]any, env Env) []Diagnostic {
	if env.Workspace.Schemas == nil {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	group, _ := spec["group"].(string)
	kind, _ := names["kind"].(string)
	md, _ := m["metadata"].(map[string]any)
	crdName, _ := md["name"].(string)
	if group == "" || kind == "" {
		return nil
	}
	self := document.FilePath(d.File.URI)
	others := map[string][]string{} // "path (name)" → versions
	sev := severity.Info            // the nearest definition applies: folders decide
	var why []string
	cluster := map[string][]string{} // cluster name → versions it serves differently
	indexed := false                 // a version of this document is in the store
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		version, _ := vm["name"].(string)
		if version == "" {
			continue
		}
		cands := env.Workspace.Schemas.Candidates(schemas.GVK{Group: group, Version: version, Kind: kind})
		var mine *schemas.Schema
		for _, c := range cands {
			if c.Path == self && c.CRDName == crdName {
				mine = c
			}
		}
		if mine == nil {
			continue // not indexed (outside the workspace): nothing to compare
		}
		indexed = true
		for _, c := range cands {
			if c.Source.Kind == schemas.SourceCluster && !sameVersionSchema(mine, c, version) {
				cluster[c.Source.Name] = append(cluster[c.Source.Name], version)
			}
			if c == mine || c.Source.Kind == schemas.SourceBuiltin || c.Source.Kind == schemas.SourceCatalog || c.Source.Kind == schemas.SourceCluster || (c.Path == self && c.CRDName == crdName) {
				continue
			}
			if sameVersionSchema(mine, c, version) {
				continue
			}
			where := relName(c.Path, d.File.URI)
			switch {
			case c.Source.Kind == schemas.SourcePackage:
				where = "package " + c.Source.Name
				sev = severity.Warning
				why = appendOnce(why, "a package's definition wins over the workspace's everywhere")
			case filepath.Dir(c.Path) == filepath.Dir(self):
				sev = severity.Warning
				why = appendOnce(why, "in one folder, the file first by name wins")
			}
			key := fmt.Sprintf("%s (%s)", where, c.CRDName)
			others[key] = append(others[key], version)
		}
	}
	// Versions of the kind only a cluster serves: documents of those
	// versions are validated against the cluster's schema, not this one.
	var mineVersions []string
	defined := map[string]bool{}
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if name, _ := vm["name"].(string); name != "" {
			defined[name] = true
			mineVersions = append(mineVersions, name)
		}
	}
	clusterOnly := map[string][]string{} // cluster name → versions this definition lacks
	if indexed {
		for _, k := range env.Workspace.Schemas.Kinds() {
			if k.GVK.Group == group && k.GVK.Kind == kind && k.Source.Kind == schemas.SourceCluster && !defined[k.GVK.Version] {
				clusterOnly[k.Source.Name] = append(clusterOnly[k.Source.Name], k.GVK.Version)
			}
		}
	}
	var out []Diagnostic
	clusters := make([]string, 0, len(cluster)+len(clusterOnly))
	for n := range cluster {
		clusters = append(clusters, n)
	}
	for n := range clusterOnly {
		if _, ok := cluster[n]; !ok {
			clusters = append(clusters, n)
		}
	}
	sort.Strings(clusters)
	for _, n := range clusters {
		var parts []string
		if vs := cluster[n]; len(vs) > 0 {
			parts = append(parts, fmt.Sprintf("serves %s of %s (version %s) with a different schema than this definition, which is used in the workspace instead", kind, group, strings.Join(vs, ", ")))
		}
		if vs := clusterOnly[n]; len(vs) > 0 {
			verb := "serves"
			if len(parts) > 0 {
				verb = "also serves"
			}
			parts = append(parts, fmt.Sprintf("%s %s of %s in version %s, which this definition (version %s) does not define: documents of that version are validated against the cluster's schema", verb, kind, group, strings.Join(vs, ", "), strings.Join(mineVersions, ", ")))
		}
		msg := "the cluster " + n + " " + strings.Join(parts, "; it ")
		out = append(out, diagnosticAt(d, fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("names"), fieldpath.Field("kind")}, false, severity.Info, "cluster-differs", msg))
	}
	if len(others) == 0 {
		return out
	}
	var list []string
	for k, vs := range others {
		list = append(list, fmt.Sprintf("%s, version %s", k, strings.Join(vs, ", ")))
	}
	sort.Strings(list)
	rule := "each document of this kind is validated against the definition nearest to it in the folder tree"
	if len(why) > 0 {
		rule += " (" + strings.Join(why, "; ") + ")"
	}
	msg := fmt.Sprintf("kind %s of %s is also defined, differently, by %s: %s", kind, group, strings.Join(list, "; "), rule)
	return append(out, diagnosticAt(d, fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("names"), fieldpath.Field("kind")}, false, sev, "conflicting-definition", msg))
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// sameVersionSchema reports whether a and b serve version alike: the same
// scope and the same schema.
func sameVersionSchema(a, b *schemas.Schema, version string) bool {
	if a.Scope != b.Scope {
		return false
	}
	ca, errA := a.CRD()
	cb, errB := b.CRD()
	if errA != nil || errB != nil {
		return errA != nil && errB != nil // both unusable: nothing to tell apart
	}
	return apiequality.Semantic.DeepEqual(versionSchema(ca.Spec.Versions, version), versionSchema(cb.Spec.Versions, version))
}

// versionSchema is the schema a CRD serves version with (nil if none).
func versionSchema(vs []apiextensionsv1.CustomResourceDefinitionVersion, version string) *apiextensionsv1.CustomResourceValidation {
	for _, v := range vs {
		if v.Name == version {
			return v.Schema
		}
	}
	return nil
}
