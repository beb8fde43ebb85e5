package loader

import (
	"context"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// FindMetas finds and parses the package root files (crossplane.yaml,
// crossplane-project.yaml, upbound.yaml) under each root (a
// folder, scanned as Load scans it, or a package metadata file itself),
// for front ends that need the package metadata only (crd-lsp pull): no
// other file is read. They are sorted by path.
func FindMetas(ctx context.Context, roots []string, opts workspace.Options) ([]*packages.Meta, []workspace.Skipped, error) {
	if len(opts.Include) == 0 {
		// Only crossplane.yaml files are read (the scan's other rules,
		// skipped folders and excludes, still apply).
		for _, name := range packages.MetaFileNames {
			opts.Include = append(opts.Include, "**/"+name)
		}
	}
	var out []*packages.Meta
	var skipped []workspace.Skipped
	seen := map[string]bool{}
	for _, root := range roots {
		sk, err := visitPath(ctx, root, opts, false, func(p string, content []byte) {
			if (p == root || packages.IsMetaFile(p)) && !seen[p] {
				seen[p] = true
				out = append(out, packages.ParseMeta(p, content))
			}
		})
		if err != nil {
			return nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, skipped, nil
}
