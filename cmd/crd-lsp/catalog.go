// This file holds check's schema catalog flags (--catalog,
// --catalog-refresh); loader.FetchForCheck fetches what the catalogs
// give before the files are checked.

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/remote"
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
