package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScanSkipsAndGlobs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.yaml", "b.yml", "c.json", "sub/d.yaml", ".git/e.yaml", "node_modules/f.yaml", "vendor/g.yaml", ".hidden/h.yaml", "charts/x/i.yaml", "big.yaml"} {
		write(t, filepath.Join(root, p), "kind: X\n")
	}
	write(t, filepath.Join(root, "big.yaml"), string(make([]byte, 2048)))
	files, skipped, err := Scan(context.Background(), root, Options{Exclude: []string{"charts/**"}, MaxFileSize: 1024}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"a.yaml", "b.yml", "sub/d.yaml"}
	if len(got) != len(want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("files = %v, want %v", got, want)
		}
	}
	if len(skipped) != 1 || filepath.Base(skipped[0].Path) != "big.yaml" {
		t.Errorf("skipped = %v, want big.yaml", skipped)
	}
	files, _, _ = Scan(context.Background(), root, Options{Include: []string{"sub/*.yaml"}}, nil)
	if len(files) != 1 || filepath.Base(files[0].Path) != "d.yaml" {
		t.Errorf("include sub/*.yaml gave %v", files)
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pat, name string
		want      bool
	}{
		{"**/*.yaml", "a/b/c.yaml", true},
		{"**/*.yaml", "c.yaml", true},
		{"apis/**", "apis/x/y.yaml", true},
		{"apis/*.yaml", "apis/x/y.yaml", false},
		{"*.yml", "a.yaml", false},
	} {
		if got := Glob(c.pat, c.name); got != c.want {
			t.Errorf("Glob(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}

func TestCrossplaneMajor(t *testing.T) {
	root := t.TempDir()
	if m, from := CrossplaneMajor([]string{root}, ""); m != 2 || from != "default" {
		t.Errorf("default = %d from %s", m, from)
	}
	if m, _ := CrossplaneMajor([]string{root}, "v1"); m != 1 {
		t.Errorf("setting v1 gave %d", m)
	}
	write(t, filepath.Join(root, "crossplane.yaml"), "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  crossplane:\n    version: \">=v1.14.1-0\"\n")
	if m, from := CrossplaneMajor([]string{root}, "v2"); m != 1 || filepath.Base(from) != "crossplane.yaml" {
		t.Errorf("crossplane.yaml >=v1.14 gave %d from %s", m, from)
	}
}

func TestBuiltinsHaveCoreKinds(t *testing.T) {
	st, err := Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct{ g, v, k string }{
		{"apps", "v1", "Deployment"}, {"", "v1", "ConfigMap"}, {"apiextensions.crossplane.io", "v1", "Composition"},
		{"apiextensions.crossplane.io", "v2", "CompositeResourceDefinition"}, {"pt.fn.crossplane.io", "v1beta1", "Resources"},
	} {
		if _, ok := st.Lookup(gvk(k.g, k.v, k.k)); !ok {
			t.Errorf("built-in store lacks %s/%s %s", k.g, k.v, k.k)
		}
	}
}

func TestHeaders(t *testing.T) {
	got := Headers([]byte("apiVersion: example.org/v1\nkind: XApp # an XR\nmetadata:\n  kind: nested\n---\nkind: 'Only'\n---\r\napiVersion: \"v1\"\r\nkind: ConfigMap\r\n"))
	want := []Header{{"example.org/v1", "XApp"}, {"v1", "ConfigMap"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Headers = %v, want %v", got, want)
	}
}
