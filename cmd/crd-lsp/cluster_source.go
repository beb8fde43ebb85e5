// This file holds check's live cluster flags (the CRDs a cluster serves, read
// with the kubeconfig's credentials); loader.FetchForCheck reads the
// cluster before the files are checked.

package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/crd-lsp/crd-lsp/internal/remote"
)

// clusterSourceOptions are check's live cluster flags: the CRDs a
// cluster serves, read with the kubeconfig's credentials as kubectl would.
type clusterSourceOptions struct {
	enabled    bool
	context    string
	kubeconfig string
	timeout    time.Duration
}

func (o *clusterSourceOptions) register(fs *pflag.FlagSet) {
	fs.BoolVar(&o.enabled, "cluster", false, "also use the CRDs a live cluster serves (read-only: the server version and the CRDs, cached per cluster; with a cached copy only the CRDs whose resourceVersion changed are downloaded, and the copy is used when the cluster is unreachable). Workspace and package schemas win")
	fs.StringVar(&o.context, "context", "", "the kubeconfig context of --cluster (default: the current context)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig of --cluster (default: $KUBECONFIG, else ~/.kube/config)")
	fs.DurationVar(&o.timeout, "cluster-timeout", remote.DefaultClusterTimeout, "how long --cluster waits for the cluster before using its cached copy")
}

// source is the cluster the flags name (nil: none).
func (o *clusterSourceOptions) source() (*remote.ClusterSource, error) {
	if !o.enabled {
		if o.context != "" || o.kubeconfig != "" {
			return nil, fmt.Errorf("--context and --kubeconfig name the cluster of --cluster, which is not given")
		}
		return nil, nil
	}
	return &remote.ClusterSource{Kubeconfig: o.kubeconfig, Context: o.context, Timeout: o.timeout}, nil
}
