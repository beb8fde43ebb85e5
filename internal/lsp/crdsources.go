// This file reads the configured CRD sources (crdLsp.crdSources) and adds
// their CRDs to the World.

package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// CRD sources (crdLsp.crdSources): CRDs named by URL or oci:// Helm chart
// reference. A load serves them from the package cache; then they are
// read from their sources in the background (a source that cannot be
// read keeps its cached copy, said in the log), added to the World, and
// the open documents are diagnosed again.

// refreshCRDSources reads the CRD sources from where they live.
func (s *server) refreshCRDSources(ctx context.Context) {
	s.mu.Lock()
	set := s.settings
	s.mu.Unlock()
	if len(set.CRDSources) == 0 {
		return
	}
	c, err := s.pkgClient(set)
	if err != nil {
		s.log.Warn("package cache unavailable", "error", err)
		return
	}
	var in []schemas.FileInput
	for _, r := range loader.FetchCRDSources(ctx, c, set.CRDSources) {
		if r.Err != nil {
			s.log.Warn("CRD source", "source", r.Ref, "error", r.Err)
			s.logMessage(protocol.MessageTypeWarning, "crd-lsp: "+r.Err.Error())
		}
		if r.Input.Content != nil {
			in = append(in, r.Input)
		}
	}
	if ctx.Err() != nil {
		return
	}
	// Not loaded, or superseded by new settings (and their reload): nothing.
	if _, next := s.updateWorld(ctx, worldUpdate{cheap: true,
		current: func(now Settings) bool { return equalStrings(now.CRDSources, set.CRDSources) },
		build:   func(base *loader.World, _ map[uri.URI]*document.File) *loader.World { return base.WithCRDSources(in) }}); next == nil {
		return
	}
	s.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("crd-lsp: %d of %d CRD sources read", len(in), len(set.CRDSources)))
	s.diag.scheduleAll()
}
