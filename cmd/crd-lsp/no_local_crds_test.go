package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// TestCheckNoLocalCRDs: the real binary on a workspace with no CRDs at
// all, an Upbound project (upbound.yaml) whose provider is pushed to
// Debian's docker-registry on loopback: after `crd-lsp pull`, `check
// --catalog --cluster` validates a cert-manager Certificate from a
// catalog on a loopback HTTP server (verbatim datreeio/CRDs-catalog
// files), an ExternalSecret from a real API server serving External
// Secrets' real CRD, and an S3 Bucket from the project's dependency (which
// wins over the Bucket the cluster serves, looser); with
// the catalog and the cluster gone, the caches give the same findings.
func TestCheckNoLocalCRDs(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	bucketCRD, err := os.ReadFile(filepath.Join(corpus(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	xpkgtest.Push(t, reg.Host, "upbound/provider-aws-s3", "v2.6.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "provider-aws-s3"), bucketCRD)))
	catalog, _ := catalogServer(t)
	s := apiserver.Start(t)
	eso, err := os.ReadFile(filepath.Join("..", "..", "internal", "remote", "testdata", "cluster", "external-secrets.io_externalsecrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.CreateCRD(t, string(eso))
	// The cluster also serves the provider's Bucket, with objectLockEnabled
	// a string: the package's definition must win.
	looser := strings.ReplaceAll(string(bucketCRD), "regions or partitions.\n                    type: boolean", "regions or partitions.\n                    type: string")
	if looser == string(bucketCRD) {
		t.Fatal("the corpus's Bucket CRD changed: no objectLockEnabled boolean to loosen")
	}
	s.CreateCRD(t, looser)

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	s.Kubeconfig(t, kubeconfig, "prod")
	ws, cache := filepath.Join(dir, "ws"), filepath.Join(dir, "packages")
	writeFile(t, filepath.Join(ws, "upbound.yaml"), "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n  - provider: "+reg.Host+"/upbound/provider-aws-s3\n    version: \">=v2.0.0\"\n")
	cert, secret, bucket := filepath.Join(ws, "apps", "cert.yaml"), filepath.Join(ws, "apps", "secret.yaml"), filepath.Join(ws, "apps", "bucket.yaml")
	writeFile(t, cert, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\nspec:\n  secretNam: web-tls\n  issuerRef:\n    name: letsencrypt\n")
	writeFile(t, secret, `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  refreshPolicy: Sometimes
  secretStoreRef:
    name: vault
    kind: SecretStore
  data:
  - secretKey: "db password"
    remoteRef:
      key: db/password
`)
	writeFile(t, bucket, "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n")
	env := []string{"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "HOME=" + filepath.Join(dir, "home"), "KUBECONFIG="}

	if code, out, errOut := runBin(t, env, "", "pull", "--cache-dir", cache, "--insecure", reg.Host, ws); code != 0 {
		t.Fatalf("pull: exit %d\n%s\n%s", code, out, errOut)
	}
	args := []string{"check", "--cache-dir", cache, "--catalog", catalog.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json",
		"--cluster", "--kubeconfig", kubeconfig, "--context", "prod", ws}
	code, online, errOut := runBin(t, env, "", args...)
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		cert + `:6:3: error: unknown field "secretNam"; did you mean "secretName"?`,
		secret + `:6:18: error: unsupported value "Sometimes": supported values: "CreatedOnce", "Periodic", "OnChange"`,
		secret + `:11:16: error: should match '^[-._a-zA-Z0-9]+$' [pattern]`,
		bucket + `:8:24: error: must be of type boolean: "string" [type]`,
	} {
		if !strings.Contains(online, want) {
			t.Errorf("missing %q in:\n%s", want, online)
		}
	}
	if strings.Contains(online, "no schema") {
		t.Errorf("a kind stays unknown:\n%s", online)
	}

	catalog.Close()
	s.Stop()
	code, offline, errOut := runBin(t, env, "", args...)
	if code != 1 || offline != online {
		t.Errorf("offline: exit %d, findings differ:\n%s\nwant:\n%s", code, offline, online)
	}
	if !strings.Contains(errOut, `cluster context "prod" (`+s.Base+`)`) || !strings.Contains(errOut, "using the copy read") {
		t.Errorf("offline stderr: %q", errOut)
	}
}
