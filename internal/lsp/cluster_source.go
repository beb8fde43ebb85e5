// This file reads a live cluster's CRDs when crdLsp.cluster enables it, and
// adds them to the World.

package lsp

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/remote"
)

// A live cluster (crdLsp.cluster): the CRDs it serves. A load serves the
// cluster's cached copy; then the cluster is read in the background, once
// per load (never per keystroke): a cluster that cannot be read keeps its
// cached copy, said in a message naming the context and the reason.

// ClusterSettings are crdLsp.cluster: off unless Enabled.
type ClusterSettings struct {
	Enabled bool `json:"enabled,omitempty"`
	// Kubeconfig is the kubeconfig file ("": $KUBECONFIG, else
	// ~/.kube/config, as kubectl).
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Context is the kubeconfig's context ("": its current context).
	Context string `json:"context,omitempty"`
	// Timeout bounds one read of the cluster (a Go duration; default
	// remote.DefaultClusterTimeout): past it, the cached copy serves.
	Timeout string `json:"timeout,omitempty"`
}

// checkClusterSettings says what is wrong with crdLsp.cluster.
func checkClusterSettings(set Settings) error {
	if set.Cluster.Timeout == "" {
		return nil
	}
	if d, err := time.ParseDuration(set.Cluster.Timeout); err != nil {
		return fmt.Errorf("crdLsp.cluster.timeout: %w", err)
	} else if d <= 0 {
		return fmt.Errorf("crdLsp.cluster.timeout: %q is not a positive duration", set.Cluster.Timeout)
	}
	return nil
}

// clusterSource is the cluster the settings name (nil: none).
func (set Settings) clusterSource() *remote.ClusterSource {
	if !set.Cluster.Enabled {
		return nil
	}
	timeout, _ := time.ParseDuration(set.Cluster.Timeout) // checked by parseSettings
	return &remote.ClusterSource{Kubeconfig: set.Cluster.Kubeconfig, Context: set.Cluster.Context, Timeout: timeout}
}

// cachedCluster is w with the cluster's cached copy.
func (s *server) cachedCluster(w *loader.World, set Settings) *loader.World {
	c := set.clusterSource()
	if c == nil {
		return w
	}
	snap, err := c.CachedCluster()
	if err != nil {
		return w
	}
	return w.WithClusterSource(snap)
}

// refreshCluster reads the cluster (bounded by its timeout) and adds its
// CRDs to the World.
func (s *server) refreshCluster(ctx context.Context) {
	s.mu.Lock()
	set := s.settings
	s.mu.Unlock()
	c := set.clusterSource()
	if c == nil {
		return
	}
	name := set.Cluster.Context
	if name == "" {
		name = "the current context"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.logMessage(protocol.MessageTypeInfo, "crd-lsp: reading the CRDs of cluster "+name+"…")
	prog := s.beginProgress(ctx, cancel, "crd-lsp: cluster", "Reading the CRDs of "+name)
	snap, err := loader.FetchClusterSource(ctx, c)
	if ctx.Err() != nil {
		prog.end("cancelled")
		return
	}
	if err != nil {
		prog.end(err.Error())
		s.log.Warn("cluster", "error", err)
		msg := "crd-lsp: " + err.Error()
		if snap != nil {
			msg += "; using the copy read " + snap.ReadAt.Local().Format(time.RFC3339)
		}
		s.logMessage(protocol.MessageTypeWarning, msg)
		return // the cached copy is in place since the load
	}
	read := fmt.Sprintf("%d CRDs read", len(snap.CRDs))
	if len(snap.Downloaded) < len(snap.CRDs) {
		read += fmt.Sprintf(", %d downloaded (new or changed since the cached copy)", len(snap.Downloaded))
	}
	prog.end(read)
	// Not loaded, or superseded by new settings (and their reload): nothing.
	_, w := s.updateWorld(ctx, worldUpdate{cheap: true,
		current: func(now Settings) bool { return now.Cluster == set.Cluster },
		build: func(base *loader.World, _ map[uri.URI]*document.File) *loader.World {
			return base.WithClusterSource(snap)
		}})
	if w == nil {
		return
	}
	s.kubernetesNote(w)
	version := ""
	if snap.Version != "" {
		version = ", server " + snap.Version
	}
	s.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("crd-lsp: cluster %q: %s%s", snap.Context, read, version))
	s.diag.scheduleAll()
}
