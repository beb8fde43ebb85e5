package workspace

import (
	"context"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// globRef is the obvious backtracking matcher (exponential in the number
// of "**"), the reference Glob must agree with on small inputs.
func globRef(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if globRef(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && globRef(pat[1:], name[1:])
}

func TestGlobAgreesWithBacktracking(t *testing.T) {
	segs := []string{"**", "*", "a", "b", "a*", "*.yaml", "[ab]"}
	names := []string{"a", "b", "ab", "x.yaml", "a.yaml"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var pat, name []string
		for range 1 + rng.IntN(5) {
			pat = append(pat, segs[rng.IntN(len(segs))])
		}
		for range 1 + rng.IntN(5) {
			name = append(name, names[rng.IntN(len(names))])
		}
		p, nm := strings.Join(pat, "/"), strings.Join(name, "/")
		if got, want := Glob(p, nm), globRef(pat, name); got != want {
			t.Fatalf("Glob(%q, %q) = %v, want %v", p, nm, got, want)
		}
	}
}

// TestGlobManyDoubleStars: "**" repeated in a pattern that cannot match
// made the old matcher try every way of splitting the path (it never
// returned for this one); the answer must come at once.
func TestGlobManyDoubleStars(t *testing.T) {
	pat := strings.Repeat("**/", 40) + "never.yaml"
	name := strings.Repeat("d/", 60) + "x.yaml"
	done := make(chan bool, 1)
	go func() { done <- Glob(pat, name) || Matches("/r", "/r/"+name, Options{Exclude: []string{pat}}) == false }()
	select {
	case got := <-done:
		if got {
			t.Errorf("%d-segment name matched (or was excluded by) a pattern ending in never.yaml", 61)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Glob with 40 \"**\" segments did not return within 10s")
	}
}
