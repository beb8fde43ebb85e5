// This file derives new Worlds: file edits, disk changes and package
// outcomes.

package loader

import (
	"maps"
	"slices"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// clone copies the World's maps for a With* method.
func (w *World) clone(changed map[string]bool) *World {
	c := &World{cfg: w.cfg, setMajor: w.setMajor, schemaGen: w.schemaGen, functionsGen: w.functionsGen, shared: maps.Clone(w.shared), metas: maps.Clone(w.metas),
		results: w.results, pkgs: w.pkgs, catalog: w.catalog, crdSources: w.crdSources, liveCluster: w.liveCluster, headers: maps.Clone(w.headers), texts: maps.Clone(w.texts), stores: w.stores,
		functions: maps.Clone(w.functions), patches: maps.Clone(w.patches), charts: maps.Clone(w.charts), chainsaw: maps.Clone(w.chainsaw), composed: maps.Clone(w.composed),
		envConfigs: maps.Clone(w.envConfigs), pkgEnvConfigs: w.pkgEnvConfigs}
	// The objects of files that did not change stay parsed.
	w.parsed.Range(func(k, v any) bool {
		if !changed[k.(string)] {
			c.parsed.Store(k, v)
		}
		return true
	})
	return c
}

// A fileChange is a file's new content (nil: removed); open, when set,
// reads it again from disk (a schema file's text is then dropped once
// indexed, as in a load).
type fileChange struct {
	path    string
	content []byte
	open    func() ([]byte, error)
}

// WithFile is the World with path's content replaced (an open buffer);
// nil content removes the file.
func (w *World) WithFile(path string, content []byte) *World {
	return w.withFiles([]fileChange{{path: path, content: content}})
}

// WithDiskFiles is the World with files just read from disk (within limit
// bytes; nil Content: removed) in place of what it held of them, in one
// step: as in a load, a schema file's text is dropped once indexed and
// read again on first use.
func (w *World) WithDiskFiles(files []workspace.File, limit int64) *World {
	if limit <= 0 {
		limit = workspace.DefaultMaxFileSize
	}
	changes := make([]fileChange, len(files))
	for i, f := range files {
		changes[i] = fileChange{path: f.Path, content: f.Content}
		if f.Content != nil {
			changes[i].open = reopen(f.Path, limit)
		}
	}
	return w.withFiles(changes)
}

func (w *World) withFiles(changes []fileChange) *World {
	builtins := mustBuiltins()
	changed := map[string]bool{}
	for _, ch := range changes {
		if !w.unaffected(builtins, ch.path, ch.content) {
			changed[ch.path] = true
		}
	}
	if len(changed) == 0 {
		return w // (the usual keystroke in a Composition or a built-in kind)
	}
	c := w.clone(changed)
	var schemaPaths []string
	metaChanged, functionsChanged, rolesChanged, envChanged := false, false, false, false
	for _, ch := range changes {
		if !changed[ch.path] {
			continue
		}
		wasSchema, wasMeta := w.shared[ch.path].Indexed != nil, w.metas[ch.path] != nil
		c.addFile(builtins, ch.path, ch.content, ch.open, false)
		functionsChanged = functionsChanged || w.functions[ch.path] != nil || c.functions[ch.path] != nil
		envChanged = envChanged || w.envConfigs[ch.path] != nil || c.envConfigs[ch.path] != nil
		rolesChanged = rolesChanged || !slices.Equal(w.patches[ch.path], c.patches[ch.path]) || isChartFile(ch.path) ||
			!slices.Equal(w.chainsaw[ch.path], c.chainsaw[ch.path])
		if wasSchema || c.shared[ch.path].Indexed != nil {
			schemaPaths = append(schemaPaths, ch.path)
		}
		metaChanged = metaChanged || wasMeta || c.metas[ch.path] != nil
	}
	if len(schemaPaths) > 0 || metaChanged || rolesChanged || envChanged {
		c.schemaGen++
	}
	if functionsChanged {
		c.functionsGen++
	}
	if len(schemaPaths) > 0 {
		var add []schemas.FileInput
		for _, p := range schemaPaths {
			if in := c.shared[p]; in.Indexed != nil {
				add = append(add, in)
			}
		}
		stores := make(map[int]*schemas.Store, len(w.stores))
		for m, st := range w.stores {
			for _, p := range schemaPaths {
				if c.shared[p].Indexed == nil {
					st = st.WithoutFile(p)
				}
			}
			stores[m] = st.WithFiles(add)
		}
		c.stores = stores
	}
	if metaChanged {
		// A crossplane.yaml may target a Crossplane major no store serves
		// yet (its dependencies change with the next package refresh).
		c.addMissingStores()
	}
	return c
}

// unaffected reports whether content (nil: removed) for p leaves
// everything the World records of p as it is: no schema, package
// metadata, example text or Function before or after, and the same kinds.
func (w *World) unaffected(builtins *schemas.Store, p string, content []byte) bool {
	if w.shared[p].Indexed != nil || w.metas[p] != nil || w.texts[p] != nil || w.functions[p] != nil || w.patches[p] != nil || workspace.IsKustomization(p) || isChartFile(p) || w.chainsaw[p] != nil || w.envConfigs[p] != nil {
		return false
	}
	if content == nil {
		return w.headers[p] == nil
	}
	if packages.IsMetaFile(p) || workspace.MayDefineSchemas(content) {
		return false
	}
	h := workspace.Headers(content)
	return slices.Equal(h, w.headers[p]) && !mayHoldExample(builtins, h) && !holdsFunction(h) && !workspace.IsChainsawTest(h) && !holdsEnvironmentConfig(h) &&
		slices.Equal(composedKinds(h, content), w.composed[p])
}

// addMissingStores builds the stores of majors that files now target and
// no store serves.
func (w *World) addMissingStores() {
	var missing []int
	for p := range w.metas {
		if m, ok := w.metaMajor(p); ok && w.stores[m] == nil {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return
	}
	stores := make(map[int]*schemas.Store, len(w.stores)+len(missing))
	for m, st := range w.stores {
		stores[m] = st
	}
	inputs := w.inputs()
	for _, m := range missing {
		st, err := workspace.Builtins(m)
		if err != nil || st == nil {
			st = schemas.NewStore()
		}
		stores[m] = st.WithFiles(inputs)
	}
	w.stores = stores
}

// WithPackages is the World with new dependency outcomes (from the
// registries) and their packages' schemas: files, when not nil, are those
// schemas already indexed by the caller (see schemas.Index); else they are
// taken from the results.
func (w *World) WithPackages(results map[string][]packages.Result, files []schemas.FileInput) *World {
	c := w.clone(nil)
	c.results = results
	if files == nil {
		files = PackageFiles(results)
	}
	c.pkgs = files
	c.pkgEnvConfigs = packageEnvironmentConfigs(files)
	c.schemaGen++
	stores := make(map[int]*schemas.Store, len(w.stores))
	for m, st := range w.stores {
		for _, old := range w.pkgs {
			st = st.WithoutFile(old.Path)
		}
		stores[m] = st.WithFiles(files)
	}
	c.stores = stores
	return c
}
