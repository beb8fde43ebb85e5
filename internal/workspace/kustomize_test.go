package workspace

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestKustomizePatches(t *testing.T) {
	dir := filepath.FromSlash("/repo/overlays/prod")
	k := filepath.Join(dir, "kustomization.yaml")
	got := KustomizePatches(k, []byte(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../base
patchesStrategicMerge:
  - replicas.yaml
  - |-
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: inline}
patches:
  - path: webhook/webhook.patch.yaml
  - patch: |-
      - op: replace
        path: /spec/replicas
        value: 3
    target: {kind: Deployment}
  - path: https://example.com/patch.yaml
  - overlays/bare.yaml
patchesJson6902:
  - path: ops.yaml
    target: {group: apps, version: v1, kind: Deployment, name: web}
`))
	want := []string{filepath.Join(dir, "replicas.yaml"), filepath.Join(dir, "webhook", "webhook.patch.yaml"), filepath.Join(dir, "overlays", "bare.yaml"), filepath.Join(dir, "ops.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("patches = %q, want %q", got, want)
	}
	if got := KustomizePatches(k, []byte("patches: [\n")); got != nil {
		t.Errorf("an unparsable kustomization names %q", got)
	}
	if got := KustomizePatches(k, []byte("patches: 3\n")); got != nil {
		t.Errorf("patches: 3 names %q", got)
	}
	for p, want := range map[string]bool{"a/kustomization.yaml": true, "kustomization.yml": true, "x/Kustomization": true, "kustomization.json": false, "my-kustomization.yaml": false} {
		if IsKustomization(p) != want {
			t.Errorf("IsKustomization(%q) = %v", p, !want)
		}
	}
}

// TestReadKustomizeRefs: the local paths a kustomization names, split into
// the entries that may be bases (resources, bases, components) and the
// other files it reads; remote and inline entries are not paths.
func TestReadKustomizeRefs(t *testing.T) {
	dir := filepath.FromSlash("/repo/overlays/prod")
	k := filepath.Join(dir, "kustomization.yaml")
	got := ReadKustomizeRefs(k, []byte(`kind: Kustomization
resources:
  - ../../base
  - https://github.com/org/repo//deploy?ref=v1
  - extra.yaml
bases: [../legacy]
components: [../../components/tls]
crds: [crds/x.yaml]
configurations: [config/names.yaml]
replacements:
  - path: replacements.yaml
  - source: {kind: Service}
openapi: {path: schema.json}
configMapGenerator:
  - name: app
    files: [app.properties, key=other.txt]
    envs: [app.env]
    literals: [A=https://x]
secretGenerator:
  - name: s
    env: secret.env
patches:
  - path: selector.yaml
`))
	j := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	want := &KustomizeRefs{
		Entries: []string{filepath.FromSlash("/repo/base"), j("extra.yaml"), filepath.FromSlash("/repo/overlays/legacy"), filepath.FromSlash("/repo/components/tls")},
		Files:   []string{j("crds/x.yaml"), j("config/names.yaml"), j("replacements.yaml"), j("schema.json"), j("app.properties"), j("other.txt"), j("app.env"), j("secret.env"), j("selector.yaml")},
	}
	if !slices.Equal(got.Entries, want.Entries) || !slices.Equal(got.Files, want.Files) || got.Component {
		t.Errorf("refs = %+v\nwant %+v", got, want)
	}
	if c := ReadKustomizeRefs(k, []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")); !c.Component {
		t.Error("a Component is not marked as one")
	}
	if r := ReadKustomizeRefs(k, []byte("resources: [\n")); r == nil || len(r.Entries)+len(r.Files) > 0 {
		t.Errorf("an unparsable kustomization names %+v", r)
	}
}
