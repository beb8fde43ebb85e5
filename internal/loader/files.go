// This file defines what a World records of each workspace file: one
// record per path, and the per-World index of the few facts that queries
// look up across files.

package loader

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// fileFacts is everything a World records of one file: what addFile found
// in it. A World holds one per path that has any fact (files), so that
// forgetting a file, cloning a World and telling whether an edit matters
// each touch one value, and a new file role is one more field here (set
// in addFile, compared in unaffected and withFiles).
//
// A fileFacts is immutable once in a World: an update replaces a path's
// record with a new one, never changes it, so Worlds share records.
type fileFacts struct {
	// schema is the file's schema input, indexed once (workspace and
	// --schemas files that may define CRDs, XRDs or MRDs; files read from
	// disk keep no text: the stores read them again on first use of a
	// schema). nil: the file defines no schema.
	schema *schemas.FileInput
	// meta is the parsed package root file (crossplane.yaml,
	// crossplane-project.yaml, upbound.yaml).
	meta *packages.Meta
	// headers are the kinds the file holds, in order.
	headers []workspace.Header
	// composed are the kinds its Compositions compose (catalog.go: what a
	// schema catalog may serve).
	composed []gvk.GVK
	// text is the content of a file that may hold example composites.
	text []byte
	// functions are its Function objects (pkg.crossplane.io): those
	// annotated with the Development runtime name running functions, as
	// in crossplane render's functions.yaml.
	functions []functions.Function
	// env holds its EnvironmentConfigs (nil: its headers name none).
	env *envFile
	// patches are the files a kustomization applies as patches.
	patches []string
	// kustomize is what a kustomization names (its bases, components
	// and the files it reads); nil for any other file.
	kustomize *workspace.KustomizeRefs
	// chainsaw are the files a chainsaw Test uses.
	chainsaw []workspace.ChainsawUse
	// chart: the file is a Helm chart's Chart.yaml (its folder is a
	// chart).
	chart bool
}

// kindsOnly reports whether f records nothing but which kinds the file
// holds and composes (an edit that keeps those then changes nothing the
// World records: World.unaffected). A new field that an edit may change
// is checked here.
func (f *fileFacts) kindsOnly() bool {
	return !f.indexed() && f.meta == nil && f.text == nil && f.functions == nil && f.env == nil &&
		f.patches == nil && f.kustomize == nil && f.chainsaw == nil && !f.chart
}

// empty reports whether f records nothing (the path is then not in files).
func (f *fileFacts) empty() bool {
	return f.kindsOnly() && f.schema == nil && len(f.headers) == 0 && len(f.composed) == 0
}

// fileIndex lists, once per World, the paths whose records hold the facts
// that queries look up across all files (the Env of every file asks for
// its roles; a step asks for a Function by name), so that those queries
// read a handful of paths, not every file. It is derived from files only:
// updates never maintain it.
type fileIndex struct {
	headers                                  map[string][]workspace.Header
	functions, envConfigs, patches, chainsaw []string          // sorted
	kustomizations                           []string          // sorted
	kustomizeDirs                            map[string]string // folder → its kustomization (the first by name)
	charts                                   map[string]bool
	metas                                    []string // sorted
	schemaFiles                              int
}

// worldIndex holds a World's fileIndex, built on first use (shared by the
// Worlds that share a file map).
type worldIndex struct {
	once sync.Once
	ix   fileIndex
}

// index is the World's fileIndex.
func (w *World) index() *fileIndex {
	w.ix.once.Do(func() {
		ix := fileIndex{headers: map[string][]workspace.Header{}, charts: map[string]bool{}, kustomizeDirs: map[string]string{}}
		for p, f := range w.files {
			if f.headers != nil {
				ix.headers[p] = f.headers
			}
			if f.functions != nil {
				ix.functions = append(ix.functions, p)
			}
			if f.env != nil {
				ix.envConfigs = append(ix.envConfigs, p)
			}
			if f.patches != nil {
				ix.patches = append(ix.patches, p)
			}
			if f.kustomize != nil {
				ix.kustomizations = append(ix.kustomizations, p)
			}
			if f.chainsaw != nil {
				ix.chainsaw = append(ix.chainsaw, p)
			}
			if f.meta != nil {
				ix.metas = append(ix.metas, p)
			}
			if f.chart {
				ix.charts[filepath.Dir(p)] = true
			}
			if f.schema != nil {
				ix.schemaFiles++
			}
		}
		for _, ps := range [][]string{ix.functions, ix.envConfigs, ix.patches, ix.kustomizations, ix.chainsaw, ix.metas} {
			sort.Strings(ps)
		}
		for _, p := range ix.kustomizations {
			if _, ok := ix.kustomizeDirs[filepath.Dir(p)]; !ok {
				ix.kustomizeDirs[filepath.Dir(p)] = p
			}
		}
		w.ix.ix = ix
	})
	return &w.ix.ix
}

// indexed reports whether the file's schema input was indexed.
func (f *fileFacts) indexed() bool { return f.schema != nil && f.schema.Indexed != nil }

// file is the record of path (an empty one when the World has none).
func (w *World) file(path string) *fileFacts {
	if f := w.files[path]; f != nil {
		return f
	}
	return &fileFacts{}
}
