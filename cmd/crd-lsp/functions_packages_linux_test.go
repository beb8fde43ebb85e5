//go:build linux

package main

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestRenderFunctionsFromPackages: function-auto-ready (built from the Go
// module proxy, statically, as function images ship it) packaged in the
// test as crossplane xpkg build --embed-runtime-image lays a Function
// package out, pushed to Debian's real docker-registry on loopback; then
// crd-lsp render --functions-from-packages, through the built binary,
// pulls it into the package cache, unpacks its runtime and renders the
// Composition through the function's own program (no Docker), naming the
// digest that ran; with the registry stopped, a second render runs it
// from the cache, and check finds it through crossplane.yaml's dependency
// and names it in its JSON.
func TestRenderFunctionsFromPackages(t *testing.T) {
	bin, err := os.ReadFile(fntest.AutoReadyStatic(t))
	if err != nil {
		t.Fatal(err)
	}
	reg := xpkgtest.StartDockerRegistry(t)
	img := xpkgtest.FunctionPackage(xpkgtest.Meta("Function", "function-auto-ready"),
		ocispec.ImageConfig{Entrypoint: []string{"/function"}, Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
			WorkingDir: "/", User: "65532:65532"},
		// A distroless-like base layer, then the function's.
		[]xpkgtest.Entry{
			{Name: "etc/", Type: tar.TypeDir, Mode: 0o755},
			{Name: "etc/passwd", Body: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
			{Name: "home/nonroot/", Type: tar.TypeDir, Mode: 0o700},
			{Name: "var/run", Type: tar.TypeSymlink, Linkname: "/run"},
		},
		[]xpkgtest.Entry{{Name: "function", Body: bin, Mode: 0o755}},
	)
	const repo = "crossplane-contrib/function-auto-ready"
	pushed := time.Now()
	dgst := xpkgtest.Push(t, reg.Host, repo, fntest.AutoReadyVersion, img)
	t.Logf("packaged and pushed %d MiB of function in %s", len(bin)>>20, time.Since(pushed).Round(time.Millisecond))
	pkg := reg.Host + "/" + repo + ":" + fntest.AutoReadyVersion

	src := filepath.Join("..", "..", "testdata", "render", "native-and-real")
	dir := t.TempDir()
	for _, f := range []string{"composition.yaml", "xr.yaml", "xrd.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fnFile := filepath.Join(t.TempDir(), "functions.yaml")
	if err := os.WriteFile(fnFile, []byte("apiVersion: pkg.crossplane.io/v1beta1\nkind: Function\nmetadata:\n  name: function-auto-ready\nspec:\n  package: "+pkg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	builtBinary(t) // (not in the times below)
	// The package cache is the test's; no docker command is reachable.
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "PATH=/nonexistent"}
	render := func() (int, string, string, time.Duration) {
		start := time.Now()
		code, out, errOut := runBin(t, env, "", "render", "--log-level", "debug", "--functions", fnFile, "--functions-from-packages", "--insecure", reg.Host,
			"--xr", filepath.Join(dir, "xr.yaml"), filepath.Join(dir, "composition.yaml"))
		return code, out, errOut, time.Since(start)
	}
	ran := regexp.MustCompile(`crd-lsp render: function function-auto-ready: running ` + regexp.QuoteMeta(pkg+"@"+dgst) + ` from its package \(linux/[a-z0-9]+, entrypoint /function; ([^)]*)\)`)

	code, out, errOut, cold := render()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m := ran.FindStringSubmatch(errOut)
	if m == nil || !strings.HasPrefix(m[1], "pulled and unpacked in ") {
		t.Errorf("render does not name the digest it pulled and ran:\n%s", errOut)
	}
	if !strings.Contains(errOut, "function function-auto-ready: started") || !strings.Contains(errOut, "Running Function") {
		t.Errorf("function-auto-ready did not run:\n%s", errOut)
	}
	for _, want := range []string{"name: web-config", "size: large", "patched: large", "crossplane.io/composition-resource-name: config"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendered output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("first render (pull %s of package, unpack, start the function): %s; %s", sizeOf(img), cold.Round(time.Millisecond), m[1:])

	code, out2, errOut, warm := render()
	if code != 0 || out2 != out {
		t.Fatalf("second render: exit %d\n%s\n%s", code, out2, errOut)
	}
	if m := ran.FindStringSubmatch(errOut); m == nil || m[1] != "from the cache" {
		t.Errorf("the second render did not use the cache:\n%s", errOut)
	}
	t.Logf("second render (registry up, tag confirmed, cache verified): %s", warm.Round(time.Millisecond))

	// Offline: the registry is gone.
	reg.Stop()
	code, out3, errOut, offline := render()
	if code != 0 || out3 != out {
		t.Fatalf("offline render: exit %d\n%s\n%s", code, out3, errOut)
	}
	m = ran.FindStringSubmatch(errOut)
	if m == nil || !strings.HasPrefix(m[1], "from the cache (") || !strings.Contains(m[1], "using the cached "+dgst) || !strings.Contains(errOut, "Running Function") {
		t.Errorf("the offline render did not run the cached function:\n%s", errOut)
	}
	t.Logf("offline render: %s", offline.Round(time.Millisecond))

	// check finds the function through crossplane.yaml's dependency (as
	// Crossplane's package manager names it) and says in its JSON which
	// digest ran.
	comp, err := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	comp = []byte(strings.Replace(string(comp), "functionRef: {name: function-auto-ready}", "functionRef: {name: crossplane-contrib-function-auto-ready}", 1))
	if err := os.WriteFile(filepath.Join(dir, "composition.yaml"), comp, 0o644); err != nil {
		t.Fatal(err)
	}
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: app}\nspec:\n  dependsOn:\n  - apiVersion: pkg.crossplane.io/v1\n    kind: Function\n    package: " + reg.Host + "/" + repo + "\n    version: " + fntest.AutoReadyVersion + "\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	code, jsonOut, errOut := runBin(t, env, "", "check", "--output", "json", "--functions-from-packages", "--insecure", reg.Host, "--log-level", "debug", dir)
	var got struct {
		Functions []jsonPackageRun `json:"functions"`
		Summary   summary          `json:"summary"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &got); err != nil {
		t.Fatalf("check's JSON: %v\n%s", err, jsonOut)
	}
	if len(got.Functions) != 1 {
		t.Fatalf("check (exit %d) names %d functions run from packages:\n%s\n%s", code, len(got.Functions), jsonOut, errOut)
	}
	f := got.Functions[0]
	if f.Function != "crossplane-contrib-function-auto-ready" || f.Package != pkg || f.Digest != dgst || f.Ref != pkg+"@"+dgst || !f.Runs || !f.FromCache || strings.Join(f.Entrypoint, " ") != "/function" {
		t.Errorf("functions: %+v", f)
	}
	if !strings.Contains(errOut, "Running Function") {
		t.Errorf("check did not run the function:\n%s", errOut)
	}
}

// sizeOf is the compressed size of an image's layers, for the log.
func sizeOf(img xpkgtest.Image) string {
	n := 0
	for _, l := range img.Layers {
		n += len(l.Data)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
