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
