package loader

import (
	"context"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// CRD sources (Config.CRDSources): CRDs named by URL or oci:// Helm chart.
// Load serves them from the package cache (no network); FetchCRDSources
// reads them from their sources for the front end, which adds them with
// WithCRDSources. They rank as packages do: a dependency the user named.

// CRDSourceInput is a CRD source as a store input.
func CRDSourceInput(s *remote.CRDSource) schemas.FileInput {
	v := s.Digest
	if len(v) > len("sha256:")+12 {
		v = v[:len("sha256:")+12]
	}
	return schemas.FileInput{Source: schemas.Source{Kind: schemas.SourcePackage, Name: s.Ref, Version: v, File: s.Path}, Path: s.Path, Content: s.YAML}
}

// loadCachedCRDSources serves the configured CRD sources the cache holds.
func (w *World) loadCachedCRDSources() {
	if w.cfg.Packages == nil {
		return
	}
	for _, ref := range w.cfg.CRDSources {
		if s, err := remote.CachedCRDs(w.cfg.Packages, ref); err == nil {
			w.crdSources = append(w.crdSources, CRDSourceInput(s))
		}
	}
}

// CRDSourceResult is the outcome of reading one CRD source.
type CRDSourceResult struct {
	Ref   string
	Input schemas.FileInput // zero when nothing is served
	Err   error             // with an Input: the cached copy is served
}

// FetchCRDSources reads every CRD source from where it lives (the network).
func FetchCRDSources(ctx context.Context, c *packages.Client, refs []string) []CRDSourceResult {
	out := make([]CRDSourceResult, 0, len(refs))
	for _, ref := range refs {
		s, err := remote.FetchCRDs(ctx, c, ref)
		r := CRDSourceResult{Ref: ref, Err: err}
		if s != nil {
			r.Input = CRDSourceInput(s)
		}
		out = append(out, r)
	}
	return out
}

// WithCRDSources is the World with these CRD sources' schemas in place of
// the previous ones.
func (w *World) WithCRDSources(inputs []schemas.FileInput) *World {
	c := w.clone(nil)
	c.crdSources = inputs
	c.schemaGen++
	stores := make(map[int]*schemas.Store, len(w.stores))
	for m, st := range w.stores {
		for _, old := range w.crdSources {
			st = st.WithoutFile(old.Path)
		}
		stores[m] = st.WithFiles(inputs)
	}
	c.stores = stores
	return c
}

// CRDSourceRefs are the configured CRD sources.
func (w *World) CRDSourceRefs() []string { return w.cfg.CRDSources }
