package loader

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// storeMinor is the Kubernetes minor of the default store's built-ins.
func storeMinor(t *testing.T, w *World) string {
	t.Helper()
	sc, ok := w.DefaultStore().Lookup(schemas.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	if !ok || sc.Source.Kubernetes == nil {
		t.Fatalf("no built-in Deployment")
	}
	return sc.Source.Kubernetes.Minor
}

// TestKubernetesVersionChoice: the setting wins; without it the cluster's
// server version chooses (the nearest built-in minor when it has none,
// said in the note), and without a cluster the newest applies.
func TestKubernetesVersionChoice(t *testing.T) {
	dir := t.TempDir()
	load := func(setting string) *World {
		w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}, KubernetesVersion: setting})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	snap := func(version string) *remote.ClusterSnapshot {
		return &remote.ClusterSnapshot{Context: "dev", Version: version, Path: filepath.Join(dir, "cluster.yaml")}
	}

	w := load("")
	if m := storeMinor(t, w); m != "1.37" || w.KubernetesChoice().Note != "" {
		t.Errorf("default: %s (note %q), want 1.37", m, w.KubernetesChoice().Note)
	}
	c := withCluster(w, snap("v1.35.2-eks-1234"))
	if m := storeMinor(t, c); m != "1.35" || c.KubernetesChoice().Note != "" {
		t.Errorf("cluster v1.35.2: %s (note %q), want 1.35", m, c.KubernetesChoice().Note)
	}
	c = withCluster(w, snap("v1.31.0"))
	if m, note := storeMinor(t, c), c.KubernetesChoice().Note; m != "1.34" || !strings.Contains(note, "the cluster runs Kubernetes 1.31") || !strings.Contains(note, "using the nearest, Kubernetes 1.34") {
		t.Errorf("cluster v1.31.0: %s (note %q), want 1.34 and a note", m, note)
	}
	// A later edit keeps the choice.
	if m := storeMinor(t, c.WithFile(filepath.Join(dir, "x.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\n"))); m != "1.34" {
		t.Errorf("after an edit: %s, want 1.34", m)
	}

	w = load("1.36")
	if m := storeMinor(t, w); m != "1.36" {
		t.Errorf("setting 1.36: %s", m)
	}
	if m := storeMinor(t, withCluster(w, snap("v1.34.1"))); m != "1.36" {
		t.Errorf("setting 1.36 with a 1.34 cluster: %s, want the setting's", m)
	}
	w = load("banana")
	if m, ch := storeMinor(t, w), w.KubernetesChoice(); m != "1.37" || !ch.Invalid || !strings.Contains(ch.Note, `"banana" is not a Kubernetes version`) {
		t.Errorf("setting banana: %s %+v", m, ch)
	}
}

// withCluster is w with a live cluster configured and this snapshot of
// it fetched.
func withCluster(w *World, snap *remote.ClusterSnapshot) *World {
	c := w.clone(nil)
	src := clusterSource{&remote.ClusterSource{Context: snap.Context}}
	c.sources = append(append([]Source(nil), w.sources...), src)
	return c.WithFetched(Fetched{Source: SourceCluster, Served: clusterServed(snap), apply: true, config: src.config()})
}
