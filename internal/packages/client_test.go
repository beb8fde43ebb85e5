package packages

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// provider returns a Provider package.yaml shipping one CRD per kind.
func provider(name string, kinds ...string) []byte {
	docs := [][]byte{xpkgtest.Meta("Provider", name)}
	for _, k := range kinds {
		docs = append(docs, xpkgtest.CRD("example.org", k, "v1"))
	}
	return xpkgtest.Stream(docs...)
}

type testEnv struct {
	t     *testing.T
	host  string
	cache string
	logs  *strings.Builder
	mu    sync.Mutex
}

func newEnv(t *testing.T, wrap func(http.Handler) http.Handler) *testEnv {
	return &testEnv{t: t, host: xpkgtest.MemRegistry(t, wrap), cache: t.TempDir(), logs: &strings.Builder{}}
}

func (e *testEnv) client(opts ...func(*Options)) *Client {
	e.t.Helper()
	cfg := filepath.Join(e.t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte("{}"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	o := Options{CacheDir: e.cache, Insecure: []string{e.host}, DockerConfig: cfg, Logf: func(f string, a ...any) {
		e.mu.Lock()
		fmt.Fprintf(e.logs, f+"\n", a...)
		e.mu.Unlock()
	}}
	for _, f := range opts {
		f(&o)
	}
	c, err := New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *testEnv) push(repo, tag string, img xpkgtest.Image) string {
	return xpkgtest.Push(e.t, e.host, repo, tag, img)
}

func (e *testEnv) dep(repo, constraint string) Dependency {
	return Dependency{Package: e.host + "/" + repo, Name: e.host + "/" + repo, Constraint: constraint, Kind: "Provider", File: "crossplane.yaml"}
}

func crdNames(p *Package) string {
	if p == nil {
		return "<nil>"
	}
	var s []string
	for _, o := range p.Objects {
		s = append(s, o.Name)
	}
	return strings.Join(s, ",")
}

func wantKind(t *testing.T, r Result, k Kind, msg string) {
	t.Helper()
	if KindOf(r.Err) != k || !strings.Contains(fmt.Sprint(r.Err), msg) {
		t.Errorf("%s: err = %v (kind %q), want kind %q containing %q", r.Dep, r.Err, KindOf(r.Err), k, msg)
	}
}

func TestResolveConstraints(t *testing.T) {
	e := newEnv(t, nil)
	for _, tag := range []string{"v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0-rc.1", "v2.0.0", "v1", "latest"} {
		e.push("crossplane-contrib/provider-w", tag, xpkgtest.XPkg(provider("provider-w", "Widget"+strings.NewReplacer(".", "", "-", "").Replace(tag))))
	}
	c := e.client()
	cases := []struct{ constraint, version string }{
		{">=v1.0.0 <v2.0.0", "v1.2.0"},
		{">=v1.2.0", "v2.0.0"},
		{"~1.1", "v1.1.0"},
		{"^2", "v2.0.0"},
		{"v1", "v1.2.0"}, // a constraint (1.x), not the "v1" tag
		{"v1.0.0", "v1.0.0"},
		{">=v1.3.0-0 <v2", "v1.3.0-rc.1"},
	}
	var deps []Dependency
	for _, tc := range cases {
		deps = append(deps, e.dep("crossplane-contrib/provider-w", tc.constraint))
	}
	// Each constraint on its own (one Resolve per dependency: constraints
	// in one call are solved together).
	for i, tc := range cases {
		res := c.Resolve(context.Background(), deps[i:i+1])
		if len(res) != 1 || res[0].Err != nil || res[0].Package == nil {
			t.Fatalf("%q: %+v", tc.constraint, res)
		}
		p := res[0].Package
		wantCRD := "widget" + strings.NewReplacer(".", "", "-", "").Replace(strings.ToLower(tc.version)) + "s.example.org"
		if p.Version != tc.version || crdNames(p) != wantCRD || p.Kind != "Provider" || p.Path != "xpkg://"+e.host+"/crossplane-contrib/provider-w/package.yaml" {
			t.Errorf("%q resolved to %s (%s), want %s (%s)", tc.constraint, p.Version, crdNames(p), tc.version, wantCRD)
		}
	}

	res := c.Resolve(context.Background(), []Dependency{
		e.dep("crossplane-contrib/provider-w", ">=v3.0.0"),
		e.dep("crossplane-contrib/provider-w", ">>1"),
		e.dep("crossplane-contrib/nothing-here", "v1.0.0"),
		e.dep("crossplane-contrib/provider-w", ""),
	})
	wantKind(t, res[0], KindNoMatch, `satisfies ">=v3.0.0"; newest tags: v2.0.0, v1.3.0-rc.1, v1.2.0, v1.1.0, v1.0.0`)
	if e, ok := res[0].Err.(*Error); !ok || len(e.Tags) != 5 || e.Tags[0] != "v2.0.0" {
		t.Errorf("no-match tags = %+v", res[0].Err)
	}
	wantKind(t, res[1], KindConstraint, `invalid version constraint ">>1"`)
	wantKind(t, res[2], KindNotFound, "nothing-here not found in registry "+e.host)
	wantKind(t, res[3], KindConstraint, "version is required")
	for _, r := range res {
		if r.Package != nil && KindOf(r.Err) != KindConstraint {
			t.Errorf("%s: package %s despite %v", r.Dep, r.Package.Version, r.Err)
		}
	}
}

func TestBaseLayerSelection(t *testing.T) {
	e := newEnv(t, nil)
	good := provider("provider-good", "Good")
	decoy := provider("provider-decoy", "Decoy")
	layer := func(p []byte) []byte { return xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: p}) }
	imgs := map[string]xpkgtest.Image{
		// The annotated layer wins over a later layer with a package.yaml.
		"annotation": {Layers: []xpkgtest.Layer{{Data: layer(good), Base: true}, {Data: layer(decoy), Annotations: map[string]string{AnnotationKey: "upbound"}}}},
		// No annotation: the config label names the base layer.
		"label": {Layers: []xpkgtest.Layer{{Data: layer(good), Label: true}, {Data: layer(decoy)}}},
		// Neither: the last layer that has a package.yaml.
		"fallback": {Layers: []xpkgtest.Layer{{Data: layer(decoy)}, {Data: layer(good)}, {Data: xpkgtest.Tar(true, xpkgtest.Entry{Name: "bin/provider", Body: []byte("ELF")})}}},
		// An image index: the linux/amd64 image.
		"index": {Layers: []xpkgtest.Layer{{Data: layer(good), Base: true}}, Index: []string{"linux/arm64", "linux/amd64"}},
		// An index with only one image, for another platform.
		"index-single": {Layers: []xpkgtest.Layer{{Data: layer(good), Base: true}}, Index: []string{"linux/arm64"}},
		// Annotated base without package.yaml: invalid.
		"empty-base": {Layers: []xpkgtest.Layer{{Data: xpkgtest.Tar(true, xpkgtest.Entry{Name: "README", Body: []byte("hi")}), Base: true}, {Data: layer(good)}}},
	}
	for name, img := range imgs {
		e.push("x/"+name, "v1.0.0", img)
	}
	c := e.client()
	for name := range imgs {
		t.Run(name, func(t *testing.T) {
			res := c.Resolve(context.Background(), []Dependency{e.dep("x/"+name, "v1.0.0")})
			if name == "empty-base" {
				wantKind(t, res[0], KindInvalid, "has no package.yaml")
				return
			}
			if res[0].Err != nil || crdNames(res[0].Package) != "goods.example.org" {
				t.Errorf("got %s, %v", crdNames(res[0].Package), res[0].Err)
			}
		})
	}
}

// A layer whose bytes do not match its digest, or are cut short, is
// rejected and nothing is cached.
func TestTamperedLayerRejected(t *testing.T) {
	alter := map[string]func([]byte) []byte{}
	e := newEnv(t, xpkgtest.BlobTamper(alter))
	for _, name := range []string{"flipped", "truncated"} {
		data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: provider("provider-"+name, "Thing")})
		e.push("x/"+name, "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
		d := fmt.Sprintf("sha256:%x", sha256.Sum256(data))
		if name == "flipped" {
			alter[d] = func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)-10] ^= 0xff; return b }
		} else {
			alter[d] = func(b []byte) []byte { return b[:len(b)/2] }
		}
	}
	c := e.client()
	res := c.Resolve(context.Background(), []Dependency{e.dep("x/flipped", "v1.0.0"), e.dep("x/truncated", "v1.0.0")})
	wantKind(t, res[0], KindInvalid, "digest mismatch")
	wantKind(t, res[1], KindInvalid, "truncated")
	for _, r := range res {
		if r.Package != nil {
			t.Errorf("%s: served %s", r.Dep, crdNames(r.Package))
		}
	}
	blobs, _ := os.ReadDir(filepath.Join(e.cache, "blobs", "sha256"))
	if len(blobs) != 0 {
		t.Errorf("cache holds %d blobs after rejected pulls", len(blobs))
	}
	for _, r := range e.client().Cached([]Dependency{e.dep("x/flipped", "v1.0.0")}) {
		wantKind(t, r, KindNotCached, "not in the package cache")
	}
}

func TestCacheOfflineAndCorruption(t *testing.T) {
	var down bool
	var mu sync.Mutex
	e := newEnv(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			d := down
			mu.Unlock()
			if d {
				// Like a dead host: drop the connection.
				hj, _ := w.(http.Hijacker)
				conn, _, _ := hj.Hijack()
				conn.Close()
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	e.push("x/p", "v1.0.0", xpkgtest.XPkg(provider("p", "Old")))
	e.push("x/p", "v1.1.0", xpkgtest.XPkg(provider("p", "New")))
	dep := e.dep("x/p", "~1.0")

	// Nothing cached yet.
	wantKind(t, e.client().Cached([]Dependency{dep})[0], KindNotCached, "crd-lsp pull")

	var progress []string
	c := e.client(func(o *Options) { o.Progress = func(p Progress) { progress = append(progress, p.Message) } })
	res := c.Resolve(context.Background(), []Dependency{dep})
	if res[0].Err != nil || res[0].Package.Version != "v1.0.0" || res[0].Package.FromCache || crdNames(res[0].Package) != "olds.example.org" {
		t.Fatalf("first resolve: %+v", res[0])
	}
	if want := "Pulling " + e.host + "/x/p:v1.0.0 (1/1)"; len(progress) != 1 || progress[0] != want {
		t.Errorf("progress = %q, want [%q]", progress, want)
	}

	// Again: same manifest digest, so no layer download.
	res = e.client().Resolve(context.Background(), []Dependency{dep})
	if res[0].Err != nil || !res[0].Package.FromCache {
		t.Errorf("second resolve: %+v", res[0])
	}

	// Registry down: Cached works; Resolve warns and still serves.
	mu.Lock()
	down = true
	mu.Unlock()
	c2 := e.client()
	res = c2.Cached([]Dependency{dep})
	if res[0].Err != nil || res[0].Package == nil || res[0].Package.Version != "v1.0.0" || !res[0].Package.FromCache {
		t.Fatalf("cached: %+v", res[0])
	}
	if data, err := os.ReadFile(res[0].Package.File); err != nil || string(data) != string(res[0].Package.YAML) {
		t.Errorf("Package.File: %v", err)
	}
	res = c2.Resolve(context.Background(), []Dependency{dep})
	if !IsWarning(res[0].Err) || KindOf(res[0].Err) != KindNetwork || res[0].Package == nil || crdNames(res[0].Package) != "olds.example.org" {
		t.Fatalf("offline resolve: %+v", res[0])
	}
	if msg := res[0].Err.Error(); !strings.Contains(msg, "cannot reach registry "+e.host) || !strings.Contains(msg, "using the cached v1.0.0") {
		t.Errorf("offline message = %q", msg)
	}
	// A constraint never resolved has nothing to fall back to.
	res = c2.Resolve(context.Background(), []Dependency{e.dep("x/p", "v1.1.0")})
	if KindOf(res[0].Err) != KindNetwork || IsWarning(res[0].Err) || res[0].Package != nil {
		t.Errorf("offline, uncached: %+v", res[0])
	}
	mu.Lock()
	down = false
	mu.Unlock()

	// Corrupt the cached blob: never served, and refetched by Resolve.
	blobs, _ := filepath.Glob(filepath.Join(e.cache, "blobs", "sha256", "*"))
	if len(blobs) != 1 {
		t.Fatalf("blobs = %v", blobs)
	}
	orig, _ := os.ReadFile(blobs[0])
	if err := os.WriteFile(blobs[0], orig[:len(orig)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	wantKind(t, e.client().Cached([]Dependency{dep})[0], KindNotCached, "")
	res = e.client().Resolve(context.Background(), []Dependency{dep})
	if res[0].Err != nil || res[0].Package.FromCache || crdNames(res[0].Package) != "olds.example.org" {
		t.Fatalf("refetch after corruption: %+v", res[0])
	}
	if b, _ := os.ReadFile(blobs[0]); string(b) != string(orig) {
		t.Error("corrupt blob was not replaced")
	}
	if res := e.client().Cached([]Dependency{dep}); res[0].Err != nil {
		t.Errorf("cached after refetch: %v", res[0].Err)
	}
}

func TestDigestPin(t *testing.T) {
	e := newEnv(t, nil)
	d := e.push("x/pinned", "v1.0.0", xpkgtest.XPkg(provider("pinned", "Pinned")))
	c := e.client()
	for _, v := range []string{d, "@" + d} {
		res := c.Resolve(context.Background(), []Dependency{e.dep("x/pinned", v)})
		if res[0].Err != nil || res[0].Package.Version != d || res[0].Package.Digest != d {
			t.Fatalf("pin %s: %+v", v, res[0])
		}
	}
	res := e.client().Cached([]Dependency{e.dep("x/pinned", d)})
	if res[0].Err != nil || crdNames(res[0].Package) != "pinneds.example.org" {
		t.Errorf("cached pin: %+v", res[0])
	}
	res = c.Resolve(context.Background(), []Dependency{e.dep("x/pinned", "sha256:"+strings.Repeat("ab", 32))})
	wantKind(t, res[0], KindNotFound, "not found")
	res = c.Resolve(context.Background(), []Dependency{e.dep("x/pinned", "sha256:abc")})
	wantKind(t, res[0], KindConstraint, "invalid digest")
}

// configuration returns a Configuration package.yaml with dependencies.
func configuration(name string, deps ...string) []byte {
	return xpkgtest.Stream(xpkgtest.Meta("Configuration", name, deps...),
		[]byte("apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: x"+name+"s.example.org\nspec: {}\n"))
}

func TestTransitiveAndConflicts(t *testing.T) {
	e := newEnv(t, nil)
	for _, v := range []string{"v1.0.0", "v1.1.0", "v1.2.0", "v2.0.0"} {
		e.push("x/provider", v, xpkgtest.XPkg(provider("provider", "P"+strings.ReplaceAll(v, ".", ""))))
	}
	// net v1.0.0 needs provider <v1.2.0 and function (unqualified name,
	// default registry = the test registry).
	e.push("x/net", "v1.0.0", xpkgtest.XPkg(configuration("net",
		fmt.Sprintf("provider: %s/x/provider\nversion: \"<v1.2.0\"", e.host),
		"function: x/fn\nversion: \">=v0.1.0\"")))
	e.push("x/fn", "v0.1.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Function", "fn"), xpkgtest.CRD("fn.example.org", "Input", "v1beta1"))))
	// app v1.0.0 needs net, which needs provider: a chain of two.
	e.push("x/app", "v1.0.0", xpkgtest.XPkg(configuration("app", fmt.Sprintf("configuration: %s/x/net\nversion: v1.0.0", e.host))))
	c := e.client(func(o *Options) { o.DefaultRegistry = e.host })

	cfg := e.dep("x/app", ">=v1.0.0")
	cfg.Kind = "Configuration"
	// Compatible: provider >=v1.0.0 here and <v1.2.0 via net → v1.1.0.
	res := c.Resolve(context.Background(), []Dependency{cfg, e.dep("x/provider", ">=v1.0.0")})
	byPkg := map[string]Result{}
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Dep, r.Err)
		}
		byPkg[strings.TrimPrefix(r.Dep.Package, e.host+"/")+" "+r.Dep.Constraint] = r
	}
	if len(res) != 5 {
		t.Fatalf("got %d results, want 5 (app, provider, net, provider via net, fn)", len(res))
	}
	p := byPkg["x/provider >=v1.0.0"]
	if p.Package.Version != "v1.1.0" || p.Root != 1 || len(p.Via) != 0 {
		t.Errorf("provider: %s root %d via %v", p.Package.Version, p.Root, p.Via)
	}
	pv := byPkg["x/provider <v1.2.0"]
	if pv.Package.Version != "v1.1.0" || pv.Root != 0 || strings.Join(pv.Via, " > ") != e.host+"/x/app:v1.0.0 > "+e.host+"/x/net:v1.0.0" {
		t.Errorf("provider via net: %s root %d via %v", pv.Package.Version, pv.Root, pv.Via)
	}
	if pv.Dep.File != "xpkg://"+e.host+"/x/net/package.yaml" {
		t.Errorf("transitive dep file = %q", pv.Dep.File)
	}
	if fn := byPkg["x/fn >=v0.1.0"]; fn.Package == nil || fn.Package.Kind != "Function" || crdNames(fn.Package) != "inputs.fn.example.org" {
		t.Errorf("fn: %+v", fn)
	}

	// Cached() follows the same chain offline.
	off := e.client(func(o *Options) { o.DefaultRegistry = e.host }).Cached([]Dependency{cfg, e.dep("x/provider", ">=v1.0.0")})
	if len(off) != 5 {
		t.Fatalf("cached: %d results", len(off))
	}
	for _, r := range off {
		if r.Err != nil || r.Package == nil {
			t.Errorf("cached %s: %v", r.Dep, r.Err)
		}
	}

	// Conflict: provider >=v2 here, <v1.2.0 via net.
	res = c.Resolve(context.Background(), []Dependency{cfg, e.dep("x/provider", ">=v2.0.0")})
	var conflicts int
	for _, r := range res {
		if KindOf(r.Err) == KindConflict {
			conflicts++
			if !strings.Contains(r.Err.Error(), `">=v2.0.0" (crossplane.yaml), "<v1.2.0" (via `+e.host+`/x/net:v1.0.0)`) {
				t.Errorf("conflict message = %q", r.Err)
			}
		}
	}
	if conflicts != 2 || res[1].Package == nil || res[1].Package.Version != "v2.0.0" {
		t.Errorf("conflicts = %d, root provider = %+v", conflicts, res[1])
	}
}

// A chain of Configurations deeper than maxDepth: the deepest one followed
// says, on the root dependency, that its dependencies were not checked and
// through which chain; nothing past it is pulled. Offline the same.
func TestConfigurationChainTooDeep(t *testing.T) {
	e := newEnv(t, nil)
	const n = maxDepth + 3 // c0 … c34; c34 needs a provider
	for i := 0; i < n; i++ {
		dep := fmt.Sprintf("configuration: %s/x/c%d\nversion: v1.0.0", e.host, i+1)
		if i == n-1 {
			dep = fmt.Sprintf("provider: %s/x/provider\nversion: v1.0.0", e.host)
		}
		e.push(fmt.Sprintf("x/c%d", i), "v1.0.0", xpkgtest.XPkg(configuration(fmt.Sprintf("c%d", i), dep)))
	}
	e.push("x/provider", "v1.0.0", xpkgtest.XPkg(provider("provider", "P")))
	meta := ParseMeta("crossplane.yaml", xpkgtest.Meta("Configuration", "top", fmt.Sprintf("configuration: %s/x/c0\nversion: v1.0.0", e.host)))

	online := e.client().Resolve(context.Background(), meta.Deps)
	offline := e.client().Cached(meta.Deps) // (after the pull)
	for name, res := range map[string][]Result{"online": online, "offline": offline} {
		deepest := fmt.Sprintf("%s/x/c%d", e.host, maxDepth)
		var got []string
		for _, r := range res {
			got = append(got, strings.TrimPrefix(r.Dep.Package, e.host+"/"))
			switch {
			case r.Dep.Package == deepest:
				want := fmt.Sprintf("the dependencies of %s:v1.0.0 are not checked: it is %d Configurations below %s/x/c0:v1.0.0, and chains are followed %d levels deep", deepest, maxDepth, e.host, maxDepth)
				if KindOf(r.Err) != KindTooDeep || !IsWarning(r.Err) || r.Err.Error() != want || r.Package == nil || len(r.Via) != maxDepth {
					t.Errorf("%s: c%d: %v (kind %q, package %v, %d via)\nwant the warning %s", name, maxDepth, r.Err, KindOf(r.Err), r.Package != nil, len(r.Via), want)
				}
			case r.Err != nil:
				t.Errorf("%s: %s: %v", name, r.Dep.Package, r.Err)
			}
		}
		if len(res) != maxDepth+1 {
			t.Errorf("%s: %d results (%v), want c0 … c%d", name, len(res), got, maxDepth)
		}
		// On the dependsOn entry, as a warning naming the chain.
		probs := ResultProblems(meta, res, true)
		if len(probs) != 1 || probs[0].Severity != severity.Warning || probs[0].Kind != KindTooDeep ||
			!strings.Contains(probs[0].Message, "(required by "+e.host+"/x/c0:v1.0.0 → "+e.host+"/x/c1:v1.0.0 → ") ||
			!strings.HasSuffix(probs[0].Message, fmt.Sprintf(" → %s/x/c%d:v1.0.0)", e.host, maxDepth-1)) {
			t.Errorf("%s: problems %+v", name, probs)
		}
	}
}

func TestCredentialsAndUnauthorized(t *testing.T) {
	const user, pass = "robot", "s3cret-Passw0rd"
	e := newEnv(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); ok && u == user && p == pass {
				h.ServeHTTP(w, r)
				return
			}
			if !strings.HasPrefix(r.UserAgent(), "crd-lsp") {
				h.ServeHTTP(w, r) // the test pushing
				return
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
		})
	})
	e.push("x/private", "v1.0.0", xpkgtest.XPkg(provider("private", "Secret")))

	anon := e.client()
	wantKind(t, anon.Resolve(context.Background(), []Dependency{e.dep("x/private", "v1.0.0")})[0], KindUnauthorized, "not authorized to pull")

	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+e.host+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	c := e.client(func(o *Options) { o.DockerConfig = "" }) // from DOCKER_CONFIG
	res := c.Resolve(context.Background(), []Dependency{e.dep("x/private", "v1.0.0")})
	if res[0].Err != nil || crdNames(res[0].Package) != "secrets.example.org" {
		t.Fatalf("with credentials: %+v", res[0])
	}
	if strings.Contains(e.logs.String(), pass) || strings.Contains(e.logs.String(), auth) {
		t.Errorf("a secret was logged:\n%s", e.logs.String())
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t, nil)
	e.push("x/p", "v1.0.0", xpkgtest.XPkg(provider("p", "A")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := e.client().Resolve(ctx, []Dependency{e.dep("x/p", "v1.0.0")})
	wantKind(t, res[0], KindCanceled, "cancelled")
}
