package loader

import (
	"bytes"
	"context"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// A live cluster (Config.ClusterSource): the CRDs it serves. Load serves
// the cluster's cached snapshot (no network); FetchClusterSource reads the
// cluster for the front end, which adds it with WithClusterSource. They
// rank below the workspace's, packages' and built-in schemas.

// ClusterSourceInput is a cluster snapshot as a store input, indexed once
// for every store it goes into (hundreds of CRDs take a while to index).
func ClusterSourceInput(s *remote.ClusterSnapshot) schemas.FileInput {
	in := schemas.FileInput{
		Source:  schemas.Source{Kind: schemas.SourceCluster, Name: s.Context, Version: s.ReadAt.UTC().Format(time.RFC3339), File: s.Path},
		Path:    s.Path,
		Content: s.YAML,
	}
	in.Indexed = schemas.IndexInput(in)
	return in
}

// loadCachedClusterSource serves the cluster's cached snapshot, if any.
func (w *World) loadCachedClusterSource() {
	if w.cfg.ClusterSource == nil {
		return
	}
	if s, err := w.cfg.ClusterSource.CachedCluster(); err == nil {
		w.liveCluster = []schemas.FileInput{ClusterSourceInput(s)}
		w.clusterVersion = s.Version
	}
}

// FetchClusterSource reads the cluster (the network, bounded by its
// timeout). With an error, the snapshot is the cached copy, if any.
func FetchClusterSource(ctx context.Context, c *remote.ClusterSource) (*remote.ClusterSnapshot, error) {
	return c.ReadCluster(ctx)
}

// WithClusterSource is the World with the cluster's schemas in place of
// the previous ones (nil: none).
func (w *World) WithClusterSource(s *remote.ClusterSnapshot) *World {
	var inputs []schemas.FileInput
	if s != nil {
		inputs = []schemas.FileInput{ClusterSourceInput(s)}
	}
	c := w.clone(nil)
	c.liveCluster = inputs
	c.schemaGen++
	stores := make(map[int]*schemas.Store, len(w.stores))
	for m, st := range w.stores {
		for _, old := range w.liveCluster {
			st = st.WithoutFile(old.Path)
		}
		stores[m] = st.WithFiles(inputs)
	}
	c.stores = stores
	if s != nil && s.Version != "" {
		c.clusterVersion = s.Version
		c.rebuildForCluster()
	}
	return c
}

// ServesCluster reports whether the World's cluster schemas are exactly
// s's CRDs (the same stream from the same cache file) at s's server
// version (which chooses the built-in Kubernetes schemas: a cluster
// upgraded since the cached copy serves the same CRDs), whatever the time
// each copy was read.
func (w *World) ServesCluster(s *remote.ClusterSnapshot) bool {
	return s != nil && len(w.liveCluster) == 1 && w.liveCluster[0].Path == s.Path && bytes.Equal(w.liveCluster[0].Content, s.YAML) &&
		(s.Version == "" || s.Version == w.clusterVersion)
}

// ClusterSource is the configured cluster (nil: none).
func (w *World) ClusterSource() *remote.ClusterSource { return w.cfg.ClusterSource }
