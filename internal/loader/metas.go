package loader

import (
	"context"
	"path/filepath"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// MetaFile is a crossplane.yaml: its text and what packages.ParseMeta
// read from it.
type MetaFile struct {
	Meta *packages.Meta
	Text []byte
}

// Metas finds and parses the crossplane.yaml files under each root (a
// folder, scanned as Load scans it, or a package metadata file itself), for
// front ends that need the package metadata only (crd-lsp pull): no
// schema is read or indexed. They are sorted by path.
func Metas(ctx context.Context, roots []string, opts workspace.Options) ([]MetaFile, []workspace.Skipped, error) {
	if len(opts.Include) == 0 {
		// Only crossplane.yaml files are read (the scan's other rules,
		// skipped folders and excludes, still apply).
		opts.Include = []string{"**/crossplane.yaml"}
	}
	var out []MetaFile
	var skipped []workspace.Skipped
	seen := map[string]bool{}
	for _, root := range roots {
		sk, err := visitPath(ctx, root, opts, false, func(p string, content []byte) {
			if (p == root || filepath.Base(p) == "crossplane.yaml") && !seen[p] {
				seen[p] = true
				out = append(out, MetaFile{Meta: packages.ParseMeta(p, content), Text: content})
			}
		})
		if err != nil {
			return nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.Path < out[j].Meta.Path })
	return out, skipped, nil
}
