// This file defines the World and its queries.

package loader

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
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
	// PackageIndex, when set, keeps packages' indexes across loads and
	// refreshes (a long-lived front end's); see PackageFiles.
	PackageIndex *PackageIndex
	// KeepAll keeps every file's content (check validates them all);
	// otherwise only files that define schemas, package metadata, and
	// custom objects that may be example composites are kept.
	KeepAll bool
	// Analysis carries the analysis settings Env gives every file (EnvWith
	// takes others).
	Analysis AnalysisSettings
	// CRDSources are CRDs named by URL or oci:// Helm chart reference
	// (crdsources.go), kept in the package cache: a source (sources.go).
	CRDSources []string
	// Catalog serves schemas of kinds nothing else defines (nil: none;
	// catalog.go): a source.
	Catalog *remote.Catalog
	// CatalogAsked, when set, remembers the kinds the catalog was asked
	// for across loads (a long-lived front end's), so each is asked once.
	CatalogAsked *Asked
	// ClusterSource is a live cluster whose CRDs serve as schemas (nil:
	// none; cluster_source.go): a source.
	ClusterSource *remote.ClusterSource
	// KubernetesVersion is the setting naming the Kubernetes minor whose
	// built-in schemas apply ("" : the cluster's, else the newest;
	// kubernetes.go).
	KubernetesVersion string
}

// AnalysisSettings are the settings an analysis.Env carries besides what
// the World knows: the severity of unknown kinds, the Composition mode,
// client-side kinds, and the runner of real functions.
type AnalysisSettings struct {
	UnknownKind     severity.Severity
	CompositionMode composition.Mode
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
	// kube is the built-in Kubernetes minor of the stores, chosen with
	// the cluster snapshot's server version (kubernetes.go).
	kube workspace.KubernetesChoice

	// files are the World's records of the workspace's files (and of
	// --schemas files), one per path that has any fact (files.go); ix
	// indexes them once per World.
	files  map[string]*fileFacts
	ix     *worldIndex
	stores map[int]*schemas.Store

	// sources are the configured schema sources in rank order (sourcesOf),
	// served what each serves (its cache at load, a fetch's outcome
	// since: sources.go).
	sources []Source
	served  map[SourceName]Served

	parsed sync.Map // path → []analysis.Example, parsed once per World
	// envByDir: the EnvironmentConfigs of a folder's Compositions, found
	// once per World.
	envByDir sync.Map
	// kustomize: KustomizeRoots and KustomizeReads, answered once per
	// World (kustomize.go).
	kustomize sync.Map

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

// metaMajor is the Crossplane major a crossplane.yaml states.
func (w *World) metaMajor(p string) (int, bool) {
	m := w.file(p).meta
	if m == nil || m.Crossplane == "" {
		return 0, false
	}
	return workspace.ParseMajor(m.Crossplane)
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

// Examples are the workspace's example composites for the XR kind gvk:
// objects of that kind or of its claim kind, files under an examples
// folder first, then by path.
func (w *World) Examples(st *schemas.Store, gvk schemas.GVK) []analysis.Example {
	kinds := workspace.ExampleKinds(st, gvk)
	var out []analysis.Example
	for _, p := range workspace.ExamplePaths(w.index().headers, kinds) {
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
	text := w.file(p).text
	if text == nil {
		return nil
	}
	objs := analysis.ObjectsIn(p, text)
	w.parsed.Store(p, objs)
	return objs
}

// Metas are the workspace's crossplane.yaml files, by path.
func (w *World) Metas() []*packages.Meta {
	out := make([]*packages.Meta, 0, len(w.index().metas))
	for _, p := range w.index().metas {
		out = append(out, w.files[p].meta)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Meta is the parsed crossplane.yaml at path, if the workspace has one.
func (w *World) Meta(path string) (*packages.Meta, bool) {
	m := w.file(path).meta
	return m, m != nil
}

// Results are the outcomes of a crossplane.yaml's dependencies.
func (w *World) Results(path string) []packages.Result { return w.pkgResults()[path] }

// pkgResults are the outcomes of every package root file's dependencies.
func (w *World) pkgResults() map[string][]packages.Result { return w.served[SourcePackages].Results }

// Warm builds what every store computes lazily on first use (its kind
// list), so that the first request after a swap does not pay for it.
func (w *World) Warm() {
	for _, st := range w.stores {
		st.Kinds()
	}
}

// Packages are the packages' schema inputs the stores hold.
func (w *World) Packages() []schemas.FileInput { return w.served[SourcePackages].Inputs }

// AllResults are the outcomes of every crossplane.yaml's dependencies, by
// crossplane.yaml path.
func (w *World) AllResults() map[string][]packages.Result { return w.pkgResults() }

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
	for p, f := range w.files {
		if f.schema != nil && f.schema.Source.Kind == schemas.SourceWorkspace || f.meta != nil || f.headers != nil {
			add(p)
		}
	}
	sort.Strings(out)
	return out
}

// SchemaFiles is the number of workspace and --schemas files that define
// schemas.
func (w *World) SchemaFiles() int { return w.index().schemaFiles }
