// This file reads which files a kustomization applies as patches.

package workspace

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// IsKustomization reports whether path names a file kustomize reads a
// kustomization (or component) from.
func IsKustomization(path string) bool {
	switch filepath.Base(path) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// KustomizePatches are the files the kustomization at path (holding
// content) applies as patches, as clean absolute paths: the entries of
// patchesStrategicMerge that name files, and the path of every patches
// and patchesJson6902 entry (or the entry itself, a bare file name). Inline patches and remote URLs are not files;
// a kustomization that does not parse names none (kustomize reports it).
func KustomizePatches(path string, content []byte) []string {
	var k struct {
		PatchesStrategicMerge []any `yaml:"patchesStrategicMerge"`
		Patches               []any `yaml:"patches"`
		PatchesJSON6902       []any `yaml:"patchesJson6902"`
	}
	if yaml.Unmarshal(content, &k) != nil {
		return nil
	}
	dir := filepath.Dir(path)
	var out []string
	add := func(p string) {
		if p == "" || strings.ContainsAny(p, "\n") || strings.Contains(p, "://") {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		out = append(out, filepath.Clean(p))
	}
	for _, e := range k.PatchesStrategicMerge {
		if s, ok := e.(string); ok {
			add(s)
		}
	}
	for _, e := range append(k.Patches, k.PatchesJSON6902...) {
		switch e := e.(type) {
		case map[string]any:
			if s, ok := e["path"].(string); ok {
				add(s)
			}
		case string: // a bare file name, as patchesStrategicMerge lists them
			add(e)
		}
	}
	return out
}
