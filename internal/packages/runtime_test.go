package packages

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// functionImage is a Function package with an embedded runtime, laid out
// as crossplane xpkg build --embed-runtime-image lays it out: a base layer
// with the distroless-like files, a layer with the function's binary, the
// package.yaml layer.
func functionImage(binary string) xpkgtest.Image {
	return xpkgtest.FunctionPackage(xpkgtest.Meta("Function", "function-test"),
		ocispec.ImageConfig{Entrypoint: []string{"/function"}, Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}, WorkingDir: "/", User: "65532:65532"},
		[]xpkgtest.Entry{
			{Name: "etc/", Type: tar.TypeDir, Mode: 0o755},
			{Name: "etc/os-release", Body: []byte("PRETTY_NAME=\"Distroless\"\n")},
			{Name: "var/run", Type: tar.TypeSymlink, Linkname: "/run"},
			{Name: "home/nonroot/", Type: tar.TypeDir, Mode: 0o700},
		},
		[]xpkgtest.Entry{{Name: "function", Body: []byte(binary), Mode: 0o755}},
	)
}

// TestFunctionRuntimeDockerRegistry: a Function package's runtime, pulled
// from Debian's real docker-registry and unpacked into the cache; served
// from the cache (verified) by digest with no registry, by tag with a
// warning when the registry is gone; a corrupt copy is never served; a
// package with no runtime, none for this machine, a tampered or unsafe
// layer each say so.
func TestFunctionRuntimeDockerRegistry(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	const repo = "crossplane-contrib/function-test"
	dgst := xpkgtest.Push(t, reg.Host, repo, "v1.0.0", functionImage("#!/bin/sh\necho the function\n"))
	xpkgtest.Push(t, reg.Host, "x/no-runtime", "v1.0.0", xpkgtest.XPkg(xpkgtest.Meta("Function", "no-runtime")))
	other := "arm64"
	if runtime.GOARCH == "arm64" {
		other = "amd64"
	}
	foreign := functionImage("x")
	foreign.Index = []string{"linux/" + other}
	foreign.Platform = &ocispec.Platform{OS: "linux", Architecture: other}
	xpkgtest.Push(t, reg.Host, "x/foreign", "v1.0.0", foreign)
	unsafe := functionImage("x")
	unsafe.Layers[0].Data = xpkgtest.Tar(true, xpkgtest.Entry{Name: "../../escape", Body: []byte("x")})
	xpkgtest.Push(t, reg.Host, "x/unsafe", "v1.0.0", unsafe)

	cache := t.TempDir()
	dir := t.TempDir()
	newClient := func(host string) *Client {
		c, err := New(Options{CacheDir: cache, Insecure: []string{host}, DockerConfig: filepath.Join(dir, "none.json")})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	ref := reg.Host + "/" + repo + ":v1.0.0"

	rt, err := newClient(reg.Host).FunctionRuntime(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if rt.FromCache || rt.Digest != dgst || rt.Image != dgst || rt.NoRuntime != "" || rt.Platform != "linux/"+runtime.GOARCH {
		t.Errorf("pulled: %+v", rt)
	}
	if want := reg.Host + "/" + repo + ":v1.0.0@" + dgst; rt.Name() != want {
		t.Errorf("Name() = %q, want %q", rt.Name(), want)
	}
	if b, err := os.ReadFile(rt.Executable); err != nil || !strings.Contains(string(b), "the function") || rt.Executable != filepath.Join(rt.Root, "function") {
		t.Errorf("executable %s: %q, %v", rt.Executable, b, err)
	}
	if strings.Join(rt.Entrypoint, " ") != "/function" || rt.User != "65532:65532" || len(rt.Env) != 2 {
		t.Errorf("config: %+v", rt)
	}
	if l, _ := os.Readlink(filepath.Join(rt.Root, "var", "run")); l != "../run" {
		t.Errorf("var/run → %q", l)
	}
	if _, err := os.Stat(filepath.Join(rt.Root, "package.yaml")); err == nil {
		t.Error("the package.yaml layer was unpacked with the runtime")
	}

	rt2, err := newClient(reg.Host).FunctionRuntime(ctx, ref)
	if err != nil || !rt2.FromCache || rt2.Stale != nil || rt2.Executable != rt.Executable {
		t.Errorf("again: %+v, %v", rt2, err)
	}

	t.Run("nothing to run here", func(t *testing.T) {
		c := newClient(reg.Host)
		rt, err := c.FunctionRuntime(ctx, reg.Host+"/x/no-runtime:v1.0.0")
		if err != nil || !strings.Contains(rt.NoRuntime, "embeds no runtime image") || rt.Executable != "" {
			t.Errorf("no runtime: %+v, %v", rt, err)
		}
		rt, err = c.FunctionRuntime(ctx, reg.Host+"/x/foreign:v1.0.0")
		if err != nil || rt.NoRuntime != fmt.Sprintf("the package has no image for linux/%s (only linux/%s)", runtime.GOARCH, other) {
			t.Errorf("foreign: %+v, %v", rt, err)
		}
		_, err = c.FunctionRuntime(ctx, reg.Host+"/x/unsafe:v1.0.0")
		if KindOf(err) != KindInvalid || !strings.Contains(fmt.Sprint(err), "leaves the archive") {
			t.Errorf("unsafe: %v", err)
		}
		if _, err := c.FunctionRuntime(ctx, reg.Host+"/x/no-tag"); err == nil || !strings.Contains(err.Error(), "names no tag or digest") {
			t.Errorf("no tag: %v", err)
		}
	})

	t.Run("tampered layer", func(t *testing.T) {
		target, _ := url.Parse("http://" + reg.Host)
		img := functionImage("#!/bin/sh\necho the function\n")
		bin := fmt.Sprintf("sha256:%x", sha256.Sum256(img.Layers[1].Data))
		proxy := httptest.NewServer(xpkgtest.BlobTamper(map[string]func([]byte) []byte{
			bin: func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)/2] ^= 1; return b },
		})(httputil.NewSingleHostReverseProxy(target)))
		defer proxy.Close()
		host := strings.TrimPrefix(proxy.URL, "http://")
		tcache := t.TempDir()
		c, err := New(Options{CacheDir: tcache, Insecure: []string{host}, DockerConfig: filepath.Join(dir, "none.json")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.FunctionRuntime(ctx, host+"/"+repo+":v1.0.0")
		if KindOf(err) != KindInvalid || !strings.Contains(err.Error(), "digest") {
			t.Errorf("tampered: %v", err)
		}
		if ents, _ := os.ReadDir(filepath.Join(tcache, "runtimes")); len(ents) != 1 || !strings.HasSuffix(ents[0].Name(), ".lock") {
			t.Errorf("the cache kept something of a tampered image: %v", ents)
		}
	})

	// The registry goes away: the digest is served from the cache with no
	// network, the tag with a warning.
	reg.Stop()
	c := newClient(reg.Host)
	rt3, err := c.FunctionRuntime(ctx, reg.Host+"/"+repo+"@"+dgst)
	if err != nil || !rt3.FromCache || rt3.Stale != nil || rt3.Executable != rt.Executable {
		t.Errorf("by digest, offline: %+v, %v", rt3, err)
	}
	rt4, err := c.FunctionRuntime(ctx, ref)
	if err != nil || !rt4.FromCache || !IsWarning(rt4.Stale) || KindOf(rt4.Stale) != KindNetwork || rt4.Digest != dgst {
		t.Fatalf("by tag, offline: %+v, %v", rt4, err)
	}
	if msg := rt4.Stale.Error(); !strings.Contains(msg, "using the cached "+dgst) {
		t.Errorf("stale warning = %q", msg)
	}
	// A corrupt copy is not served (and is removed).
	if err := os.WriteFile(rt.Executable, []byte("#!/bin/sh\necho tampered\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if rt5, err := c.FunctionRuntime(ctx, ref); err == nil {
		t.Errorf("a corrupt cached runtime was served: %+v", rt5)
	}
	if _, err := os.Stat(filepath.Dir(rt.Root)); err == nil {
		t.Error("the corrupt runtime is still in the cache")
	}
}
