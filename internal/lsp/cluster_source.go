// This file reads the live cluster settings (crdLsp.cluster).

package lsp

import (
	"fmt"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/remote"
)

// A live cluster (crdLsp.cluster): the CRDs it serves. A load serves the
// cluster's cached copy; then the sources' refresher (sources.go) reads
// the cluster, once per load (never per keystroke): a cluster that cannot
// be read keeps its cached copy, said in a message naming the context and
// the reason.

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
