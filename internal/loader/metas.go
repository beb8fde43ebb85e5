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
	var out []MetaFile
	var skipped []workspace.Skipped
	seen := map[string]bool{}
	for _, root := range roots {
		named := func(p string, _ []byte) bool { return p == root || filepath.Base(p) == "crossplane.yaml" }
		files, sk, err := scanPath(ctx, root, opts, named)
		if err != nil {
			return nil, nil, err
		}
		skipped = append(skipped, sk...)
		for _, f := range files {
			if !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, MetaFile{Meta: packages.ParseMeta(f.Path, f.Content), Text: f.Content})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.Path < out[j].Meta.Path })
	return out, skipped, nil
}
