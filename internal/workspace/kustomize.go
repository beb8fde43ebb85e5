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

// KustomizeRefs are the local paths a kustomization names, as clean
// absolute paths: what the loader records of every kustomization so that
// the kustomizations to build (those no other one uses as a base) and the
// files each build reads are known without building.
type KustomizeRefs struct {
	// Entries are its resources, bases and components entries that are
	// local paths: files, or folders holding kustomizations.
	Entries []string
	// Files are the other files it reads: patches, generators' files
	// and env files, crds, configurations, replacements, openapi.
	Files []string
	// Component: its kind is Component (never built on its own).
	Component bool
}

// ReadKustomizeRefs reads the local paths the kustomization at path
// (holding content) names; a kustomization that does not parse names
// none (kustomize reports it when it builds).
func ReadKustomizeRefs(path string, content []byte) *KustomizeRefs {
	var k struct {
		Kind               string           `yaml:"kind"`
		Resources          []any            `yaml:"resources"`
		Bases              []any            `yaml:"bases"`
		Components         []any            `yaml:"components"`
		Crds               []any            `yaml:"crds"`
		Configurations     []any            `yaml:"configurations"`
		Replacements       []any            `yaml:"replacements"`
		OpenAPI            map[string]any   `yaml:"openapi"`
		ConfigMapGenerator []map[string]any `yaml:"configMapGenerator"`
		SecretGenerator    []map[string]any `yaml:"secretGenerator"`
	}
	refs := &KustomizeRefs{}
	if yaml.Unmarshal(content, &k) != nil {
		return refs
	}
	refs.Component = k.Kind == "Component"
	dir := filepath.Dir(path)
	local := func(p string) (string, bool) {
		if p == "" || strings.ContainsAny(p, "\n") || strings.Contains(p, "://") {
			return "", false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		return filepath.Clean(p), true
	}
	for _, list := range [][]any{k.Resources, k.Bases, k.Components} {
		for _, e := range list {
			if s, ok := e.(string); ok {
				if p, ok := local(s); ok {
					refs.Entries = append(refs.Entries, p)
				}
			}
		}
	}
	file := func(s string) {
		if p, ok := local(s); ok {
			refs.Files = append(refs.Files, p)
		}
	}
	for _, list := range [][]any{k.Crds, k.Configurations} {
		for _, e := range list {
			if s, ok := e.(string); ok {
				file(s)
			}
		}
	}
	for _, e := range k.Replacements {
		if m, ok := e.(map[string]any); ok {
			if s, ok := m["path"].(string); ok {
				file(s)
			}
		}
	}
	if s, ok := k.OpenAPI["path"].(string); ok {
		file(s)
	}
	for _, g := range append(k.ConfigMapGenerator, k.SecretGenerator...) {
		for _, key := range []string{"files", "envs"} {
			if l, ok := g[key].([]any); ok {
				for _, e := range l {
					if s, ok := e.(string); ok {
						_, f, found := strings.Cut(s, "=")
						if !found {
							f = s
						}
						file(f)
					}
				}
			}
		}
		if s, ok := g["env"].(string); ok {
			file(s)
		}
	}
	refs.Files = append(refs.Files, KustomizePatches(path, content)...)
	return refs
}
