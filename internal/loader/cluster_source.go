package loader

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// A live cluster (Config.ClusterSource): the CRDs it serves (clusterSource,
// one of sourcesOf's sources). They rank below the workspace's, packages'
// and built-in schemas; the cluster's server version chooses the built-in
// Kubernetes minor (kubernetes.go).

// ClusterSourceInput is a cluster snapshot as a store input, indexed once
// for every store it goes into (hundreds of CRDs take a while to index).
func ClusterSourceInput(s *remote.ClusterSnapshot) schemas.FileInput {
	in := clusterInput(s)
	in.Indexed = schemas.IndexInput(in)
	return in
}

// clusterInput is a snapshot as a store input, not indexed yet.
func clusterInput(s *remote.ClusterSnapshot) schemas.FileInput {
	return schemas.FileInput{
		Source:  schemas.Source{Kind: schemas.SourceCluster, Name: s.Context, Version: s.ReadAt.UTC().Format(time.RFC3339), File: s.Path},
		Path:    s.Path,
		Content: s.YAML,
	}
}

// clusterServed is what a snapshot serves.
func clusterServed(s *remote.ClusterSnapshot) Served {
	return Served{Inputs: []schemas.FileInput{ClusterSourceInput(s)}, KubernetesVersion: s.Version}
}

// clusterSource is a live cluster as a Source.
type clusterSource struct{ c *remote.ClusterSource }

func (clusterSource) Name() SourceName         { return SourceCluster }
func (clusterSource) Rank() schemas.SourceKind { return schemas.SourceCluster }
func (clusterSource) Refresh() Refresh         { return Refresh{On: AfterLoad, InCheck: true} }
func (s clusterSource) config() string         { return fmt.Sprintf("%#v", *s.c) }

// Announce names the context a read reads.
func (s clusterSource) Announce(*World) (string, string) {
	name := s.c.Context
	if name == "" {
		name = "the current context"
	}
	return "cluster", "Reading the CRDs of " + name
}

// Cached serves the cluster's cached snapshot, if any.
func (s clusterSource) Cached(*World) Served {
	snap, err := s.c.CachedCluster()
	if err != nil {
		return Served{}
	}
	return clusterServed(snap)
}

// Fetch reads the cluster (the network, bounded by its timeout). One that
// cannot be read keeps its cached copy, said in the problem.
func (s clusterSource) Fetch(ctx context.Context, w *World) Fetched {
	// The cached stream the World serves stands for the cache file: a
	// cluster's crds.yaml (tens of MB with many CRDs) is then held once,
	// not read a second time to learn what the refresh may skip.
	var held []byte
	if w != nil {
		if sv := w.served[SourceCluster]; len(sv.Inputs) == 1 {
			held = sv.Inputs[0].Content
		}
	}
	snap, err := s.c.ReadClusterHolding(ctx, held)
	if ctx.Err() != nil {
		return Fetched{Source: SourceCluster}
	}
	if err != nil {
		msg := err.Error()
		if snap != nil {
			msg += "; using the copy read " + snap.ReadAt.Local().Format(time.RFC3339)
		} else {
			msg += "; no cached copy: its kinds stay unknown"
		}
		return Fetched{Source: SourceCluster, Problems: []string{msg}, Done: err.Error()}
	}
	f := Fetched{Source: SourceCluster, apply: true, config: s.config(), Same: w.servesCluster(snap)}
	if f.Same {
		// The World serves these CRDs already: check keeps it, and
		// indexing 100,000 CRDs again took 1.3 of its 3.4 CPU-seconds
		// (and held a second index); the editor's WithFetched indexes
		// them with the new read time.
		f.Served = Served{Inputs: []schemas.FileInput{clusterInput(snap)}, KubernetesVersion: snap.Version}
		f.index = true
	} else {
		f.Served = clusterServed(snap)
	}
	f.Done = fmt.Sprintf("%d CRDs read", len(snap.CRDs))
	if len(snap.Downloaded) < len(snap.CRDs) {
		f.Done += fmt.Sprintf(", %d downloaded (new or changed since the cached copy)", len(snap.Downloaded))
	}
	version := ""
	if snap.Version != "" {
		version = ", server " + snap.Version
	}
	f.Summary = fmt.Sprintf("cluster %q: %s%s", snap.Context, f.Done, version)
	return f
}

// servesCluster reports whether the World's cluster schemas are exactly
// s's CRDs (the same stream from the same cache file) at s's server
// version (which chooses the built-in Kubernetes schemas: a cluster
// upgraded since the cached copy serves the same CRDs), whatever the time
// each copy was read.
func (w *World) servesCluster(s *remote.ClusterSnapshot) bool {
	sv := w.served[SourceCluster]
	return s != nil && len(sv.Inputs) == 1 && sv.Inputs[0].Path == s.Path && bytes.Equal(sv.Inputs[0].Content, s.YAML) &&
		(s.Version == "" || s.Version == sv.KubernetesVersion)
}
