package loader

import (
	"context"
	"fmt"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// CRD sources (Config.CRDSources): CRDs named by URL or oci:// Helm chart
// (crdSource, one of sourcesOf's sources), kept in the package cache.
// They rank as packages do: a dependency the user named.

// CRDSourceInput is a CRD source as a store input.
func CRDSourceInput(s *remote.CRDSource) schemas.FileInput {
	v := s.Digest
	if len(v) > len("sha256:")+12 {
		v = v[:len("sha256:")+12]
	}
	return schemas.FileInput{Source: schemas.Source{Kind: schemas.SourcePackage, Name: s.Ref, Version: v, File: s.Path}, Path: s.Path, Content: s.YAML}
}

// crdSource is the configured CRD sources as a Source.
type crdSource struct {
	c    *packages.Client
	refs []string
}

func (crdSource) Name() SourceName         { return SourceCRDSources }
func (crdSource) Rank() schemas.SourceKind { return schemas.SourcePackage }
func (crdSource) Refresh() Refresh         { return Refresh{On: AfterLoad, InCheck: true} }
func (s crdSource) config() string         { return fmt.Sprintf("%p\x00", s.c) + strings.Join(s.refs, "\x00") }

func (crdSource) Announce(*World) (string, string) { return "", "" }

// Cached serves the CRD sources the package cache holds.
func (s crdSource) Cached(*World) Served {
	var sv Served
	for _, ref := range s.refs {
		if cs, err := remote.CachedCRDs(s.c, ref); err == nil {
			sv.Inputs = append(sv.Inputs, CRDSourceInput(cs))
		}
	}
	return sv
}

// Fetch reads every CRD source from where it lives (the network); one
// that cannot be read serves its cached copy, if any.
func (s crdSource) Fetch(ctx context.Context, _ *World) Fetched {
	f := Fetched{Source: SourceCRDSources, config: s.config()}
	for _, ref := range s.refs {
		cs, err := remote.FetchCRDs(ctx, s.c, ref)
		if err != nil {
			f.Problems = append(f.Problems, err.Error())
		}
		if cs != nil {
			f.Served.Inputs = append(f.Served.Inputs, CRDSourceInput(cs))
		}
	}
	if ctx.Err() != nil {
		return Fetched{Source: SourceCRDSources}
	}
	f.apply = true
	f.Done = fmt.Sprintf("%d of %d CRD sources read", len(f.Served.Inputs), len(s.refs))
	f.Summary = f.Done
	return f
}
