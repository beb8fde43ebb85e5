// This file derives new Worlds: file edits and disk changes (a schema
// source's fetch: WithFetched, sources.go).

package loader

import (
	"maps"
	"slices"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// clone is the start of a With* method's new World. changed are the
// paths whose records the caller is about to replace: the file map is
// then copied (a map of pointers: the records themselves are immutable
// and shared) and its index rebuilt on first use; with none, the new
// World shares the file map and its index, which nothing then writes.
// The stores, package outcomes and other sources are shared too: a With*
// method replaces, never mutates, what it changes.
func (w *World) clone(changed map[string]bool) *World {
	c := &World{cfg: w.cfg, setMajor: w.setMajor, kube: w.kube, schemaGen: w.schemaGen, functionsGen: w.functionsGen, files: w.files, ix: w.ix,
		sources: w.sources, served: w.served, stores: w.stores}
	if len(changed) > 0 {
		c.files, c.ix = maps.Clone(w.files), &worldIndex{}
	}
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
		c.addFile(builtins, ch.path, ch.content, ch.open, false)
		was, is := w.file(ch.path), c.file(ch.path)
		functionsChanged = functionsChanged || was.functions != nil || is.functions != nil
		envChanged = envChanged || was.env != nil || is.env != nil
		rolesChanged = rolesChanged || !slices.Equal(was.patches, is.patches) || isChartFile(ch.path) ||
			!slices.Equal(was.chainsaw, is.chainsaw) || !sameKustomizeRefs(was.kustomize, is.kustomize)
		if was.indexed() || is.indexed() {
			schemaPaths = append(schemaPaths, ch.path)
		}
		metaChanged = metaChanged || was.meta != nil || is.meta != nil
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
			if f := c.file(p); f.indexed() {
				add = append(add, *f.schema)
			}
		}
		stores := make(map[int]*schemas.Store, len(w.stores))
		for m, st := range w.stores {
			for _, p := range schemaPaths {
				if !c.file(p).indexed() {
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
	f := w.file(p)
	if !f.kindsOnly() || workspace.IsKustomization(p) || isChartFile(p) {
		return false
	}
	if content == nil {
		return f.headers == nil
	}
	if packages.IsMetaFile(p) || workspace.MayDefineSchemas(content) {
		return false
	}
	h := workspace.Headers(content)
	return slices.Equal(h, f.headers) && !mayHoldExample(builtins, h) && !holdsFunction(h) && !workspace.IsChainsawTest(h) && !holdsEnvironmentConfig(h) &&
		slices.Equal(composedKinds(h, content), f.composed)
}

// addMissingStores builds the stores of majors that files now target and
// no store serves.
func (w *World) addMissingStores() {
	var missing []int
	for _, p := range w.index().metas {
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
		stores[m] = w.builtins(m).WithFiles(inputs)
	}
	w.stores = stores
}
