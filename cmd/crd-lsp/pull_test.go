package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

func TestPullUsageErrors(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{
		{"pull", "--bogus"},
		{"pull", "a", "b"},
		{"pull", filepath.Join(empty, "missing")},
		{"pull", "--cache-dir", t.TempDir(), empty}, // no crossplane.yaml
	} {
		if code, _, errOut := runCmd(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPullDockerRegistry runs `crd-lsp pull` against Debian's real
// docker-registry: resolution, transitive Configurations, errors with
// positions and exit codes, then the cache, then the registry gone.
func TestPullDockerRegistry(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	crds := filepath.Join(corpus(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(crds, f))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	meta := xpkgtest.Meta("Provider", "provider-aws-s3")
	h := reg.Host
	xpkgtest.Push(t, h, "crossplane-contrib/provider-upjet-aws-s3", "v2.0.0", xpkgtest.XPkg(xpkgtest.Stream(meta, read("s3.aws.upbound.io_buckets.yaml"))))
	xpkgtest.Push(t, h, "crossplane-contrib/provider-upjet-aws-s3", "v2.1.0", xpkgtest.XPkg(xpkgtest.Stream(meta, read("s3.aws.upbound.io_buckets.yaml"), read("s3.aws.upbound.io_bucketacls.yaml"))))
	xpkgtest.Push(t, h, "crossplane-contrib/provider-upjet-aws-ec2", "v2.1.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "provider-aws-ec2"), read("ec2.aws.upbound.io_vpcs.yaml"))))
	// A Configuration depending on the ec2 provider (unqualified name:
	// --registry-default applies).
	xpkgtest.Push(t, h, "platform/configuration-network", "v0.3.0", xpkgtest.XPkg(xpkgtest.Stream(
		xpkgtest.Meta("Configuration", "configuration-network", "provider: crossplane-contrib/provider-upjet-aws-ec2\nversion: \">=v2.0.0\""),
		[]byte("apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnetworks.platform.example.org\nspec: {}\n"),
		[]byte("apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: network\nspec: {}\n"))))

	dir := t.TempDir()
	good := "apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n" +
		"    - provider: " + h + "/crossplane-contrib/provider-upjet-aws-s3\n      version: \">=v2.0.0 <v3.0.0\"\n" +
		"    - configuration: platform/configuration-network\n      version: v0.3.0\n"
	writeFile(t, filepath.Join(dir, "ok", "crossplane.yaml"), good)
	writeFile(t, filepath.Join(dir, "bad", "crossplane.yaml"), "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: bad\nspec:\n  dependsOn:\n"+
		"    - provider: "+h+"/crossplane-contrib/provider-upjet-aws-s3\n      version: \">=v9\"\n"+
		"    - function: "+h+"/crossplane-contrib/function-missing\n      version: v1.0.0\n")
	writeFile(t, filepath.Join(dir, ".hidden", "crossplane.yaml"), "not: read\n")
	cache := t.TempDir()
	args := func(quiet bool, dir string) []string {
		a := []string{"pull", "--cache-dir", cache, "--insecure", h, "--registry-default", h, dir}
		if quiet {
			a = append([]string{"pull", "--quiet"}, a[1:]...)
		}
		return a
	}

	code, out, errOut := runCmd(t, "", args(true, dir)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (bad/ fails):\n%s\n%s", code, out, errOut)
	}
	okFile, badFile := filepath.Join(dir, "ok", "crossplane.yaml"), filepath.Join(dir, "bad", "crossplane.yaml")
	for _, want := range []string{
		`(?m)^` + regexp.QuoteMeta(h) + `/crossplane-contrib/provider-upjet-aws-s3 v2\.1\.0 [0-9a-f]{12} Provider 2 CRDs \(registry\)$`,
		`(?m)^` + regexp.QuoteMeta(h) + `/platform/configuration-network v0\.3\.0 [0-9a-f]{12} Configuration 1 XRD, 1 Composition \(registry\)$`,
		`(?m)^` + regexp.QuoteMeta(h) + `/crossplane-contrib/provider-upjet-aws-ec2 v2\.1\.0 [0-9a-f]{12} Provider 1 CRD \(registry\)$`,
		regexp.QuoteMeta(badFile + `:8:16: error: no version of ` + h + `/crossplane-contrib/provider-upjet-aws-s3 satisfies ">=v9"; newest tags: v2.1.0, v2.0.0 [package-no-match]`),
		regexp.QuoteMeta(badFile + `:9:17: error: ` + h + `/crossplane-contrib/function-missing not found in registry ` + h + ` [package-not-found]`),
		`(?m)^3 packages in 2 crossplane\.yaml files: 2 errors, 0 warnings$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}

	// Again, only ok/: everything from the cache, exit 0; progress on stderr.
	code, out, errOut = runCmd(t, "", args(false, filepath.Join(dir, "ok"))...)
	if code != 0 || strings.Count(out, "(cache)") != 3 || strings.Contains(out, "(registry)") {
		t.Errorf("second pull: exit %d:\n%s", code, out)
	}
	if !strings.Contains(errOut, "Up to date "+h+"/crossplane-contrib/provider-upjet-aws-s3:v2.1.0") {
		t.Errorf("progress on stderr = %q", errOut)
	}

	// The registry is gone: still exit 0, with warnings, from the cache.
	reg.Stop()
	code, out, _ = runCmd(t, "", args(true, filepath.Join(dir, "ok"))...)
	if code != 0 || strings.Count(out, "(cache)") != 3 || !strings.Contains(out, okFile+":7:17: warning: cannot reach registry "+h) || !strings.Contains(out, "[package-network]") {
		t.Errorf("offline pull: exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "(required by "+h+"/platform/configuration-network:v0.3.0)") {
		t.Errorf("offline pull lacks the transitive chain:\n%s", out)
	}
}

// faultyRegistry is a loopback registry holding x/p:v1.0.0 that
// misbehaves on demand, and a crossplane.yaml depending on it.
func faultyRegistry(t *testing.T) (faults *xpkgtest.Faults, host, layer, dir string) {
	faults = xpkgtest.NewFaults()
	host = xpkgtest.MemRegistry(t, faults.Wrap)
	data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: xpkgtest.Stream(xpkgtest.Meta("Provider", "p"), xpkgtest.CRD("example.org", "Thing", "v1"))})
	xpkgtest.Push(t, host, "x/p", "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "crossplane.yaml"), "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: app\nspec:\n  dependsOn:\n"+
		"    - apiVersion: pkg.crossplane.io/v1\n      kind: Provider\n      package: "+host+"/x/p\n      version: \">=v1.0.0\"\n")
	return faults, host, fmt.Sprintf("sha256:%x", sha256.Sum256(data)), dir
}

// `crd-lsp pull` no longer waits forever on a registry that trickles a
// layer or never answers: --pull-timeout and --timeout end it with a
// message naming the registry.
func TestPullDeadlines(t *testing.T) {
	faults, host, layer, dir := faultyRegistry(t)
	faults.Set(layer, xpkgtest.Trickle(10*time.Millisecond))
	code, out, errOut := runCmd(t, "", "pull", "--quiet", "--cache-dir", t.TempDir(), "--insecure", host, "--pull-timeout", "300ms", dir)
	want := filepath.Join(dir, "crossplane.yaml") + ":9:16: error: pulling " + host + "/x/p:v1.0.0 from registry " + host + " did not finish within 300ms (the pull deadline; layer " + layer + " at "
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "[package-network]") {
		t.Errorf("trickled layer: exit %d, want 1 and %q…:\n%s\n%s", code, want, out, errOut)
	}

	faults.Set(layer, nil)
	faults.Set("tags", xpkgtest.Hang())
	code, out, errOut = runCmd(t, "", "pull", "--quiet", "--cache-dir", t.TempDir(), "--insecure", host, "--timeout", "200ms", dir)
	want = ":9:16: error: registry " + host + " did not answer within 200ms (listing tags of " + host + "/x/p) [package-network]"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("silent registry: exit %d, want 1 and %q:\n%s\n%s", code, want, out, errOut)
	}

	if code, _, errOut := runCmd(t, "", "pull", "--timeout", "0s", dir); code != 2 || !strings.Contains(errOut, "must be positive") {
		t.Errorf("--timeout 0s: exit %d, %q", code, errOut)
	}
}
