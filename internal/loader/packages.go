// This file serves package metadata: cached dependencies, the nearest
// package root file, and the problems of a crossplane.yaml.

package loader

import (
	"path/filepath"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// loadCachedPackages serves what the cache holds for the dependencies of
// every crossplane.yaml, with no network.
func (w *World) loadCachedPackages() {
	w.results = map[string][]packages.Result{}
	if w.cfg.Packages == nil {
		return
	}
	for _, p := range w.index().metas {
		m := w.files[p].meta
		if len(m.Deps) > 0 {
			w.results[p] = w.cfg.Packages.Cached(m.Deps)
		}
	}
	w.pkgs = PackageFiles(w.results)
	w.pkgEnvConfigs = packageEnvironmentConfigs(w.pkgs)
}

// PackageFiles turns resolved packages into schema store inputs (one per
// package: its package.yaml under its cache path).
func PackageFiles(results map[string][]packages.Result) []schemas.FileInput {
	var out []schemas.FileInput
	seen := map[string]bool{}
	paths := make([]string, 0, len(results))
	for p := range results {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, r := range results[p] {
			if r.Package == nil || seen[r.Package.Path] {
				continue
			}
			seen[r.Package.Path] = true
			out = append(out, schemas.FileInput{Source: schemas.Source{Kind: schemas.SourcePackage, Name: r.Package.Ref, Version: r.Package.Version}, Path: r.Package.Path, Content: r.Package.YAML})
		}
	}
	return out
}

// PackageRoot is the folder of the crossplane.yaml nearest to path (in its
// folder or above) that states the Crossplane version its package targets,
// read from disk; false when there is none.
func PackageRoot(path string) (string, bool) {
	dir := filepath.Dir(path)
	for {
		for _, name := range packages.MetaFileNames {
			p := filepath.Join(dir, name)
			if content, err := workspace.ReadFile(p, workspace.DefaultMaxFileSize); err == nil {
				if m := packages.ParseMeta(p, content); m.Crossplane != "" {
					if _, ok := workspace.ParseMajor(m.Crossplane); ok {
						return dir, true
					}
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// PackageProblems turns a crossplane.yaml's metadata problems (YAML syntax
// errors aside: the document's diagnostics have them) and its dependencies'
// failed outcomes into diagnostics: the one wording and placement the
// editor, check and pull share. notCached reports dependencies the cache
// does not hold (before the registries were asked, that is not news).
func PackageProblems(m *packages.Meta, results []packages.Result, notCached bool) []analysis.Diagnostic {
	var out []analysis.Diagnostic
	problems := append(append([]packages.Problem(nil), m.Problems...), packages.ResultProblems(m, results, notCached)...)
	for _, pr := range problems {
		if pr.Syntax {
			continue
		}
		code := "package-meta"
		if pr.Kind != "" {
			code = "package-" + string(pr.Kind)
		}
		out = append(out, analysis.Diagnostic{Span: document.Span{Start: pr.Offset, End: max(pr.End, pr.Offset)}, Severity: pr.Severity, Code: code, Message: pr.Message})
	}
	return out
}

// metaIn is the package root file of a folder the World holds (the first
// of packages.MetaFileNames present), "" when none.
func (w *World) metaIn(dir string) (string, *packages.Meta) {
	for _, name := range packages.MetaFileNames {
		p := filepath.Join(dir, name)
		if m := w.file(p).meta; m != nil {
			return p, m
		}
	}
	return "", nil
}

// NearestMeta is the package root file (crossplane.yaml,
// crossplane-project.yaml or upbound.yaml) nearest to path, in its folder
// or above; "" when there is none.
func (w *World) NearestMeta(path string) string {
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		if p, _ := w.metaIn(dir); p != "" {
			return p
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}
