// This file looks up the workspace's missing kinds in the configured schema
// catalogs (crdLsp.schemaCatalogs), in the background.

package lsp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// Schema catalogs (crdLsp.schemaCatalogs): kinds of the workspace's files
// and open buffers that nothing else defines are looked up in the
// catalogs in the background, off the request path; what they serve is
// added to the World (loader.World.WithCatalog) and the open documents
// are diagnosed again. Each kind is asked once per session and settings
// (the catalog's own cache answers after that, offline).

// catalogState is the server's catalog lookups.
type catalogState struct {
	mu      sync.Mutex
	running bool
	pending bool
	key     string          // the settings the tried set is for
	tried   map[string]bool // kinds (GVK strings) looked up under key
}

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

// catalogsNeededLocked starts a catalog lookup for the World's missing
// kinds, unless one runs (it then looks again when done). Called with s.mu
// held after the World's schemas changed.
func (s *server) catalogsNeededLocked() {
	if len(s.settings.SchemaCatalogs) == 0 || s.world == nil {
		return
	}
	s.cat.mu.Lock()
	defer s.cat.mu.Unlock()
	if s.cat.running {
		s.cat.pending = true
		return
	}
	s.cat.running = true
	s.goBackground(s.fetchCatalogs)
}

// fetchCatalogs looks up the missing kinds not tried yet, adds what the
// catalogs serve to the World and diagnoses again.
func (s *server) fetchCatalogs(ctx context.Context) {
	defer func() {
		s.cat.mu.Lock()
		s.cat.running = false
		again := s.cat.pending
		s.cat.pending = false
		s.cat.mu.Unlock()
		if again && ctx.Err() == nil {
			s.mu.Lock()
			s.catalogsNeededLocked()
			s.mu.Unlock()
		}
	}()
	s.mu.Lock()
	w, set := s.world, s.settings
	s.mu.Unlock()
	c := set.catalog()
	if w == nil || c == nil {
		return
	}
	key := strings.Join(set.SchemaCatalogs, "\x00") + "\x00" + set.SchemaCatalogRefresh
	missing := w.MissingKinds()
	kinds := missing[:0:0]
	s.cat.mu.Lock()
	if s.cat.key != key {
		s.cat.key, s.cat.tried = key, map[string]bool{}
	}
	for _, g := range missing {
		if !s.cat.tried[g.String()] {
			s.cat.tried[g.String()] = true
			kinds = append(kinds, g)
		}
	}
	s.cat.mu.Unlock()
	if len(kinds) == 0 {
		return
	}
	var add []schemas.FileInput
	for _, r := range loader.FetchCatalog(ctx, c, kinds) {
		if r.Err != nil {
			s.log.Warn("schema catalog", "kind", r.GVK.String(), "error", r.Err)
			s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("crd-lsp: schema catalog lookup of %s %s failed: %v", r.GVK.APIVersion(), r.GVK.Kind, r.Err))
		}
		if r.Input.Content != nil {
			add = append(add, r.Input)
		}
	}
	if len(add) == 0 || ctx.Err() != nil {
		return
	}
	// Inserting indexed catalog schemas is cheap: done under the lock, on
	// whatever World is current now.
	if _, next := s.updateWorld(ctx, worldUpdate{cheap: true, build: func(base *loader.World, _ map[uri.URI]*document.File) *loader.World { return base.WithCatalog(add) }}); next == nil {
		return
	}
	s.log.Info("schema catalog", "schemas", len(add))
	s.diag.scheduleAll()
}
