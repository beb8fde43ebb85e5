// This file serves package metadata: cached dependencies, the nearest
// package root file, and the problems of a crossplane.yaml.

package loader

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// packageSource is the dependencies of the workspace's crossplane.yaml
// files as a Source: their packages' schemas, ranked above the
// workspace's, and the outcome of each dependency.
type packageSource struct {
	c  *packages.Client
	ix *PackageIndex
}

func (packageSource) Name() SourceName         { return SourcePackages }
func (packageSource) Rank() schemas.SourceKind { return schemas.SourcePackage }
func (packageSource) Refresh() Refresh {
	return Refresh{On: AfterLoad | MetaChanged, Supersede: true}
}
func (s packageSource) config() string { return fmt.Sprintf("%p", s.c) }

// Announce says how many dependencies a fetch resolves.
func (packageSource) Announce(w *World) (string, string) {
	return "package dependencies", fmt.Sprintf("Resolving %d dependencies", w.Dependencies())
}

// Cached serves what the cache holds for the dependencies of every
// crossplane.yaml, with no network.
func (s packageSource) Cached(w *World) Served {
	results := map[string][]packages.Result{}
	for _, p := range w.index().metas {
		m := w.files[p].meta
		if len(m.Deps) > 0 {
			results[p] = s.c.Cached(m.Deps)
		}
	}
	return s.served(results)
}

// Fetch resolves every dependency against its registry (the network),
// the client reporting its progress.
func (s packageSource) Fetch(ctx context.Context, w *World) Fetched {
	results := map[string][]packages.Result{}
	for _, m := range w.Metas() {
		if len(m.Deps) == 0 {
			results[m.Path] = nil
			continue
		}
		results[m.Path] = s.c.Resolve(ctx, m.Deps)
	}
	if ctx.Err() != nil {
		return Fetched{Source: SourcePackages}
	}
	sv := s.served(results)
	return Fetched{Source: SourcePackages, Served: sv, apply: true, config: s.config(), Done: pullSummary(len(sv.Inputs), results)}
}

func (s packageSource) served(results map[string][]packages.Result) Served {
	in := PackageFiles(results, s.ix)
	return Served{Inputs: in, Results: results, EnvironmentConfigs: packageEnvironmentConfigs(in)}
}

// Dependencies counts the dependencies the workspace's crossplane.yaml
// files state.
func (w *World) Dependencies() int {
	n := 0
	for _, m := range w.Metas() {
		n += len(m.Deps)
	}
	return n
}

// pullSummary is the message that ends a pull: how many packages are
// ready, or that the pull failed, with the first failure and the
// crossplane.yaml that asked for it (after " — in "; VS Code's status
// item opens that file, where the failures are diagnostics).
func pullSummary(ready int, results map[string][]packages.Result) string {
	paths := make([]string, 0, len(results))
	for p := range results {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	failed, total := 0, 0
	first, firstIn := "", ""
	for _, p := range paths {
		for _, r := range results[p] {
			total++
			if r.Err == nil || packages.IsWarning(r.Err) {
				continue
			}
			failed++
			if first == "" {
				first, firstIn = r.Dep.Name+": "+r.Err.Error(), p
			}
		}
	}
	if failed == 0 {
		return fmt.Sprintf("%d packages ready, 0 problems", ready)
	}
	return fmt.Sprintf("package pull failed: %d of %d dependencies (%s); %d packages ready — in %s", failed, total, first, ready, firstIn)
}

// PackageFiles turns resolved packages into schema store inputs (one per
// package: its package.yaml under its pseudo path), in the order of the
// package root files' paths. With an index (ix, not nil), each input is
// indexed here, by the caller's goroutine (a server calls it outside its
// lock, so that requests never wait for a package to be indexed), reusing
// the index of a package version indexed before, and ix forgets the
// packages no longer depended on; without, the stores index them.
func PackageFiles(results map[string][]packages.Result, ix *PackageIndex) []schemas.FileInput {
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
			in := schemas.FileInput{Source: schemas.Source{Kind: schemas.SourcePackage, Name: r.Package.Ref, Version: r.Package.Version}, Path: r.Package.Path, Content: r.Package.YAML}
			if ix != nil {
				in.Indexed = ix.index(in, r.Package.Digest)
			}
			out = append(out, in)
		}
	}
	if ix != nil {
		ix.keepOnly(seen)
	}
	return out
}

// A PackageIndex keeps the index of each package's schemas while the same
// version (manifest digest) stays in use, across loads and registry
// refreshes (Config.PackageIndex; a long-lived front end, the server,
// keeps one). Safe for concurrent use.
type PackageIndex struct {
	// before, when set, runs before a package is indexed, with its path.
	before func(path string)

	mu     sync.Mutex
	byPath map[string]indexedPackage
}

// NewPackageIndex is an empty PackageIndex; before (nil: none) runs before
// each package is indexed.
func NewPackageIndex(before func(path string)) *PackageIndex {
	return &PackageIndex{before: before, byPath: map[string]indexedPackage{}}
}

// indexedPackage is a package's index, for the manifest digest and
// version it came from.
type indexedPackage struct {
	digest, version string
	ix              *schemas.Indexed
}

// index indexes one package file, or returns the index made for the same
// manifest before.
func (x *PackageIndex) index(f schemas.FileInput, digest string) *schemas.Indexed {
	x.mu.Lock()
	prev, ok := x.byPath[f.Path]
	x.mu.Unlock()
	if ok && prev.digest == digest && prev.version == f.Source.Version {
		return prev.ix
	}
	if x.before != nil {
		x.before(f.Path)
	}
	// The package's bytes are not copied: they are the client's, immutable.
	ix := schemas.Index(f.Source, f.Path, f.Content)
	x.mu.Lock()
	x.byPath[f.Path] = indexedPackage{digest: digest, version: f.Source.Version, ix: ix}
	x.mu.Unlock()
	return ix
}

// keepOnly forgets the indexes of the packages not in paths.
func (x *PackageIndex) keepOnly(paths map[string]bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for p := range x.byPath {
		if !paths[p] {
			delete(x.byPath, p)
		}
	}
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

// Dependencies are the dependencies of a package root file with the
// outcomes of resolving each (results: the World's for that file, or
// fresher), as analysis.DependencyHover reads them.
func Dependencies(m *packages.Meta, results []packages.Result) []analysis.Dependency {
	out := make([]analysis.Dependency, 0, len(m.Deps))
	for _, d := range m.Deps {
		dep := analysis.Dependency{Kind: d.Kind, Package: d.Package, Constraint: d.Constraint, Span: document.Span{Start: d.Span.Start, End: d.Span.End}}
		for _, r := range results {
			if r.Dep.Name != d.Name || r.Dep.Constraint != d.Constraint || len(r.Via) > 0 {
				continue
			}
			var o analysis.DependencyOutcome
			if p := r.Package; p != nil {
				o.Resolved = &analysis.ResolvedPackage{Version: p.Version, Digest: p.Digest,
					CRDs: p.Count("CustomResourceDefinition"), XRDs: p.Count("CompositeResourceDefinition"),
					MRDs: p.Count("ManagedResourceDefinition"), Compositions: p.Count("Composition"), FromCache: p.FromCache}
			}
			if r.Err != nil {
				o.Problem, o.NotCached = r.Err.Error(), packages.KindOf(r.Err) == packages.KindNotCached
			}
			dep.Outcomes = append(dep.Outcomes, o)
		}
		out = append(out, dep)
	}
	return out
}
