// This file reads Function objects: the workspace's, and the functions
// files the front ends name; and resolves a step's functionRef.

package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// FunctionSources are the files ReadFunctions reads for p: p itself, or
// the files a scan of the folder p finds.
func FunctionSources(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	files, _, err := workspace.Scan(context.Background(), p, workspace.Options{MaxFileSize: workspace.DefaultMaxFileSize}, nil)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return paths, nil
}

// ReadFunctions reads the Function objects of a file, or of every YAML
// file of a folder, as crossplane render --functions does (check's and
// render's --functions, the server's crdLsp.functionsFiles).
func ReadFunctions(p string) ([]functions.Function, error) {
	paths, err := FunctionSources(p)
	if err != nil {
		return nil, err
	}
	return ReadFunctionFiles(paths)
}

// ReadFunctionFiles reads the Function objects of the files FunctionSources
// found.
func ReadFunctionFiles(paths []string) ([]functions.Function, error) {
	var out []functions.Function
	for _, fp := range paths {
		b, err := workspace.ReadFile(fp, workspace.DefaultMaxFileSize)
		if err != nil {
			return nil, err
		}
		fns, err := functions.ParseFunctions(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fp, err)
		}
		out = append(out, fns...)
	}
	if len(out) == 0 {
		return nil, errors.New("holds no Function (pkg.crossplane.io) object")
	}
	return out, nil
}

func holdsFunction(hs []workspace.Header) bool {
	for _, h := range hs {
		if g := gvk.Parse(h.APIVersion, h.Kind); g.Kind == "Function" && g.Group == "pkg.crossplane.io" {
			return true
		}
	}
	return false
}

// Functions are the workspace's Function objects (pkg.crossplane.io), by
// file path, then in file order.
func (w *World) Functions() []functions.Function {
	var out []functions.Function
	for _, p := range w.index().functions {
		out = append(out, w.files[p].functions...)
	}
	return out
}

// PackageFunctions are the Functions crd-lsp may run from their packages
// (--functions-from-packages, crdLsp.functionsFromPackages): the
// workspace's Function objects that name a package and are not
// Development ones (by file path, then in file order), then the function
// dependencies of its package root files as Crossplane's package manager
// installs them (named xpkg.ToDNSLabel of the repository, as functionOf
// finds them), at the digest the package cache resolved them to; a
// dependency the cache lacks is left out unless its version is exact (a
// digest, or a version with no range). The first of a name wins.
func (w *World) PackageFunctions() []functions.Function {
	var out []functions.Function
	seen := map[string]bool{}
	add := func(fn functions.Function) {
		if fn.Name != "" && fn.Package != "" && !seen[fn.Name] {
			seen[fn.Name] = true
			out = append(out, fn)
		}
	}
	for _, fn := range w.Functions() {
		if fn.Annotations[functions.AnnotationRuntime] != functions.RuntimeDevelopment {
			add(fn)
		}
	}
	for _, m := range w.Metas() {
		// The direct dependencies, then the cache's results (which follow
		// Configurations' dependencies), the first len(m.Deps) being theirs.
		results := w.pkgResults()[m.Path]
		for i := range max(len(m.Deps), len(results)) {
			var r packages.Result
			if i < len(results) {
				r = results[i]
			} else {
				r.Dep = m.Deps[i]
			}
			d := r.Dep
			if !strings.EqualFold(d.Kind, "Function") {
				continue
			}
			_, repo, ok := strings.Cut(d.Package, "/")
			if !ok {
				continue
			}
			fn := functions.Function{Name: ToDNSLabel(repo)}
			switch {
			case r.Package != nil && r.Package.Digest != "":
				fn.Package = r.Package.Ref + "@" + r.Package.Digest
			case strings.HasPrefix(d.Constraint, "sha256:"):
				fn.Package = d.Package + "@" + d.Constraint
			case exactVersion(d.Constraint):
				fn.Package = d.Package + ":" + d.Constraint
			}
			add(fn)
		}
	}
	return out
}

// exactVersion says whether a dependency's version names one tag (v1.2.3),
// not a range.
func exactVersion(c string) bool {
	if strings.ContainsAny(c, "<>=~^*|, \t") {
		return false
	}
	core := strings.TrimPrefix(c, "v")
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return len(parts) == 3
}

// functionOf resolves a pipeline step's functionRef.name for the file at
// path, as Crossplane would find the Function: a Function object of that
// name in the workspace (the one nearest to path in the folder tree),
// else a function dependency of the nearest package root file
// (crossplane.yaml, crossplane-project.yaml or upbound.yaml), which
// Crossplane's package manager installs as a Function named after the
// package's repository (xpkg.ToDNSLabel: crossplane-contrib/function-kcl
// becomes crossplane-contrib-function-kcl).
func (w *World) functionOf(path, name string) (analysis.StepFunction, bool) {
	path = filepath.Clean(path)
	best, bestLen := analysis.StepFunction{}, -1
	for _, p := range w.index().functions {
		fns := w.files[p].functions
		for _, fn := range fns {
			if fn.Name != name || fn.Package == "" {
				continue
			}
			n := analysis.SharedDirs(filepath.Dir(p), path)
			if n > bestLen || n == bestLen && p < best.From {
				best, bestLen = analysis.StepFunction{Package: packageRepository(fn.Package), Version: packageTag(fn.Package), From: p}, n
			}
		}
	}
	if bestLen >= 0 {
		if rel, err := filepath.Rel(filepath.Dir(path), best.From); err == nil {
			best.From = rel
		}
		return best, true
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if p, m := w.metaIn(dir); m != nil {
			for _, d := range m.Deps {
				if !strings.EqualFold(d.Kind, "Function") {
					continue
				}
				_, repo, ok := strings.Cut(d.Package, "/")
				if ok && ToDNSLabel(repo) == name {
					from := p
					if rel, err := filepath.Rel(filepath.Dir(path), p); err == nil {
						from = rel
					}
					return analysis.StepFunction{Package: d.Package, Version: d.Constraint, From: from}, true
				}
			}
			return analysis.StepFunction{}, false
		}
		if filepath.Dir(dir) == dir {
			return analysis.StepFunction{}, false
		}
	}
}

// packageTag is a package reference's tag ("" for none or a digest).
func packageTag(ref string) string {
	if strings.Contains(ref, "@") {
		return ""
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[i+1:]
	}
	return ""
}

// definedFunctions are the names a pipeline step of the file at path may
// give functionRef.name: the workspace's Function objects, and the
// Functions Crossplane's package manager installs for the nearest package
// root's dependencies (direct and, when pulled, those of its
// Configurations) and the functions a project embeds. complete is false
// when they cannot all be known: no package root (Function objects alone
// are no list of what a cluster has: a repository's functions.yaml is
// often for crossplane render, and other functions come from elsewhere),
// or a Configuration dependency that is not pulled.
func (w *World) definedFunctions(path string) (names []string, complete bool) {
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, p := range w.index().functions {
		for _, fn := range w.files[p].functions {
			add(fn.Name)
		}
	}
	mp := w.NearestMeta(path)
	if m := w.file(mp).meta; m != nil {
		complete = true
		depName := func(d packages.Dependency) string {
			if _, repo, ok := strings.Cut(d.Package, "/"); ok {
				return ToDNSLabel(repo)
			}
			return ""
		}
		for _, d := range m.Deps {
			if strings.EqualFold(d.Kind, "Function") {
				add(depName(d))
			}
		}
		for _, r := range w.pkgResults()[mp] {
			switch {
			case strings.EqualFold(r.Dep.Kind, "Function"):
				add(depName(r.Dep))
			case r.Package == nil:
				complete = false // a Configuration whose own dependencies are not known
			}
		}
		if m.Repository != "" {
			for _, fn := range m.Functions {
				add(packages.EmbeddedFunctionRef(m.Repository, fn))
			}
		}
	}
	sort.Strings(names)
	return names, complete
}

// packageRepository is a package reference without its tag or digest.
func packageRepository(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref
}

// ToDNSLabel is the name Crossplane's package manager gives the package
// object of a repository (crossplane-contrib/function-kcl →
// crossplane-contrib-function-kcl): lowercase letters and digits kept,
// '.', '/', ':' and '-' written as '-' (not at the ends), at most 63
// bytes read, leading and trailing '-' trimmed.
func ToDNSLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
		}
		if (c == '.' || c == '/' || c == ':' || c == '-') && i != 0 && i != 62 && i != len(s)-1 {
			b.WriteByte('-')
		}
		if i == 62 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// RuntimePuller pulls a Function package's runtime with c, for a
// functions.Registry run from packages (Config.PullRuntime: check's,
// render's and the language server's).
func RuntimePuller(c *packages.Client) func(ctx context.Context, pkg string) (*functions.PackageRuntime, error) {
	return func(ctx context.Context, pkg string) (*functions.PackageRuntime, error) {
		rt, err := c.FunctionRuntime(ctx, pkg)
		if err != nil {
			return nil, err
		}
		out := &functions.PackageRuntime{Name: rt.Name(), Digest: rt.Digest, Image: rt.Image, Platform: rt.Platform, Root: rt.Root,
			Executable: rt.Executable, Entrypoint: rt.Entrypoint, Env: rt.Env, WorkingDir: rt.WorkingDir, NoRuntime: rt.NoRuntime, FromCache: rt.FromCache}
		if rt.Stale != nil {
			out.Warning = rt.Stale.Error()
		}
		return out, nil
	}
}
