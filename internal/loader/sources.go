// This file is the one shape of a schema source besides the workspace's
// own files: Crossplane packages, CRD sources, a live cluster and schema
// catalogs are each one Source, listed once in sourcesOf, and a World's
// stores are built from them in rank order by serveCached (at load) and
// WithFetched (a refresh).

package loader

import (
	"context"
	"maps"
	"slices"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// SourceName names a schema source.
type SourceName string

// The schema sources, in rank order (sourcesOf's table).
const (
	SourcePackages   SourceName = "packages"    // crossplane.yaml dependencies (packages.go)
	SourceCRDSources SourceName = "CRD sources" // CRDs named by URL or oci:// Helm chart (crdsources.go)
	SourceCluster    SourceName = "cluster"     // a live cluster's CRDs (cluster_source.go)
	SourceCatalog    SourceName = "catalog"     // schema catalogs, for kinds nothing else defines (catalog.go)
)

// A Trigger is an event after which a long-lived front end (the editor)
// fetches the sources whose Refresh names it.
type Trigger uint8

const (
	// AfterLoad: a load just served the sources' cached copies.
	AfterLoad Trigger = 1 << iota
	// MetaChanged: a package root file (crossplane.yaml) changed, so its
	// dependencies may have.
	MetaChanged
	// KindsChanged: the kinds the workspace uses, or its schemas, changed
	// (a kind may now be one nothing defines): a load, an edit or a file
	// changed on disk.
	KindsChanged
)

// Refresh says when a source is fetched (from the network: only when the
// user configured the source, or asked).
type Refresh struct {
	// On are the events after which the editor fetches the source.
	On Trigger
	// InCheck: crd-lsp check fetches it before checking (packages are
	// not: crd-lsp pull fills their cache, check stays offline for them).
	InCheck bool
	// Supersede: a new fetch cancels the running one instead of running
	// after it (packages: crdLsp.pull, the user's own fetch, is one too).
	Supersede bool
}

// A Source is one place schemas come from besides the workspace's files.
// Every source is one implementation in this package (the unexported
// method keeps it so), listed in sourcesOf; nothing else adds schemas to a
// World's stores.
type Source interface {
	// Name names the source.
	Name() SourceName
	// Rank is where its schemas rank against others defining the same
	// kind (schemas.Source.Kind: package > workspace > built-in > cluster >
	// catalog).
	Rank() schemas.SourceKind
	// Refresh says when front ends fetch it.
	Refresh() Refresh
	// Cached is what the source serves at load, from its cache: never the
	// network. w is the World as the sources ranked above it left it.
	Cached(w *World) Served
	// Fetch reads the source from where it lives (the network, bounded by
	// the source's own timeouts), for w. A source that cannot be read says
	// so in Fetched.Problems and keeps serving its cached copy.
	Fetch(ctx context.Context, w *World) Fetched
	// Announce is what a fetch is about to do, for a progress report
	// (title, message); empty: a fetch is quick, nothing to announce.
	Announce(w *World) (title, message string)

	// config identifies what the source was configured with: a fetch made
	// for one configuration is not applied to a World of another.
	config() string
}

// Served is what a source serves a World.
type Served struct {
	// Inputs are its schemas as store inputs.
	Inputs []schemas.FileInput
	// Results are the outcomes of each package root file's dependencies,
	// by its path (packages).
	Results map[string][]packages.Result
	// EnvironmentConfigs are the EnvironmentConfigs it holds (packages).
	EnvironmentConfigs []map[string]any
	// KubernetesVersion is the server version of the cluster it read
	// ("": none), which chooses the built-in Kubernetes minor.
	KubernetesVersion string
}

// Fetched is the outcome of a Source's Fetch.
type Fetched struct {
	Source SourceName
	// Served replaces what the source served (or adds to it: a catalog's
	// answers for more kinds).
	Served Served
	// Problems are what could not be read, one line each, worded for the
	// user (a front end prefixes its name).
	Problems []string
	// Done says in a few words what was read ("3 CRDs read"), Summary in
	// a line naming the source; empty: nothing worth saying.
	Done, Summary string
	// Same: the World already serves exactly this (only the time it was
	// read differs). check keeps its World; the editor takes the new
	// read time, which hover shows.
	Same bool

	apply  bool   // something to apply (false: nothing was read)
	add    bool   // Served.Inputs add to the source's (same paths replaced)
	config string // the source's config()
	// index: Served.Inputs are indexed when applied (WithFetched), not
	// by the fetch: a fetch that is Same leaves its index to the editor,
	// which takes the new read time, and check, which keeps its World,
	// never builds it.
	index bool
}

// Changes reports whether applying f (WithFetched) can change a World.
func (f Fetched) Changes() bool { return f.apply }

// sourcesOf is the table of schema sources: those cfg configures, in rank
// order. The one list: Load serves them, front ends fetch them.
func sourcesOf(cfg Config) []Source {
	var out []Source
	if cfg.Packages != nil {
		out = append(out, packageSource{cfg.Packages, cfg.PackageIndex})
		if len(cfg.CRDSources) > 0 {
			out = append(out, crdSource{cfg.Packages, cfg.CRDSources})
		}
	}
	if cfg.ClusterSource != nil {
		out = append(out, clusterSource{cfg.ClusterSource})
	}
	if cfg.Catalog != nil {
		out = append(out, catalogSource{cfg.Catalog, cfg.CatalogAsked})
	}
	return out
}

// Sources are the World's configured schema sources, in rank order.
func (w *World) Sources() []Source { return w.sources }

// Source is the World's source of that name (nil: not configured).
func (w *World) Source(name SourceName) Source {
	for _, s := range w.sources {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// Served is what the named source serves the World.
func (w *World) Served(name SourceName) Served { return w.served[name] }

// serveCached builds the World's stores from the workspace's files and
// every source's cached copy, in rank order, each source seeing the World
// the sources above it made: the stores are built once the sources
// ranked at or above a live cluster (whose server version chooses the
// built-ins) are served, before those below it (a catalog serves only
// kinds nothing else defines).
func (w *World) serveCached() {
	w.served = map[SourceName]Served{}
	built := false
	for _, src := range w.sources {
		if !built && src.Rank() < schemas.SourceCluster {
			w.chooseKubernetes()
			w.buildStores()
			built = true
		}
		sv := src.Cached(w)
		w.served[src.Name()] = sv
		if built && len(sv.Inputs) > 0 {
			w.stores = replaceInputs(w.stores, nil, sv.Inputs)
		}
	}
	if !built {
		w.chooseKubernetes()
		w.buildStores()
	}
}

// WithFetched is the World with what a source's fetch brought in place of
// what it served: the one way a refresh changes a World. A fetch made for
// another configuration of the source (settings replaced since), or that
// read nothing, changes nothing.
func (w *World) WithFetched(f Fetched) *World {
	src := w.Source(f.Source)
	if !f.apply || src == nil || src.config() != f.config {
		return w
	}
	old := w.served[f.Source]
	next := f.Served
	if f.index {
		next.Inputs = slices.Clone(next.Inputs)
		for i, in := range next.Inputs {
			next.Inputs[i].Indexed = schemas.IndexInput(in)
		}
	}
	if f.add {
		if len(next.Inputs) == 0 {
			return w
		}
		byPath := map[string]bool{}
		for _, in := range next.Inputs {
			byPath[in.Path] = true
		}
		var merged []schemas.FileInput
		for _, in := range old.Inputs {
			if !byPath[in.Path] {
				merged = append(merged, in)
			}
		}
		next.Inputs = append(merged, next.Inputs...)
	}
	if next.KubernetesVersion == "" {
		next.KubernetesVersion = old.KubernetesVersion // a snapshot that did not say keeps the choice
	}
	c := w.clone(nil)
	c.served = maps.Clone(w.served)
	c.served[f.Source] = next
	c.schemaGen++
	c.stores = replaceInputs(w.stores, old.Inputs, next.Inputs)
	if next.KubernetesVersion != old.KubernetesVersion {
		c.rebuildForCluster()
	}
	return c
}

// replaceInputs is every store with the inputs old replaced by next
// (inputs in both, unchanged, stay as they are).
func replaceInputs(stores map[int]*schemas.Store, old, next []schemas.FileInput) map[int]*schemas.Store {
	keep := map[string]schemas.FileInput{}
	for _, in := range next {
		keep[in.Path] = in
	}
	var gone []string
	same := map[string]bool{}
	for _, in := range old {
		if n, ok := keep[in.Path]; !ok {
			gone = append(gone, in.Path)
		} else if sameInput(in, n) {
			same[in.Path] = true
		}
	}
	var add []schemas.FileInput
	for _, in := range next {
		if !same[in.Path] {
			add = append(add, in)
		}
	}
	out := make(map[int]*schemas.Store, len(stores))
	for m, st := range stores {
		for _, p := range gone {
			st = st.WithoutFile(p)
		}
		out[m] = st.WithFiles(add)
	}
	return out
}

// sameInput reports whether two inputs are the same value (the same
// bytes and index, not merely equal ones).
func sameInput(a, b schemas.FileInput) bool {
	return a.Path == b.Path && a.Source == b.Source && a.Indexed == b.Indexed && len(a.Content) == len(b.Content) &&
		(len(a.Content) == 0 || &a.Content[0] == &b.Content[0])
}

// sourceInputs are every source's inputs, in rank order.
func (w *World) sourceInputs() []schemas.FileInput {
	var out []schemas.FileInput
	for _, src := range w.sources {
		out = append(out, w.served[src.Name()].Inputs...)
	}
	return out
}

// sourceEnvironmentConfigs are the EnvironmentConfigs the sources hold,
// in rank order.
func (w *World) sourceEnvironmentConfigs() []map[string]any {
	var out []map[string]any
	for _, src := range w.sources {
		out = append(out, w.served[src.Name()].EnvironmentConfigs...)
	}
	return out
}

// kubernetesVersion is the server version the sources read (a live
// cluster's), "" when none did.
func (w *World) kubernetesVersion() string {
	for _, src := range w.sources {
		if v := w.served[src.Name()].KubernetesVersion; v != "" {
			return v
		}
	}
	return ""
}

// FetchForCheck fetches, in rank order, every source a one-shot front end
// fetches (Refresh.InCheck), each seeing what those above it brought
// (the catalog asks only for kinds nothing else defines then); report
// gets each problem.
func FetchForCheck(ctx context.Context, w *World, report func(string)) *World {
	for _, src := range w.sources {
		if !src.Refresh().InCheck {
			continue
		}
		f := src.Fetch(ctx, w)
		for _, p := range f.Problems {
			report(p)
		}
		if !f.Same {
			w = w.WithFetched(f)
		}
	}
	return w
}
