// This file holds check's schema catalog flags (--catalog,
// --catalog-refresh) and fetches what the catalogs and the CRD sources
// (--crds) give before the files are checked.

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/spf13/pflag"
)

// catalogOptions are check's schema catalog flags.
type catalogOptions struct {
	locations stringList
	refresh   time.Duration
}

func (o *catalogOptions) register(fs *pflag.FlagSet) {
	fs.Var(&o.locations, "catalog", "schema catalog location template for kinds nothing else defines, kubeconform style: an http(s) URL, file URL or path with {{.Group}}, {{.ResourceKind}}, {{.ResourceAPIVersion}} (repeatable; fetched on first need, then cached)")
	fs.DurationVar(&o.refresh, "catalog-refresh", remote.DefaultCatalogRefresh, "how old a cached catalog answer may be before the catalog is asked again (negative: never)")
}

// catalog builds the Catalog the flags name (nil: none).
func (o *catalogOptions) catalog() (*remote.Catalog, error) {
	if len(o.locations) == 0 {
		return nil, nil
	}
	locs := make([]string, 0, len(o.locations))
	for _, l := range o.locations {
		locs = append(locs, absLocation(l))
	}
	c, err := remote.NewCatalog(remote.CatalogOptions{Locations: locs, Refresh: o.refresh})
	if err != nil {
		return nil, fmt.Errorf("--catalog: %w", err)
	}
	return c, nil
}

// absLocation makes a relative path location absolute (URLs stay).
func absLocation(l string) string {
	if strings.Contains(l, "://") || filepath.IsAbs(l) {
		return l
	}
	if a, err := filepath.Abs(l); err == nil {
		return a
	}
	return l
}

// fetchCatalog asks the catalog for the kinds of the files that nothing
// else defines (its cache first) and adds what it serves. A catalog that
// fails is reported on stderr; its kinds stay unknown.
func fetchCatalog(ctx context.Context, w *loader.World, stderr io.Writer) *loader.World {
	c := w.Catalog()
	if c == nil {
		return w
	}
	var add []schemas.FileInput
	for _, r := range loader.FetchCatalog(ctx, c, w.MissingKinds()) {
		if r.Err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: %s %s: %v\n", r.GVK.APIVersion(), r.GVK.Kind, r.Err)
		}
		if r.Input.Content != nil {
			add = append(add, r.Input)
		}
	}
	return w.WithCatalog(add)
}

// fetchCRDSources reads the --crds sources (the cache keeps them, and
// serves its copy when a source cannot be read, said on stderr).
func fetchCRDSources(ctx context.Context, w *loader.World, c *packages.Client, stderr io.Writer) *loader.World {
	refs := w.CRDSourceRefs()
	if len(refs) == 0 || c == nil {
		return w
	}
	var in []schemas.FileInput
	for _, r := range loader.FetchCRDSources(ctx, c, refs) {
		if r.Err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: %v\n", r.Err)
		}
		if r.Input.Content != nil {
			in = append(in, r.Input)
		}
	}
	return w.WithCRDSources(in)
}
