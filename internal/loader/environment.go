// This file finds the EnvironmentConfigs a Composition is rendered with.

package loader

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// holdsEnvironmentConfig says whether a file holds an EnvironmentConfig.
func holdsEnvironmentConfig(hs []workspace.Header) bool {
	for _, h := range hs {
		if h.Kind == "EnvironmentConfig" && strings.HasPrefix(h.APIVersion, environmentconfigs.Group+"/") {
			return true
		}
	}
	return false
}

// envFile is a file's EnvironmentConfigs, decoded on first use: a
// World keeps the file's text (a few hundred bytes an EnvironmentConfig)
// rather than their objects (about 1.3 KB each as maps) until a
// Composition under them is rendered, and check does not hold 100,000
// decoded objects while it validates every file. Decoding is
// deterministic, so the record stays immutable as seen from outside.
type envFile struct {
	once sync.Once
	path string
	text []byte // until decoded
	objs []map[string]any
}

// configs are the file's EnvironmentConfigs, in document order.
func (e *envFile) configs() []map[string]any {
	e.once.Do(func() {
		for _, o := range analysis.ObjectsIn(e.path, e.text) {
			if environmentconfigs.IsConfig(o.Object) {
				e.objs = append(e.objs, o.Object)
			}
		}
		e.text = nil
	})
	return e.objs
}

// EnvironmentConfigs are the EnvironmentConfigs a Composition at path is
// rendered with, best first: those of the workspace under the deepest
// folder above it that holds any (a folder of e2e tests or examples,
// each with its own, sees its own), the nearest first, then the cached
// packages'.
func (w *World) EnvironmentConfigs(path string) []map[string]any {
	if len(w.index().envConfigs) == 0 {
		return w.sourceEnvironmentConfigs()
	}
	if v, ok := w.envByDir.Load(filepath.Dir(path)); ok {
		return v.([]map[string]any)
	}
	var files []string
	for dir := filepath.Dir(path); len(files) == 0; dir = filepath.Dir(dir) {
		for _, p := range w.index().envConfigs {
			if workspace.IsUnder(dir, p) && len(w.files[p].env.configs()) > 0 {
				files = append(files, p)
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	near := func(p string) int { // the length of the folder shared with path
		n := 0
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			if workspace.IsUnder(dir, path) {
				n = len(dir)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		return n
	}
	sort.Slice(files, func(i, j int) bool {
		if ni, nj := near(files[i]), near(files[j]); ni != nj {
			return ni > nj
		}
		return files[i] < files[j]
	})
	var out []map[string]any
	for _, p := range files {
		out = append(out, w.files[p].env.configs()...)
	}
	out = append(out, w.sourceEnvironmentConfigs()...)
	w.envByDir.Store(filepath.Dir(path), out)
	return out
}

// packageEnvironmentConfigs are the EnvironmentConfigs packages hold.
func packageEnvironmentConfigs(files []schemas.FileInput) []map[string]any {
	var out []map[string]any
	for _, f := range files {
		if !bytes.Contains(f.Content, []byte("EnvironmentConfig")) || !holdsEnvironmentConfig(workspace.Headers(f.Content)) {
			continue
		}
		for _, o := range analysis.ObjectsIn(f.Path, f.Content) {
			if environmentconfigs.IsConfig(o.Object) {
				out = append(out, o.Object)
			}
		}
	}
	return out
}
