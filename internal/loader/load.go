// This file loads a World from disk: the scan, each file's facts, the
// stores.

package loader

import (
	"bytes"
	"context"
	"os"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Files are the files a Load kept, for callers that check them all
// (KeepAll), sorted by path.
type Files []workspace.File

// Load reads a workspace from disk: every root is scanned once; schema
// files, crossplane.yaml files (their dependencies served from the package
// cache), and objects that may be example composites are gathered into a
// World. The files kept (all with KeepAll) are returned too, with what was
// skipped and why.
func Load(ctx context.Context, cfg Config) (*World, Files, []workspace.Skipped, error) {
	w := &World{cfg: cfg, files: map[string]*fileFacts{}, ix: &worldIndex{}}
	w.setMajor = workspace.DefaultCrossplaneMajor
	if m, ok := workspace.ParseMajor(cfg.CrossplaneVersion); ok {
		w.setMajor = m
	}
	var kept Files
	var skipped []workspace.Skipped
	builtins := mustBuiltins()
	for _, dir := range cfg.SchemaDirs {
		// Unused definitions cost their index entries only (schemadirs.go).
		sk, err := w.loadSchemaDir(ctx, dir, int64(workspace.DefaultMaxFileSize))
		if err != nil {
			return nil, nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	for _, root := range cfg.Roots {
		limit := cfg.Options.MaxFileSize
		if limit <= 0 {
			limit = workspace.DefaultMaxFileSize
		}
		// Without KeepAll, files are read into one reused buffer: addFile
		// copies what it keeps.
		sk, err := visitPath(ctx, root, cfg.Options, !cfg.KeepAll, func(p string, c []byte) {
			w.addFile(builtins, p, c, reopen(p, limit), !cfg.KeepAll)
			if cfg.KeepAll {
				kept = append(kept, workspace.File{Path: p, Content: c})
			}
		})
		if err != nil {
			return nil, nil, nil, err
		}
		skipped = append(skipped, sk...)
	}
	for _, f := range cfg.Files {
		w.addFile(builtins, f.Path, f.Content, nil, false)
		kept = append(kept, f)
	}
	w.sources = sourcesOf(cfg)
	w.serveCached()
	sort.Slice(kept, func(i, j int) bool { return kept[i].Path < kept[j].Path })
	return w, kept, skipped, nil
}

// visitPath hands each YAML file under a folder (or the one file p) to
// visit; transient reads them into one reused buffer, valid only during
// the call.
func visitPath(ctx context.Context, p string, opts workspace.Options, transient bool, visit func(string, []byte)) ([]workspace.Skipped, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		limit := opts.MaxFileSize
		if limit <= 0 {
			limit = workspace.DefaultMaxFileSize
		}
		content, err := workspace.ReadFile(p, limit)
		if err != nil {
			return nil, err
		}
		visit(p, content)
		return nil, nil
	}
	if transient {
		return workspace.ScanTransient(ctx, p, opts, visit)
	}
	_, skipped, err := workspace.Scan(ctx, p, opts, func(path string, content []byte) bool {
		visit(path, content)
		return false
	})
	return skipped, err
}

// indexFile indexes a schema file of the workspace or --schemas; with
// open, the index keeps no text.
func indexFile(p string, content []byte, open func() ([]byte, error)) schemas.FileInput {
	in := schemas.FileInput{Source: workspace.Source(p), Path: p, Content: content, Open: open}
	in.Indexed = schemas.IndexInput(in)
	in.Content, in.Open = nil, nil
	return in
}

// reopen reads a workspace file again (the stores' FileInput.Open).
func reopen(p string, limit int64) func() ([]byte, error) {
	return func() ([]byte, error) { return workspace.ReadFile(p, limit) }
}

// addFile records one workspace file's content (nil content forgets it).
// open reads the file again (nil: content is not on disk as given, an
// open buffer or stdin); with it, schema files keep no text. Only the
// texts of files that may hold example composites are kept: objects of
// custom kinds (builtins is the built-in store that says which kinds are
// not). transient: content is valid only during the call (copied where
// kept).
func (w *World) addFile(builtins *schemas.Store, p string, content []byte, open func() ([]byte, error), transient bool) {
	delete(w.files, p)
	if content == nil {
		return
	}
	f := &fileFacts{chart: isChartFile(p)}
	if workspace.IsKustomization(p) {
		if ps := workspace.KustomizePatches(p, content); len(ps) > 0 {
			f.patches = ps
		}
		f.kustomize = workspace.ReadKustomizeRefs(p, content)
	}
	if workspace.MayDefineSchemas(content) && w.searchesSchemas(p) {
		text := content
		if open == nil {
			text = bytes.Clone(content) // the index keeps sub-slices of it
		}
		in := indexFile(p, text, open)
		f.schema = &in
	}
	var kept []byte // content, copied once if transient
	keep := func() []byte {
		if kept == nil {
			kept = content
			if transient {
				kept = bytes.Clone(content)
			}
		}
		return kept
	}
	if packages.IsMetaFile(p) {
		f.meta = packages.ParseMeta(p, keep())
	}
	if h := workspace.Headers(content); len(h) > 0 {
		f.headers = h
		if ks := composedKinds(h, content); len(ks) > 0 {
			f.composed = ks
		}
		if workspace.IsChainsawTest(h) {
			if uses := workspace.ChainsawUses(p, content); len(uses) > 0 {
				f.chainsaw = uses
			}
		}
		if mayHoldExample(builtins, h) {
			f.text = keep()
		}
		if holdsEnvironmentConfig(h) {
			f.env = &envFile{path: p, text: keep()}
		}
		if holdsFunction(h) {
			// A document that does not parse is skipped; the file's own
			// diagnostics say why.
			if fns, _ := functions.ParseFunctions(content); len(fns) > 0 {
				f.functions = fns
			}
		}
	}
	if !f.empty() {
		w.files[p] = f
	}
}

// searchesSchemas reports whether definitions in p count: SchemaScope's
// globs apply under the root that holds p (files outside every root, such
// as an open buffer elsewhere, always count).
func (w *World) searchesSchemas(p string) bool {
	scope := w.cfg.SchemaScope
	if len(scope.Include) == 0 && len(scope.Exclude) == 0 {
		return true
	}
	for _, r := range w.cfg.Roots {
		if workspace.IsUnder(r, p) {
			return workspace.Matches(r, p, scope)
		}
	}
	return true
}

func mayHoldExample(builtins *schemas.Store, hs []workspace.Header) bool {
	for _, h := range hs {
		if builtins == nil || len(builtins.Candidates(gvk.Parse(h.APIVersion, h.Kind))) == 0 {
			return true
		}
	}
	return false
}

// buildStores builds a store for every Crossplane major a file of the
// workspace targets: built-ins of that major plus the shared inputs.
func (w *World) buildStores() {
	w.stores = map[int]*schemas.Store{}
	majors := map[int]bool{w.setMajor: true}
	for _, p := range w.index().metas {
		if m, ok := w.metaMajor(p); ok {
			majors[m] = true
		}
	}
	inputs := w.inputs()
	for m := range majors {
		w.stores[m] = w.builtins(m).WithFiles(inputs)
	}
}

// inputs are the shared schema inputs in a stable order.
func (w *World) inputs() []schemas.FileInput {
	out := make([]schemas.FileInput, 0, w.index().schemaFiles)
	for _, f := range w.files {
		if f.schema != nil {
			out = append(out, *f.schema)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return append(out, w.sourceInputs()...)
}

func mustBuiltins() *schemas.Store {
	st, _ := workspace.Builtins(workspace.DefaultCrossplaneMajor)
	return st
}
