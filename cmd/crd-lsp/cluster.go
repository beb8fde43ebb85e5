// This file holds render's and check's flags for what the cluster holds
// (--extra-resources, --context-files), as crossplane render's.

package main

import (
	"github.com/spf13/pflag"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/loader"
)

// clusterOptions are render's and check's flags that say what the cluster holds, as
// crossplane render's: the logic is loader.ReadCluster's.
type clusterOptions struct {
	extra    stringList
	contexts stringList
}

// register adds the flags; the pipeline's context is --context-files
// (crossplane render's name) and, where no kubeconfig context needs the
// name (render), also --context.
func (o *clusterOptions) register(fs *pflag.FlagSet, contextToo bool) {
	fs.Var(&o.extra, "extra-resources", "a file of resources the cluster holds, as crossplane render takes: its EnvironmentConfigs (then the only ones, instead of the workspace's) and the resources functions require (repeatable)")
	const usage = "KEY=FILE: the pipeline's context starts with KEY set to the JSON or YAML value in FILE (apiextensions.crossplane.io/environment is the environment; repeatable)"
	fs.Var(&o.contexts, "context-files", usage)
	if contextToo {
		fs.Var(&o.contexts, "context", usage+"; the same as --context-files")
	}
}

func (o *clusterOptions) read() (analysis.Cluster, error) {
	return loader.ReadCluster(o.extra, o.contexts)
}
