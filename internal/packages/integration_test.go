package packages

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// upjetCRD reads one provider-upjet-aws CRD from the shared corpus.
func upjetCRD(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDockerRegistry runs the whole layer against Debian's real
// docker-registry: resolution, pulls, the cache with the registry gone,
// tampered and unsafe layers, and two processes sharing the cache.
func TestDockerRegistry(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	buckets := upjetCRD(t, "s3.aws.upbound.io_buckets.yaml")
	acls := upjetCRD(t, "s3.aws.upbound.io_bucketacls.yaml")
	policies := upjetCRD(t, "s3.aws.upbound.io_bucketpolicies.yaml")
	const repo = "crossplane-contrib/provider-upjet-aws-s3"
	meta := xpkgtest.Meta("Provider", "provider-aws-s3")
	versions := map[string][]byte{
		"v2.0.0":      xpkgtest.Stream(meta, buckets),
		"v2.1.0":      xpkgtest.Stream(meta, buckets, acls), // only v2.1.0 ships BucketACL
		"v2.2.0-rc.1": xpkgtest.Stream(meta, buckets, acls, policies),
		"v3.0.0":      xpkgtest.Stream(meta, policies),
		"latest":      xpkgtest.Stream(meta, policies),
	}
	for tag, pkg := range versions {
		xpkgtest.Push(t, reg.Host, repo, tag, xpkgtest.XPkg(pkg))
	}
	// Unsafe layers.
	xpkgtest.Push(t, reg.Host, "x/dotdot", "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Base: true,
		Data: xpkgtest.Tar(true, xpkgtest.Entry{Name: "../package.yaml", Body: versions["v2.0.0"]})}}})
	xpkgtest.Push(t, reg.Host, "x/bomb", "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Base: true,
		Data: xpkgtest.Bomb("package.yaml", 201<<20)}}})

	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "crossplane.yaml")
	src := fmt.Sprintf("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n    - provider: %s/%s\n      version: \">=v2.0.0 <v3.0.0\"\n", reg.Host, repo)
	if err := os.WriteFile(cfgFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := ParseMeta(cfgFile, []byte(src))
	if len(m.Deps) != 1 {
		t.Fatalf("meta: %+v", m)
	}
	for _, p := range m.Problems {
		if p.Severity != severity.Hint { // the provider: form is deprecated
			t.Fatalf("meta problem: %+v", p)
		}
	}
	cache := t.TempDir()
	newClient := func(host string) *Client {
		c, err := New(Options{CacheDir: cache, Insecure: []string{host}, DockerConfig: filepath.Join(dir, "no-docker-config.json")})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	res := newClient(reg.Host).Resolve(context.Background(), m.Deps)
	p := res[0].Package
	if res[0].Err != nil || p == nil || p.Version != "v2.1.0" || p.FromCache {
		t.Fatalf("resolve: %+v", res[0])
	}
	if got := crdNames(p); got != "buckets.s3.aws.upbound.io,bucketacls.s3.aws.upbound.io" {
		t.Errorf("v2.1.0 ships %s", got)
	}
	if string(p.Objects[1].YAML) != strings.TrimPrefix(string(acls), "---\n") {
		t.Error("the BucketACL CRD's YAML is not the corpus file's")
	}

	t.Run("unsafe layers", func(t *testing.T) {
		c := newClient(reg.Host)
		res := c.Resolve(context.Background(), []Dependency{
			{Name: reg.Host + "/x/dotdot", Constraint: "v1.0.0"},
			{Name: reg.Host + "/x/bomb", Constraint: ">=v1"},
		})
		wantKind(t, res[0], KindInvalid, "leaves the archive")
		wantKind(t, res[1], KindInvalid, "more than the 209715200 allowed")
	})

	t.Run("tampered layers", func(t *testing.T) {
		target, _ := url.Parse("http://" + reg.Host)
		layerOf := func(tag string) string {
			return fmt.Sprintf("sha256:%x", sha256.Sum256(xpkgtest.XPkg(versions[tag]).Layers[0].Data))
		}
		proxy := httptest.NewServer(xpkgtest.BlobTamper(map[string]func([]byte) []byte{
			layerOf("v2.0.0"): func(b []byte) []byte { b = append([]byte(nil), b...); b[100] ^= 1; return b },
			layerOf("v3.0.0"): func(b []byte) []byte { return b[:len(b)-100] },
		})(httputil.NewSingleHostReverseProxy(target)))
		defer proxy.Close()
		host := strings.TrimPrefix(proxy.URL, "http://")
		tcache := t.TempDir()
		c, err := New(Options{CacheDir: tcache, Insecure: []string{host}, DockerConfig: filepath.Join(dir, "none.json")})
		if err != nil {
			t.Fatal(err)
		}
		res := c.Resolve(context.Background(), []Dependency{{Name: host + "/" + repo, Constraint: "v2.0.0"}})
		wantKind(t, res[0], KindInvalid, "digest mismatch")
		res = c.Resolve(context.Background(), []Dependency{{Name: host + "/" + repo, Constraint: "^3"}})
		wantKind(t, res[0], KindInvalid, "truncated")
		if blobs, _ := os.ReadDir(filepath.Join(tcache, "blobs", "sha256")); len(blobs) != 0 {
			t.Errorf("%d blobs cached from tampered layers", len(blobs))
		}
	})

	t.Run("two processes", func(t *testing.T) {
		pcache := t.TempDir()
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		// Children stuck (on the cache's lock, say) are killed: the test
		// fails by name instead of hanging.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for i := 0; i < 2; i++ {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPullChildProcess$", "-test.v")
			cmd.WaitDelay = 10 * time.Second
			cmd.Env = append(os.Environ(), "CRD_LSP_PULL_CHILD="+reg.Host+"|"+pcache)
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				if ctx.Err() != nil {
					t.Fatalf("child %d still running after 5 minutes; killed:\n%s", i, outs[i])
				}
				t.Fatalf("child %d: %v\n%s", i, err, outs[i])
			}
			if !strings.Contains(outs[i].String(), "PASS: TestPullChildProcess") {
				t.Fatalf("child %d did not run:\n%s", i, outs[i])
			}
		}
		checkCacheConsistent(t, pcache)
		c, err := New(Options{CacheDir: pcache})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range childDeps(reg.Host) {
			r := c.Cached([]Dependency{d})[0]
			if want := []string{"v2.1.0", "v2.0.0", "v3.0.0"}[i]; r.Err != nil || r.Package == nil || r.Package.Version != want {
				t.Errorf("after two processes, cached %s: %+v, want %s", r.Dep, r, want)
			}
		}
	})

	// The registry goes away: the cache still answers.
	reg.Stop()
	c := newClient(reg.Host)
	res = c.Cached(m.Deps)
	if res[0].Err != nil || res[0].Package == nil || res[0].Package.Version != "v2.1.0" || crdNames(res[0].Package) != "buckets.s3.aws.upbound.io,bucketacls.s3.aws.upbound.io" {
		t.Fatalf("cached with the registry down: %+v", res[0])
	}
	res = c.Resolve(context.Background(), m.Deps)
	if !IsWarning(res[0].Err) || KindOf(res[0].Err) != KindNetwork || res[0].Package == nil || res[0].Package.Version != "v2.1.0" {
		t.Fatalf("resolve with the registry down: %+v", res[0])
	}
	if msg := res[0].Err.Error(); !strings.Contains(msg, "cannot reach registry "+reg.Host) || !strings.Contains(msg, "connection refused") {
		t.Errorf("network warning = %q", msg)
	}
}

func childDeps(host string) []Dependency {
	return []Dependency{
		{Name: host + "/crossplane-contrib/provider-upjet-aws-s3", Constraint: ">=v2.0.0 <v3.0.0"},
		{Name: host + "/crossplane-contrib/provider-upjet-aws-s3", Constraint: "v2.0.0"},
		{Name: host + "/crossplane-contrib/provider-upjet-aws-s3", Constraint: "^3"},
	}
}

// TestPullChildProcess is the other process of "two processes": it runs
// only when re-executed with CRD_LSP_PULL_CHILD=host|cachedir.
func TestPullChildProcess(t *testing.T) {
	env := os.Getenv("CRD_LSP_PULL_CHILD")
	if env == "" {
		t.Skip("only run as a child process")
	}
	host, cache, _ := strings.Cut(env, "|")
	c, err := New(Options{CacheDir: cache, Insecure: []string{host}})
	if err != nil {
		t.Fatal(err)
	}
	// Each dependency on its own, so the three pulls interleave with the
	// other process's.
	for _, d := range childDeps(host) {
		for _, r := range c.Resolve(context.Background(), []Dependency{d}) {
			if r.Err != nil || r.Package == nil {
				t.Errorf("%s: %v", r.Dep, r.Err)
			}
		}
	}
}

// checkCacheConsistent: the index parses, every manifest's blob exists
// and matches its digest, and no temporary file is left.
func checkCacheConsistent(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ix index
	if err := json.Unmarshal(b, &ix); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(ix.Resolutions) != 3 || len(ix.Manifests) != 3 {
		t.Errorf("index has %d resolutions and %d manifests, want 3 and 3:\n%s", len(ix.Resolutions), len(ix.Manifests), b)
	}
	c := &cache{dir: dir}
	for d, me := range ix.Manifests {
		if _, err := c.getBlob(me.Package, me.Size); err != nil {
			t.Errorf("manifest %s: blob %s: %v", d, me.Package, err)
		}
	}
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), ".tmp-") {
			t.Errorf("leftover temporary file %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
