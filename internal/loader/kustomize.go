// This file answers which kustomizations the workspace builds and which
// files each build reads, from what every kustomization names
// (workspace.KustomizeRefs): internal/overlays builds them.

package loader

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Kustomizations are the workspace's kustomization files, by path.
func (w *World) Kustomizations() []string { return w.index().kustomizations }

// KustomizationIn is the kustomization file of the folder dir ("" when the
// World knows none: the first by name when it holds several, which
// kustomize refuses to build).
func (w *World) KustomizationIn(dir string) string {
	return w.index().kustomizeDirs[filepath.Clean(dir)]
}

// KustomizeRoots are the kustomizations to build: every kustomization of
// the workspace that no other one names as a base (a resources or bases
// entry) or component, components left out (kustomize builds them only
// into another); of kustomizations that only name each other (a cycle),
// the first by path, so that the cycle is reported; then the named ones
// (files or their folders) the World knows, each once, in path order.
func (w *World) KustomizeRoots(named []string) []string {
	key := "roots\x00" + strings.Join(named, "\x00")
	if v, ok := w.kustomize.Load(key); ok {
		return v.([]string)
	}
	out := w.kustomizeRoots(named)
	w.kustomize.Store(key, out)
	return out
}

func (w *World) kustomizeRoots(named []string) []string {
	used := map[string]bool{}
	for _, p := range w.index().kustomizations {
		for _, e := range w.files[p].kustomize.Entries {
			used[e] = true
		}
	}
	var out []string
	reached := map[string]bool{}
	var reach func(k string, depth int)
	reach = func(k string, depth int) {
		if reached[k] || depth > maxKustomizeDepth {
			return
		}
		reached[k] = true
		for _, e := range w.files[k].kustomize.Entries {
			if sub := w.KustomizationIn(e); sub != "" {
				reach(sub, depth+1)
			}
		}
	}
	for _, p := range w.index().kustomizations {
		if !used[filepath.Dir(p)] && !w.files[p].kustomize.Component {
			out = append(out, p)
			reach(p, 0)
		}
	}
	for _, p := range w.index().kustomizations {
		if !reached[p] && !w.files[p].kustomize.Component {
			out = append(out, p)
			reach(p, 0)
		}
	}
	for _, n := range named {
		p := filepath.Clean(n)
		if !workspace.IsKustomization(p) {
			p = w.KustomizationIn(p)
		}
		if w.files[p] != nil && w.files[p].kustomize != nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// KustomizeReads are the files the build of the kustomization root reads,
// as far as the kustomizations say: each kustomization it reaches
// through its bases and components, the files they name as resources,
// patches, generator inputs and the like. (A build reads these and no
// others, but a name may be a folder or may not exist: the build
// itself is the judge.) Sorted; root first among them only by path.
func (w *World) KustomizeReads(root string) []string {
	key := "reads\x00" + root
	if v, ok := w.kustomize.Load(key); ok {
		return v.([]string)
	}
	out := w.kustomizeReads(root)
	w.kustomize.Store(key, out)
	return out
}

func (w *World) kustomizeReads(root string) []string {
	seen := map[string]bool{}
	var visit func(k string, depth int)
	visit = func(k string, depth int) {
		if seen[k] || depth > maxKustomizeDepth {
			return
		}
		seen[k] = true
		f := w.files[k]
		if f == nil || f.kustomize == nil {
			return
		}
		for _, p := range f.kustomize.Files {
			seen[p] = true
		}
		for _, e := range f.kustomize.Entries {
			if sub := w.KustomizationIn(e); sub != "" {
				visit(sub, depth+1)
			} else {
				seen[e] = true
			}
		}
	}
	visit(filepath.Clean(root), 0)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// maxKustomizeDepth bounds how deep KustomizeReads follows bases (a cycle
// stops at the first repeat anyway).
const maxKustomizeDepth = 64

// sameKustomizeRefs reports whether two records of a kustomization name
// the same things.
func sameKustomizeRefs(a, b *workspace.KustomizeRefs) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Component == b.Component && slices.Equal(a.Entries, b.Entries) && slices.Equal(a.Files, b.Files)
}
