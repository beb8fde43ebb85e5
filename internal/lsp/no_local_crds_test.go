package lsp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// externalSecret has a refreshPolicy outside the CRD's enum and a
// secretKey its pattern refuses.
const externalSecret = `apiVersion: external-secrets.io/v1
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
`

// TestNoLocalCRDs: a workspace with no CRDs at all, an Upbound project
// (upbound.yaml) whose provider is pushed to Debian's docker-registry on
// loopback, with crdLsp.schemaCatalogs naming a catalog on a loopback HTTP
// server (verbatim datreeio/CRDs-catalog files) and crdLsp.cluster a real
// API server serving External Secrets' real CRD: a cert-manager
// Certificate is validated from the catalog, an ExternalSecret from the
// cluster and an S3 Bucket from the project's dependency (which wins over
// the cluster's looser Bucket); hover names each source.
func TestNoLocalCRDs(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	bucketCRD, err := os.ReadFile(filepath.Join(corpusdir.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	xpkgtest.Push(t, reg.Host, "upbound/provider-aws-s3", "v2.6.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "provider-aws-s3"), bucketCRD)))

	catalog := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "remote", "testdata", "catalog"))))
	defer catalog.Close()

	s := apiserver.Start(t)
	eso, err := os.ReadFile(filepath.Join("..", "remote", "testdata", "cluster", "external-secrets.io_externalsecrets.yaml"))
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
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	s.Kubeconfig(t, kubeconfig, "prod")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	up := "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n  - provider: " + reg.Host + "/upbound/provider-aws-s3\n    version: \">=v2.0.0\"\n"
	if err := os.WriteFile(filepath.Join(ws, "upbound.yaml"), []byte(up), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: ws, Settings: map[string]any{
		"cacheDir":       filepath.Join(dir, "packages"),
		"registries":     map[string]any{"insecure": []string{reg.Host}},
		"schemaCatalogs": []string{catalog.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"},
		"cluster":        map[string]any{"enabled": true, "kubeconfig": kubeconfig, "context": "prod"},
	}})
	e.AwaitSchemas(30 * time.Second)

	e.Open("apps/cert.yaml", "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\nspec:\n  secretNam: web-tls\n  issuerRef:\n    name: letsencrypt\n")
	e.Open("apps/secret.yaml", externalSecret)
	e.Open("apps/bucket.yaml", "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n")

	cert := waitDiags(t, e, "apps/cert.yaml", 60*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-field", "secretNam") != nil })
	secret := waitDiags(t, e, "apps/secret.yaml", 60*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "enum", "Sometimes") != nil })
	bucket := waitDiags(t, e, "apps/bucket.yaml", 60*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "boolean") != nil })
	for name, ds := range map[string][]protocol.Diagnostic{"cert": cert, "secret": secret, "bucket": bucket} {
		if hasDiag(ds, "unknown-kind", "") != nil {
			t.Errorf("%s: the kind is unknown: %+v", name, ds)
		}
	}
	if d := hasDiag(secret, "enum", "Sometimes"); d.Range.Start.Line != 5 {
		t.Errorf("refreshPolicy enum at %v", d.Range.Start)
	}
	if d := hasDiag(secret, "pattern", ""); d == nil || d.Range.Start.Line != 10 {
		t.Errorf("secretKey pattern: %+v", secret)
	}
	for _, h := range []struct {
		path      string
		line, col int
		want      string
	}{
		{"apps/cert.yaml", 6, 4, "Schema: catalog `" + catalog.URL + "/cert-manager.io/certificate_v1.json`"},
		{"apps/secret.yaml", 6, 4, "Schema: cluster `prod`, read "},
		{"apps/bucket.yaml", 5, 4, "Schema: package `" + reg.Host + "/upbound/provider-aws-s3:v2.6.0`"},
	} {
		if got := e.Hover(h.path, h.line, h.col); got == nil || !strings.Contains(got.Contents.(*protocol.MarkupContent).Value, h.want) {
			t.Errorf("hover in %s: want %q, got %+v", h.path, h.want, got)
		}
	}
}
