// Package loader is the one workspace loader: every front end (the
// language server, check, render) assembles the World its analysis reads
// with it: the schema stores (built-ins of each Crossplane version in use,
// workspace and --schemas files, cached packages), package metadata and
// the outcome of each dependency, the objects of the workspace's files by
// kind and the example composites among them. World.Env is the one
// builder of analysis.Env.
//
// Invariants: a World is immutable (With* methods return a new one) and
// reading it never touches the disk, but for schema files: Load indexes
// them as it reads them and keeps no text (schemas.FileInput.Open), so a
// schema's first use reads its file again through internal/workspace;
// Load reads the disk only through internal/workspace and the package
// cache only through internal/packages (Cached: never the network).
package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/environment"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Config is what a World is assembled from besides the files themselves.
type Config struct {
	// Roots are the folders scanned (workspace folders, check's folders).
	Roots []string
	// Files are files given by content besides the roots' (files named on
	// check's command line, stdin): part of the workspace, always kept.
	Files []workspace.File
	// SchemaDirs are extra folders or files of CRDs/XRDs/MRDs (--schemas).
	SchemaDirs []string
	// Options limit the scan of Roots.
	Options workspace.Options
	// SchemaScope's Include and Exclude limit where CRDs, XRDs and MRDs
	// are searched under the Roots (the editor's crdLsp.schemas.include
	// and exclude); package metadata (crossplane.yaml), example
	// composites and Functions are found everywhere the scan goes.
	SchemaScope workspace.Options
	// CrossplaneVersion is the setting ("v1", "v2" or "") used where no
	// crossplane.yaml states spec.crossplane.version.
	CrossplaneVersion string
	// Packages serves the schemas of crossplane.yaml dependencies from the
	// cache (nil: none). Load never goes to the network.
	Packages *packages.Client
	// KeepAll keeps every file's content (check validates them all);
	// otherwise only files that define schemas, package metadata, and
	// custom objects that may be example composites are kept.
	KeepAll bool
	// Analysis carries the analysis settings Env gives every file (EnvWith
	// takes others).
	Analysis AnalysisSettings
	// CRDSources are CRDs named by URL or oci:// Helm chart reference
	// (crdsources.go); Load serves them from the package cache.
	CRDSources []string
	// Catalog serves schemas of kinds nothing else defines (nil: none);
	// Load reads only its cache (catalog.go).
	Catalog *packages.Catalog
	// ClusterSource is a live cluster whose CRDs serve as schemas (nil:
	// none); Load reads only its cache (cluster_source.go).
	ClusterSource *packages.ClusterSource
}

// AnalysisSettings are the settings an analysis.Env carries besides what
// the World knows: the severity of unknown kinds, the Composition mode,
// client-side kinds, and the runner of real functions.
type AnalysisSettings struct {
	UnknownKind     analysis.Severity
	CompositionMode string
	ClientKinds     []string
	// UptestPlaceholders: see analysis.Env.
	UptestPlaceholders bool
	// Pipeline runs Composition pipelines with real functions (nil: none
	// configured). The front end owns it (and the processes behind it);
	// the World only hands it on.
	Pipeline analysis.Pipeline
	// Cluster is what the front end was told of the cluster (crd-lsp
	// render's --extra-resources and --context): its Context and
	// Resources are handed on; when Complete, its EnvironmentConfigs
	// replace the workspace's.
	Cluster analysis.Cluster
}

// World is an immutable picture of a workspace: its schema stores (one per
// Crossplane major in use), its package metadata and the outcome of each
// dependency, the objects of its files by kind, and the example
// composites among them. Every method is safe for concurrent use; none
// reads the disk. With* methods return a new World.
type World struct {
	cfg      Config
	setMajor int // the setting's major (DefaultCrossplaneMajor without one)

	// shared are the schema inputs of every store: workspace files and
	// --schemas files, by path, indexed once (FileInput.Indexed; files
	// read from disk keep no text: the stores read them again on first
	// use of a schema).
	shared map[string]schemas.FileInput
	stores map[int]*schemas.Store

	// metas are the crossplane.yaml files by path, and results the outcome
	// of their dependencies (cache, or registries when refreshed).
	metas   map[string]*packages.Meta
	results map[string][]packages.Result
	pkgs    []schemas.FileInput
	// catalog are the schema catalog's answers for kinds nothing else
	// defines (catalog.go).
	catalog []schemas.FileInput
	// crdSources are the CRD sources' schemas (crdsources.go).
	crdSources []schemas.FileInput
	// liveCluster is the live cluster's CRDs (cluster_source.go).
	liveCluster []schemas.FileInput
	// composed are the kinds the Compositions of a file compose, by path
	// (catalog.go: what a schema catalog may serve).
	composed map[string][]gvk.GVK

	// headers index the workspace's files by the kinds they hold; texts
	// keep the content of files that may hold example composites.
	headers map[string][]workspace.Header
	texts   map[string][]byte
	// functions are the Function objects (pkg.crossplane.io) of the
	// workspace's files, by path: those annotated with the Development
	// runtime name running functions, as in crossplane render's
	// functions.yaml.
	functions map[string][]functions.Function
	// patches are the files each kustomization of the workspace applies
	// as patches, by the kustomization's path.
	patches map[string][]string
	// charts are the Helm charts of the workspace: the folders holding a
	// Chart.yaml.
	charts map[string]bool
	// chainsaw are the files chainsaw Tests use, by the Test file's path.
	chainsaw map[string][]workspace.ChainsawUse
	// envConfigs are the EnvironmentConfigs of the workspace's files, by
	// path, and pkgEnvConfigs those of cached packages.
	envConfigs    map[string][]map[string]any
	pkgEnvConfigs []map[string]any

	parsed sync.Map // path → []analysis.Example, parsed once per World
	// envByDir: the EnvironmentConfigs of a folder's Compositions, found
	// once per World.
	envByDir sync.Map

	// schemaGen grows whenever what a file's analysis reads besides its
	// text changes: a store, the Crossplane major a crossplane.yaml
	// targets, or which files kustomizations apply as patches; functionsGen
	// whenever a file's Function objects change.
	schemaGen, functionsGen uint64
}

// SchemaGen identifies the World's schemas: two Worlds with the same
// SchemaGen, one derived from the other, give every file the same store
// and Crossplane major.
func (w *World) SchemaGen() uint64 { return w.schemaGen }

// FunctionsGen is SchemaGen for the workspace's Function objects.
func (w *World) FunctionsGen() uint64 { return w.functionsGen }

// DefaultStore is the store of files no crossplane.yaml pins to a
// Crossplane major.
func (w *World) DefaultStore() *schemas.Store { return w.Store(w.setMajor) }

// Files are the files a Load kept, for callers that check them all
// (KeepAll), sorted by path.
type Files []workspace.File

// Load reads a workspace from disk: every root is scanned once; schema
// files, crossplane.yaml files (their dependencies served from the package
// cache), and objects that may be example composites are gathered into a
// World. The files kept (all with KeepAll) are returned too, with what was
// skipped and why.
func Load(ctx context.Context, cfg Config) (*World, Files, []workspace.Skipped, error) {
	w := &World{cfg: cfg, shared: map[string]schemas.FileInput{}, metas: map[string]*packages.Meta{}, headers: map[string][]workspace.Header{}, texts: map[string][]byte{}, functions: map[string][]functions.Function{}, patches: map[string][]string{}, charts: map[string]bool{}, chainsaw: map[string][]workspace.ChainsawUse{}, envConfigs: map[string][]map[string]any{}, composed: map[string][]gvk.GVK{}}
	w.setMajor = workspace.DefaultCrossplaneMajor
	if m, ok := workspace.ParseMajor(cfg.CrossplaneVersion); ok {
		w.setMajor = m
	}
	var kept Files
	var skipped []workspace.Skipped
	builtins := mustBuiltins()
	for _, dir := range cfg.SchemaDirs {
		// Unused definitions cost their index entries only (schemadirs.go).
		sk, err := w.loadSchemaDir(ctx, dir, int64(workspace.DefaultMaxFileSize))
		if err != nil {
			return nil, nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	for _, root := range cfg.Roots {
		limit := cfg.Options.MaxFileSize
		if limit <= 0 {
			limit = workspace.DefaultMaxFileSize
		}
		// Without KeepAll, files are read into one reused buffer: addFile
		// copies what it keeps.
		sk, err := visitPath(ctx, root, cfg.Options, !cfg.KeepAll, func(p string, c []byte) {
			w.addFile(builtins, p, c, reopen(p, limit), !cfg.KeepAll)
			if cfg.KeepAll {
				kept = append(kept, workspace.File{Path: p, Content: c})
			}
		})
		if err != nil {
			return nil, nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	for _, f := range cfg.Files {
		w.addFile(builtins, f.Path, f.Content, nil, false)
		kept = append(kept, f)
	}
	w.loadCachedPackages()
	w.loadCachedCRDSources()
	w.loadCachedClusterSource()
	w.buildStores()
	w.loadCachedCatalog()
	sort.Slice(kept, func(i, j int) bool { return kept[i].Path < kept[j].Path })
	return w, kept, skipped, nil
}

// visitPath hands each YAML file under a folder (or the one file p) to
// visit; transient reads them into one reused buffer, valid only during
// the call.
func visitPath(ctx context.Context, p string, opts workspace.Options, transient bool, visit func(string, []byte)) ([]workspace.Skipped, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		limit := opts.MaxFileSize
		if limit <= 0 {
			limit = workspace.DefaultMaxFileSize
		}
		content, err := workspace.ReadFile(p, limit)
		if err != nil {
			return nil, err
		}
		visit(p, content)
		return nil, nil
	}
	if transient {
		return workspace.ScanTransient(ctx, p, opts, visit)
	}
	_, skipped, err := workspace.Scan(ctx, p, opts, func(path string, content []byte) bool {
		visit(path, content)
		return false
	})
	return skipped, err
}

// indexFile indexes a schema file of the workspace or --schemas; with
// open, the index keeps no text.
func indexFile(p string, content []byte, open func() ([]byte, error)) schemas.FileInput {
	in := schemas.FileInput{Source: workspace.Source(p), Path: p, Content: content, Open: open}
	in.Indexed = schemas.IndexInput(in)
	in.Content, in.Open = nil, nil
	return in
}

// reopen reads a workspace file again (the stores' FileInput.Open).
func reopen(p string, limit int64) func() ([]byte, error) {
	return func() ([]byte, error) { return workspace.ReadFile(p, limit) }
}

// addFile records one workspace file's content (nil content forgets it).
// open reads the file again (nil: content is not on disk as given, an
// open buffer or stdin); with it, schema files keep no text. Only the
// texts of files that may hold example composites are kept: objects of
// custom kinds (builtins is the built-in store that says which kinds are
// not). transient: content is valid only during the call (copied where
// kept).
func (w *World) addFile(builtins *schemas.Store, p string, content []byte, open func() ([]byte, error), transient bool) {
	delete(w.shared, p)
	delete(w.metas, p)
	delete(w.headers, p)
	delete(w.texts, p)
	delete(w.functions, p)
	delete(w.patches, p)
	delete(w.chainsaw, p)
	delete(w.envConfigs, p)
	delete(w.composed, p)
	if isChartFile(p) {
		delete(w.charts, filepath.Dir(p))
	}
	if content == nil {
		return
	}
	if isChartFile(p) {
		w.charts[filepath.Dir(p)] = true
	}
	if workspace.IsKustomization(p) {
		if ps := workspace.KustomizePatches(p, content); len(ps) > 0 {
			w.patches[p] = ps
		}
	}
	if workspace.MayDefineSchemas(content) && w.searchesSchemas(p) {
		text := content
		if open == nil {
			text = bytes.Clone(content) // the index keeps sub-slices of it
		}
		w.shared[p] = indexFile(p, text, open)
	}
	var kept []byte // content, copied once if transient
	keep := func() []byte {
		if kept == nil {
			kept = content
			if transient {
				kept = bytes.Clone(content)
			}
		}
		return kept
	}
	if packages.IsMetaFile(p) {
		w.metas[p] = packages.ParseMeta(p, keep())
	}
	if h := workspace.Headers(content); len(h) > 0 {
		w.headers[p] = h
		if ks := composedKinds(h, content); len(ks) > 0 {
			w.composed[p] = ks
		}
		if workspace.IsChainsawTest(h) {
			if uses := workspace.ChainsawUses(p, content); len(uses) > 0 {
				w.chainsaw[p] = uses
			}
		}
		if mayHoldExample(builtins, h) {
			w.texts[p] = keep()
		}
		if holdsEnvironmentConfig(h) {
			var ecs []map[string]any
			for _, o := range analysis.ObjectsIn(p, content) {
				if environment.IsConfig(o.Object) {
					ecs = append(ecs, o.Object)
				}
			}
			if len(ecs) > 0 {
				w.envConfigs[p] = ecs
			}
		}
		if holdsFunction(h) {
			// A document that does not parse is skipped; the file's own
			// diagnostics say why.
			if fns, _ := functions.ParseFunctions(content); len(fns) > 0 {
				w.functions[p] = fns
			}
		}
	}
}

// searchesSchemas reports whether definitions in p count: SchemaScope's
// globs apply under the root that holds p (files outside every root, such
// as an open buffer elsewhere, always count).
func (w *World) searchesSchemas(p string) bool {
	scope := w.cfg.SchemaScope
	if len(scope.Include) == 0 && len(scope.Exclude) == 0 {
		return true
	}
	for _, r := range w.cfg.Roots {
		if workspace.IsUnder(r, p) {
			return workspace.Matches(r, p, scope)
		}
	}
	return true
}

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
	paths := make([]string, 0, len(w.functions))
	for p := range w.functions {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []functions.Function
	for _, p := range paths {
		out = append(out, w.functions[p]...)
	}
	return out
}

// holdsEnvironmentConfig says whether a file holds an EnvironmentConfig.
func holdsEnvironmentConfig(hs []workspace.Header) bool {
	for _, h := range hs {
		if h.Kind == "EnvironmentConfig" && strings.HasPrefix(h.APIVersion, environment.Group+"/") {
			return true
		}
	}
	return false
}

// EnvironmentConfigs are the EnvironmentConfigs a Composition at path is
// rendered with, best first: those of the workspace under the deepest
// folder above it that holds any (a folder of e2e tests or examples,
// each with its own, sees its own), the nearest first, then the cached
// packages'.
func (w *World) EnvironmentConfigs(path string) []map[string]any {
	if len(w.envConfigs) == 0 {
		return w.pkgEnvConfigs
	}
	if v, ok := w.envByDir.Load(filepath.Dir(path)); ok {
		return v.([]map[string]any)
	}
	var files []string
	for dir := filepath.Dir(path); len(files) == 0; dir = filepath.Dir(dir) {
		for p := range w.envConfigs {
			if workspace.IsUnder(dir, p) {
				files = append(files, p)
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	near := func(p string) int { // the length of the folder shared with path
		n := 0
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			if workspace.IsUnder(dir, path) {
				n = len(dir)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		return n
	}
	sort.Slice(files, func(i, j int) bool {
		if ni, nj := near(files[i]), near(files[j]); ni != nj {
			return ni > nj
		}
		return files[i] < files[j]
	})
	var out []map[string]any
	for _, p := range files {
		out = append(out, w.envConfigs[p]...)
	}
	out = append(out, w.pkgEnvConfigs...)
	w.envByDir.Store(filepath.Dir(path), out)
	return out
}

// packageEnvironmentConfigs are the EnvironmentConfigs packages hold.
func packageEnvironmentConfigs(files []schemas.FileInput) []map[string]any {
	var out []map[string]any
	for _, f := range files {
		if !bytes.Contains(f.Content, []byte("EnvironmentConfig")) || !holdsEnvironmentConfig(workspace.Headers(f.Content)) {
			continue
		}
		for _, o := range analysis.ObjectsIn(f.Path, f.Content) {
			if environment.IsConfig(o.Object) {
				out = append(out, o.Object)
			}
		}
	}
	return out
}

func mayHoldExample(builtins *schemas.Store, hs []workspace.Header) bool {
	for _, h := range hs {
		if builtins == nil || len(builtins.Candidates(gvk.Parse(h.APIVersion, h.Kind))) == 0 {
			return true
		}
	}
	return false
}

// loadCachedPackages serves what the cache holds for the dependencies of
// every crossplane.yaml, with no network.
func (w *World) loadCachedPackages() {
	w.results = map[string][]packages.Result{}
	if w.cfg.Packages == nil {
		return
	}
	for p, m := range w.metas {
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

// buildStores builds a store for every Crossplane major a file of the
// workspace targets: built-ins of that major plus the shared inputs.
func (w *World) buildStores() {
	w.stores = map[int]*schemas.Store{}
	majors := map[int]bool{w.setMajor: true}
	for p := range w.metas {
		if m, ok := w.metaMajor(p); ok {
			majors[m] = true
		}
	}
	inputs := w.inputs()
	for m := range majors {
		st, err := workspace.Builtins(m)
		if err != nil || st == nil {
			st = schemas.NewStore()
		}
		w.stores[m] = st.WithFiles(inputs)
	}
}

// inputs are the shared schema inputs in a stable order.
func (w *World) inputs() []schemas.FileInput {
	out := make([]schemas.FileInput, 0, len(w.shared)+len(w.pkgs)+len(w.catalog))
	for _, in := range w.shared {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return append(append(append(append(out, w.pkgs...), w.crdSources...), w.liveCluster...), w.catalog...)
}

// metaMajor is the Crossplane major a crossplane.yaml states.
func (w *World) metaMajor(p string) (int, bool) {
	m := w.metas[p]
	if m == nil || m.Crossplane == "" {
		return 0, false
	}
	return workspace.ParseMajor(m.Crossplane)
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

// MajorOf is the Crossplane major a file targets: that of the nearest
// crossplane.yaml (in its folder or above) stating spec.crossplane.version,
// else the setting, else v2. from says which.
func (w *World) MajorOf(path string) (major int, from string) {
	dir := filepath.Dir(path)
	for {
		for _, name := range packages.MetaFileNames {
			p := filepath.Join(dir, name)
			if m, ok := w.metaMajor(p); ok {
				return m, p
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if m, ok := workspace.ParseMajor(w.cfg.CrossplaneVersion); ok {
		return m, "setting crdLsp.crossplaneVersion"
	}
	return workspace.DefaultCrossplaneMajor, "default"
}

// Store is the schema store for files targeting the given major.
func (w *World) Store(major int) *schemas.Store {
	if st, ok := w.stores[major]; ok {
		return st
	}
	return w.stores[w.setMajor]
}

// StoreFor is the schema store that applies to a file.
func (w *World) StoreFor(path string) *schemas.Store {
	m, _ := w.MajorOf(path)
	return w.Store(m)
}

// Env is EnvWith the analysis settings the World was loaded with.
func (w *World) Env(path string) analysis.Env { return w.EnvWith(path, w.cfg.Analysis) }

// EnvWith is the one builder of analysis.Env: the store, Crossplane major
// and example composites that apply to the file at path, and the analysis
// settings a.
func (w *World) EnvWith(path string, a AnalysisSettings) analysis.Env {
	major, _ := w.MajorOf(path)
	st := w.Store(major)
	skip, patchOf, expressions := w.role(path)
	return analysis.Env{
		Schemas:            st,
		CrossplaneMajor:    major,
		UnknownKind:        a.UnknownKind,
		CompositionMode:    a.CompositionMode,
		ClientKinds:        a.ClientKinds,
		UptestPlaceholders: a.UptestPlaceholders,
		PatchOf:            patchOf,
		Unpulled:           w.unpulled(path),
		Skip:               skip,
		Expressions:        expressions,
		OtherMajor:         otherMajor(major),
		Examples:           func(gvk schemas.GVK) []analysis.Example { return w.Examples(st, gvk) },
		Pipeline:           a.Pipeline,
		FunctionOf:         func(name string) (analysis.StepFunction, bool) { return w.functionOf(path, name) },
		Cluster:            w.cluster(path, a.Cluster),
		TemplateFiles:      w.templateFiles(path),
		DependsOn:          packages.DependsOnField(w.NearestMeta(path)),
		EmbeddedFunction:   w.embeddedFunction(path),
	}
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
	for p, fns := range w.functions {
		for _, fn := range fns {
			if fn.Name != name || fn.Package == "" {
				continue
			}
			n := analysis.SharedDirs(filepath.Dir(p), path)
			if n > bestLen || n == bestLen && p < best.From {
				best, bestLen = analysis.StepFunction{Package: packageRepository(fn.Package), From: p}, n
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
					return analysis.StepFunction{Package: d.Package, From: from}, true
				}
			}
			return analysis.StepFunction{}, false
		}
		if filepath.Dir(dir) == dir {
			return analysis.StepFunction{}, false
		}
	}
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

// cluster is what a file's analysis knows of the cluster: the front
// end's, with the workspace's EnvironmentConfigs unless the front end's
// are complete.
func (w *World) cluster(path string, given analysis.Cluster) analysis.Cluster {
	if given.Complete {
		return given
	}
	given.EnvironmentConfigs = w.EnvironmentConfigs(path)
	given.From = "in the workspace"
	return given
}

// chainsawUse is how the workspace's chainsaw Tests use the file at path,
// and the first such Test: a whole object when any applies, creates or
// updates it, else a patch, else an assertion; templated when any use is.
func (w *World) chainsawUse(path string) (workspace.ChainsawUse, string, bool) {
	path = filepath.Clean(path)
	rank := map[string]int{"assert": 1, "error": 1, "patch": 2, "apply": 3, "create": 3, "update": 3}
	var best workspace.ChainsawUse
	test, templated := "", false
	for t, uses := range w.chainsaw {
		for _, u := range uses {
			if ok, _ := filepath.Match(u.Pattern, path); !ok && u.Pattern != path {
				continue
			}
			templated = templated || u.Templated
			if rank[u.Op] > rank[best.Op] || rank[u.Op] == rank[best.Op] && t < test {
				best, test = u, t
			}
		}
	}
	best.Templated = templated
	return best, test, test != ""
}

// kuttlAssertion reports whether path is named as kuttl's assert and
// error files are: <step number>-assert.yaml or <step number>-errors.yaml.
func kuttlAssertion(path string) bool {
	name := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
	step, rest, ok := strings.Cut(name, "-")
	if !ok || step == "" || strings.Trim(step, "0123456789") != "" {
		return false
	}
	return rest == "assert" || rest == "errors"
}

// isChartFile reports whether p is a Helm chart's Chart.yaml.
func isChartFile(p string) bool { return filepath.Base(p) == "Chart.yaml" }

// chartPart says why a file of a Helm chart is not a manifest ("" for
// any other file): its Chart.yaml is Helm's metadata, and the files under
// its templates folder are Go templates that only render to YAML.
func (w *World) chartPart(path string) string {
	path = filepath.Clean(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if w.charts[dir] {
			rel, _ := filepath.Rel(dir, path)
			switch {
			case rel == "Chart.yaml":
				return "the metadata of the Helm chart " + dir
			case strings.HasPrefix(rel, "templates"+string(filepath.Separator)):
				return "a template of the Helm chart " + dir + " (Go template text, YAML only once rendered)"
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

// unpulled counts the dependencies of the crossplane.yaml nearest to path
// that the package cache does not hold.
func (w *World) unpulled(path string) int {
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		if p, _ := w.metaIn(dir); p != "" {
			n := 0
			for _, r := range w.results[p] {
				if r.Package == nil {
					n++
				}
			}
			return n
		}
		if filepath.Dir(dir) == dir {
			return 0
		}
	}
}

// otherMajor answers analysis.Env.OtherMajor for files targeting major:
// the other major's built-in Crossplane schemas, loaded on first need.
func otherMajor(major int) func(schemas.GVK) int {
	other := map[int]int{1: 2, 2: 1}[major]
	return func(g schemas.GVK) int {
		if other == 0 || !strings.HasSuffix(g.Group, ".crossplane.io") {
			return 0
		}
		st, err := workspace.Builtins(other)
		if err != nil {
			return 0
		}
		if _, ok := st.Lookup(g); ok {
			return other
		}
		return 0
	}
}

// role is what the workspace's tools make of the file at path: why it is
// not a manifest at all (a Helm chart's part, a kuttl or chainsaw
// assertion), the file that applies it as a patch (a kustomization, a
// chainsaw Test), and whether its "(…)" values are chainsaw expressions.
func (w *World) role(path string) (skip, patchOf string, expressions bool) {
	skip, patchOf = w.chartPart(path), w.PatchedBy(path)
	if kuttlAssertion(path) {
		skip = "a kuttl assertion (a partial match of what the test step must find)"
	}
	if use, test, ok := w.chainsawUse(path); ok {
		expressions = use.Templated
		switch use.Op {
		case "assert", "error":
			skip = "a chainsaw assertion of " + test + " (a partial match whose keys and values may be expressions)"
		case "patch":
			patchOf = test
		}
	}
	return skip, patchOf, expressions
}

// PatchedBy is the kustomization that applies the file at path as a
// patch ("" when none does; the first by path when several do).
func (w *World) PatchedBy(path string) string {
	by := ""
	for k, ps := range w.patches {
		if (by == "" || k < by) && slices.Contains(ps, filepath.Clean(path)) {
			by = k
		}
	}
	return by
}

// Examples are the workspace's example composites for the XR kind gvk:
// objects of that kind or of its claim kind, files under an examples
// folder first, then by path.
func (w *World) Examples(st *schemas.Store, gvk schemas.GVK) []analysis.Example {
	kinds := workspace.ExampleKinds(st, gvk)
	var out []analysis.Example
	for _, p := range workspace.ExamplePaths(w.headers, kinds) {
		if ex, ok := analysis.FirstExample(w.objects(p), func(av, k string) bool { return kinds[workspace.Header{APIVersion: av, Kind: k}] }); ok {
			out = append(out, ex)
		}
	}
	return out
}

// objects parses a kept file's objects, once per World.
func (w *World) objects(p string) []analysis.Example {
	if v, ok := w.parsed.Load(p); ok {
		return v.([]analysis.Example)
	}
	text, ok := w.texts[p]
	if !ok {
		return nil
	}
	objs := analysis.ObjectsIn(p, text)
	w.parsed.Store(p, objs)
	return objs
}

// Metas are the workspace's crossplane.yaml files, by path.
func (w *World) Metas() []*packages.Meta {
	out := make([]*packages.Meta, 0, len(w.metas))
	for _, m := range w.metas {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Meta is the parsed crossplane.yaml at path, if the workspace has one.
func (w *World) Meta(path string) (*packages.Meta, bool) {
	m, ok := w.metas[path]
	return m, ok
}

// Results are the outcomes of a crossplane.yaml's dependencies.
func (w *World) Results(path string) []packages.Result { return w.results[path] }

// clone copies the World's maps for a With* method.
func (w *World) clone(changed map[string]bool) *World {
	c := &World{cfg: w.cfg, setMajor: w.setMajor, schemaGen: w.schemaGen, functionsGen: w.functionsGen, shared: maps.Clone(w.shared), metas: maps.Clone(w.metas),
		results: w.results, pkgs: w.pkgs, catalog: w.catalog, crdSources: w.crdSources, liveCluster: w.liveCluster, headers: maps.Clone(w.headers), texts: maps.Clone(w.texts), stores: w.stores,
		functions: maps.Clone(w.functions), patches: maps.Clone(w.patches), charts: maps.Clone(w.charts), chainsaw: maps.Clone(w.chainsaw), composed: maps.Clone(w.composed),
		envConfigs: maps.Clone(w.envConfigs), pkgEnvConfigs: w.pkgEnvConfigs}
	// The objects of files that did not change stay parsed.
	w.parsed.Range(func(k, v any) bool {
		if !changed[k.(string)] {
			c.parsed.Store(k, v)
		}
		return true
	})
	return c
}

// A fileChange is a file's new content (nil: removed); open, when set,
// reads it again from disk (a schema file's text is then dropped once
// indexed, as in a load).
type fileChange struct {
	path    string
	content []byte
	open    func() ([]byte, error)
}

// WithFile is the World with path's content replaced (an open buffer);
// nil content removes the file.
func (w *World) WithFile(path string, content []byte) *World {
	return w.withFiles([]fileChange{{path: path, content: content}})
}

// WithDiskFiles is the World with files just read from disk (within limit
// bytes; nil Content: removed) in place of what it held of them, in one
// step: as in a load, a schema file's text is dropped once indexed and
// read again on first use.
func (w *World) WithDiskFiles(files []workspace.File, limit int64) *World {
	if limit <= 0 {
		limit = workspace.DefaultMaxFileSize
	}
	changes := make([]fileChange, len(files))
	for i, f := range files {
		changes[i] = fileChange{path: f.Path, content: f.Content}
		if f.Content != nil {
			changes[i].open = reopen(f.Path, limit)
		}
	}
	return w.withFiles(changes)
}

func (w *World) withFiles(changes []fileChange) *World {
	builtins := mustBuiltins()
	changed := map[string]bool{}
	for _, ch := range changes {
		if !w.unaffected(builtins, ch.path, ch.content) {
			changed[ch.path] = true
		}
	}
	if len(changed) == 0 {
		return w // (the usual keystroke in a Composition or a built-in kind)
	}
	c := w.clone(changed)
	var schemaPaths []string
	metaChanged, functionsChanged, rolesChanged, envChanged := false, false, false, false
	for _, ch := range changes {
		if !changed[ch.path] {
			continue
		}
		wasSchema, wasMeta := w.shared[ch.path].Indexed != nil, w.metas[ch.path] != nil
		c.addFile(builtins, ch.path, ch.content, ch.open, false)
		functionsChanged = functionsChanged || w.functions[ch.path] != nil || c.functions[ch.path] != nil
		envChanged = envChanged || w.envConfigs[ch.path] != nil || c.envConfigs[ch.path] != nil
		rolesChanged = rolesChanged || !slices.Equal(w.patches[ch.path], c.patches[ch.path]) || isChartFile(ch.path) ||
			!slices.Equal(w.chainsaw[ch.path], c.chainsaw[ch.path])
		if wasSchema || c.shared[ch.path].Indexed != nil {
			schemaPaths = append(schemaPaths, ch.path)
		}
		metaChanged = metaChanged || wasMeta || c.metas[ch.path] != nil
	}
	if len(schemaPaths) > 0 || metaChanged || rolesChanged || envChanged {
		c.schemaGen++
	}
	if functionsChanged {
		c.functionsGen++
	}
	if len(schemaPaths) > 0 {
		var add []schemas.FileInput
		for _, p := range schemaPaths {
			if in := c.shared[p]; in.Indexed != nil {
				add = append(add, in)
			}
		}
		stores := make(map[int]*schemas.Store, len(w.stores))
		for m, st := range w.stores {
			for _, p := range schemaPaths {
				if c.shared[p].Indexed == nil {
					st = st.WithoutFile(p)
				}
			}
			stores[m] = st.WithFiles(add)
		}
		c.stores = stores
	}
	if metaChanged {
		// A crossplane.yaml may target a Crossplane major no store serves
		// yet (its dependencies change with the next package refresh).
		c.addMissingStores()
	}
	return c
}

// unaffected reports whether content (nil: removed) for p leaves
// everything the World records of p as it is: no schema, package
// metadata, example text or Function before or after, and the same kinds.
func (w *World) unaffected(builtins *schemas.Store, p string, content []byte) bool {
	if w.shared[p].Indexed != nil || w.metas[p] != nil || w.texts[p] != nil || w.functions[p] != nil || w.patches[p] != nil || workspace.IsKustomization(p) || isChartFile(p) || w.chainsaw[p] != nil || w.envConfigs[p] != nil {
		return false
	}
	if content == nil {
		return w.headers[p] == nil
	}
	if packages.IsMetaFile(p) || workspace.MayDefineSchemas(content) {
		return false
	}
	h := workspace.Headers(content)
	return slices.Equal(h, w.headers[p]) && !mayHoldExample(builtins, h) && !holdsFunction(h) && !workspace.IsChainsawTest(h) && !holdsEnvironmentConfig(h) &&
		slices.Equal(composedKinds(h, content), w.composed[p])
}

// addMissingStores builds the stores of majors that files now target and
// no store serves.
func (w *World) addMissingStores() {
	var missing []int
	for p := range w.metas {
		if m, ok := w.metaMajor(p); ok && w.stores[m] == nil {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return
	}
	stores := make(map[int]*schemas.Store, len(w.stores)+len(missing))
	for m, st := range w.stores {
		stores[m] = st
	}
	inputs := w.inputs()
	for _, m := range missing {
		st, err := workspace.Builtins(m)
		if err != nil || st == nil {
			st = schemas.NewStore()
		}
		stores[m] = st.WithFiles(inputs)
	}
	w.stores = stores
}

// WithPackages is the World with new dependency outcomes (from the
// registries) and their packages' schemas: files, when not nil, are those
// schemas already indexed by the caller (see schemas.Index); else they are
// taken from the results.
func (w *World) WithPackages(results map[string][]packages.Result, files []schemas.FileInput) *World {
	c := w.clone(nil)
	c.results = results
	if files == nil {
		files = PackageFiles(results)
	}
	c.pkgs = files
	c.pkgEnvConfigs = packageEnvironmentConfigs(files)
	c.schemaGen++
	stores := make(map[int]*schemas.Store, len(w.stores))
	for m, st := range w.stores {
		for _, old := range w.pkgs {
			st = st.WithoutFile(old.Path)
		}
		stores[m] = st.WithFiles(files)
	}
	c.stores = stores
	return c
}

// Warm builds what every store computes lazily on first use (its kind
// list), so that the first request after a swap does not pay for it.
func (w *World) Warm() {
	for _, st := range w.stores {
		st.Kinds()
	}
}

// Packages are the packages' schema inputs the stores hold.
func (w *World) Packages() []schemas.FileInput { return w.pkgs }

// AllResults are the outcomes of every crossplane.yaml's dependencies, by
// crossplane.yaml path.
func (w *World) AllResults() map[string][]packages.Result { return w.results }

// PathsUnder lists the workspace files the World knows under dir (schema
// files, package metadata, objects).
func (w *World) PathsUnder(dir string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] && workspace.IsUnder(dir, p) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for p, in := range w.shared {
		if in.Source.Kind == schemas.SourceWorkspace {
			add(p)
		}
	}
	for p := range w.metas {
		add(p)
	}
	for p := range w.headers {
		add(p)
	}
	sort.Strings(out)
	return out
}

// SchemaFiles is the number of workspace and --schemas files that define
// schemas.
func (w *World) SchemaFiles() int { return len(w.shared) }

func mustBuiltins() *schemas.Store {
	st, _ := workspace.Builtins(workspace.DefaultCrossplaneMajor)
	return st
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
		if m := w.metas[p]; m != nil {
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
