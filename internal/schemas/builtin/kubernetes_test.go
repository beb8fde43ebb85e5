package builtin

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin/internal/generate"
)

// TestKubernetesMinors: every built-in minor decodes strictly as v1 CRDs;
// kinds that went GA after a minor are absent from it (and present from
// their release on), and an older minor's unchanged documents are the
// newest's own bytes (no copy).
func TestKubernetesMinors(t *testing.T) {
	served := map[string]map[gvk]bool{}
	for _, m := range KubernetesMinors {
		set, err := KubernetesMinor(m)
		mustSet(t, set, err)
		if set.Version != "v"+m || set.Name != "kubernetes" || set.Kind != KindKubernetes {
			t.Errorf("KubernetesMinor(%s): %s %s %d", m, set.Name, set.Version, set.Kind)
		}
		served[m] = map[gvk]bool{}
		for k := range crds(t, set) {
			served[m][k] = true
		}
		for _, f := range set.Files {
			data, err := f.Text()
			if err != nil || !strings.HasPrefix(f.Name, "kubernetes/v"+m+"/") || len(data) == 0 || data[len(data)-1] != '\n' {
				t.Errorf("%s: bad document %q", m, f.Name)
			}
		}
	}
	for _, c := range []struct {
		k    gvk
		from string
	}{
		{gvk{"storagemigration.k8s.io", "v1", "StorageVersionMigration"}, "1.37"},
		{gvk{"certificates.k8s.io", "v1", "ClusterTrustBundle"}, "1.37"},
		{gvk{"admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy"}, "1.36"},
		{gvk{"apps", "v1", "Deployment"}, "1.34"},
	} {
		for _, m := range KubernetesMinors {
			if want := CompareMinors(m, c.from) >= 0; served[m][c.k] != want {
				t.Errorf("Kubernetes %s serves %v: %v, want %v", m, c.k, served[m][c.k], want)
			}
		}
	}

	newest, _ := Kubernetes()
	byName := map[string][]byte{}
	for _, f := range newest.Files {
		byName[kubernetesKey(f.Name)] = f.Data
	}
	older, _ := KubernetesMinor("1.36")
	shared := 0
	for _, f := range older.Files {
		if d := byName[kubernetesKey(f.Name)]; len(d) > 0 && len(f.Data) > 0 && &d[0] == &f.Data[0] {
			shared++
		}
	}
	if shared == 0 {
		t.Error("Kubernetes 1.36 shares no document with the newest bundle")
	}
	if _, err := KubernetesMinor("1.20"); err == nil || !strings.Contains(err.Error(), "1.34, 1.35, 1.36, 1.37") {
		t.Errorf("KubernetesMinor(1.20): %v", err)
	}
}

func TestChooseKubernetes(t *testing.T) {
	for _, c := range []struct {
		setting, cluster string
		minor            string
		note             string // a part of Note, "" for none
		invalid          bool
	}{
		{"", "", "1.37", "", false},
		{"1.34", "", "1.34", "", false},
		{"v1.35.2", "v1.36.1", "1.35", "", false},
		{" 1.36 ", "", "1.36", "", false},
		{"1.20", "", "1.37", "no built-in schemas for Kubernetes 1.20 (built in: 1.34, 1.35, 1.36, 1.37); using Kubernetes 1.37", true},
		{"banana", "", "1.37", `"banana" is not a Kubernetes version`, true},
		{"1", "", "1.37", "is not a Kubernetes version", true},
		{"1.3x", "", "1.37", "is not a Kubernetes version", true},
		{"", "v1.35.3-gke.1200", "1.35", "", false},
		{"", "v1.34.1+k3s1", "1.34", "", false},
		{"", "v1.31.4", "1.34", "the cluster runs Kubernetes 1.31, which has no built-in schemas (built in: 1.34, 1.35, 1.36, 1.37); using the nearest, Kubernetes 1.34", false},
		{"", "v1.40.0", "1.37", "using the nearest, Kubernetes 1.37", false},
		{"", "weird", "1.37", "", false},
		{"", "v0.0.0-master+$Format:%H$", "1.37", "", false},
	} {
		got := ChooseKubernetes(c.setting, c.cluster)
		if got.Minor != c.minor || got.Invalid != c.invalid || (c.note == "") != (got.Note == "") || !strings.Contains(got.Note, c.note) {
			t.Errorf("ChooseKubernetes(%q, %q) = %+v, want %s (note %q, invalid %v)", c.setting, c.cluster, got, c.minor, c.note, c.invalid)
		}
	}
}

// BenchmarkKubernetesOlder measures choosing an older minor the first
// time: decompressing and rebuilding it from its difference.
func BenchmarkKubernetesOlder(b *testing.B) {
	if _, err := Kubernetes(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := readOlder("1.34"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDiffRoundTrip: generate.Diff's documents, applied to the newest
// bundle as KubernetesMinor does, give back the older bundle, for random
// documents and edits (the seed is printed).
func TestDiffRoundTrip(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	line := func() string { return fmt.Sprintf("k%d: v%d\n", rng.IntN(20), rng.IntN(5)) }
	for round := range 200 {
		var newest, older bytes.Buffer
		for d := range 1 + rng.IntN(4) {
			var n []string
			for range rng.IntN(40) + 1 {
				n = append(n, line())
			}
			o := append([]string(nil), n...)
			for range rng.IntN(6) {
				i := rng.IntN(len(o) + 1)
				switch rng.IntN(3) {
				case 0:
					o = slices.Insert(o, i, line())
				case 1:
					if i < len(o) {
						o = slices.Delete(o, i, i+1)
					}
				case 2:
					if i < len(o) {
						o[i] = line()
					}
				}
			}
			if len(o) == 0 {
				o = []string{line()}
			}
			fmt.Fprintf(&newest, "%skubernetes/v9.2/doc#K%d\n%s", generate.Separator, d, strings.Join(n, ""))
			if rng.IntN(5) > 0 {
				fmt.Fprintf(&older, "%skubernetes/v9.1/doc#K%d\n%s", generate.Separator, d, strings.Join(o, ""))
			}
		}
		fmt.Fprintf(&older, "%skubernetes/v9.1/doc#Gone\nonly: here\n", generate.Separator)
		diff, err := generate.Diff(older.Bytes(), newest.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := generate.Split(newest.Bytes())
		base := map[string][]byte{}
		for _, d := range docs {
			base[kubernetesKey(d.Origin)] = d.Body
		}
		set, err := read("diff", diff, "kubernetes", "v9.1", KindKubernetes)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		for _, f := range set.Files {
			data := f.Data
			switch {
			case string(data) == same:
				data = base[kubernetesKey(f.Name)]
			case bytes.HasPrefix(data, []byte(edited)):
				if data, err = applyEdits(base[kubernetesKey(f.Name)], data[len(edited):]); err != nil {
					t.Fatalf("round %d: %s: %v", round, f.Name, err)
				}
			}
			got.WriteString(generate.Separator + f.Name + "\n")
			got.Write(data)
		}
		if got.String() != older.String() {
			t.Fatalf("round %d: rebuilt\n%s\nwant\n%s\ndiff\n%s", round, got.String(), older.String(), diff)
		}
	}
	if _, err := applyEdits([]byte("a\n"), []byte("=2\n")); err == nil {
		t.Error("an edit past the document: no error")
	}
	if _, err := applyEdits([]byte("a\nb\n"), []byte("=1\n")); err == nil {
		t.Error("edits leaving lines unused: no error")
	}
}
