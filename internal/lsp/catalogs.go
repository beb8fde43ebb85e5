// This file reads the schema catalog settings (crdLsp.schemaCatalogs).

package lsp

import (
	"fmt"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/remote"
)

// Schema catalogs (crdLsp.schemaCatalogs): kinds of the workspace's files
// and open buffers that nothing else defines are looked up in the
// catalogs by the sources' refresher (sources.go) whenever the kinds
// change, each kind once per session and settings (the catalog's own
// cache answers after that, offline).

// catalog is the Catalog the settings configure (nil: none).
func (set Settings) catalog() *remote.Catalog {
	if len(set.SchemaCatalogs) == 0 {
		return nil
	}
	refresh, _ := time.ParseDuration(set.SchemaCatalogRefresh) // checked by parseSettings
	c, err := remote.NewCatalog(remote.CatalogOptions{Locations: set.SchemaCatalogs, Refresh: refresh, Timeouts: timeouts(set)})
	if err != nil {
		return nil // parseSettings reported it
	}
	return c
}

// checkCatalogSettings says what is wrong with the catalog settings.
func checkCatalogSettings(set Settings) error {
	if set.SchemaCatalogRefresh != "" {
		if _, err := time.ParseDuration(set.SchemaCatalogRefresh); err != nil {
			return fmt.Errorf("crdLsp.schemaCatalogRefresh: %w", err)
		}
	}
	if len(set.SchemaCatalogs) > 0 {
		if _, err := remote.NewCatalog(remote.CatalogOptions{Locations: set.SchemaCatalogs, CacheDir: "unused"}); err != nil {
			return fmt.Errorf("crdLsp.schemaCatalogs: %w", err)
		}
	}
	return nil
}
