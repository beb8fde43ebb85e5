package lsp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestSchemaCatalog: with crdLsp.schemaCatalogs naming a catalog served
// over loopback HTTP (verbatim files of datreeio/CRDs-catalog), a
// workspace with no CRDs validates cert-manager Certificates; hover says
// the schema came from the catalog; a kind typed later (Issuer) is fetched
// then; each schema is fetched once.
func TestSchemaCatalog(t *testing.T) {
	var requests atomic.Int64
	files := http.FileServer(http.Dir(filepath.Join("..", "remote", "testdata", "catalog")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	settings := map[string]any{"schemaCatalogs": []string{srv.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"}}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: settings})
	e.AwaitSchemas(30 * time.Second)

	cert := "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\nspec:\n  secretNam: web-tls\n  issuerRef:\n    name: letsencrypt\n"
	e.Open("cert.yaml", cert)
	ds := waitDiags(t, e, "cert.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-field", "secretNam") != nil })
	d := hasDiag(ds, "unknown-field", "secretNam")
	if d.Range.Start.Line != 5 || !strings.Contains(lsptest.Message(*d), "schema from the catalog "+srv.URL+"/cert-manager.io/certificate_v1.json") {
		t.Errorf("unknown-field = %+v", d)
	}
	if hasDiag(ds, "unknown-kind", "") != nil {
		t.Errorf("the kind is still unknown: %+v", ds)
	}
	if h := e.Hover("cert.yaml", 6, 4); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: catalog `"+srv.URL+"/cert-manager.io/certificate_v1.json` (a JSON Schema converted from a CRD: no CEL rules, reduced fidelity)") {
		t.Errorf("hover on spec.issuerRef = %+v", h)
	}

	issuer := "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: ca\nspec:\n  ca:\n    secretNme: ca\n"
	e.Open("issuer.yaml", issuer)
	waitDiags(t, e, "issuer.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-field", "secretNme") != nil })
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests to the catalog, want 2 (one per kind)", n)
	}
}

// TestCRDSources: crdLsp.crdSources naming a CRD file on a loopback HTTP
// server: its kinds are validated in the editor, hover names the source.
func TestCRDSources(t *testing.T) {
	crd, err := os.ReadFile(filepath.Join(corpusdir.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(crd) }))
	defer srv.Close()
	url := srv.URL + "/provider-aws-s3.crds.yaml"
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"cacheDir": t.TempDir(), "crdSources": []string{url}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("bucket.yaml", "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n")
	ds := waitDiags(t, e, "bucket.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "boolean") != nil })
	if d := hasDiag(ds, "type", "boolean"); d.Range.Start.Line != 7 {
		t.Errorf("type error at %v", d.Range.Start)
	}
	if h := e.Hover("bucket.yaml", 6, 6); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: package `"+url+":sha256:") {
		t.Errorf("hover = %+v", h)
	}
}

// TestUpboundProject: in the editor, an Upbound project's upbound.yaml
// (no crossplane.yaml) is a package root: its dependency, pushed to
// Debian's docker-registry on loopback, is pulled in the background and
// its kinds validate the project's files.
func TestUpboundProject(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	crd, err := os.ReadFile(filepath.Join(corpusdir.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	xpkgtest.Push(t, reg.Host, "upbound/provider-aws-s3", "v2.6.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "provider-aws-s3"), crd)))
	dir := t.TempDir()
	up := "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n  - provider: " + reg.Host + "/upbound/provider-aws-s3\n    version: \">=v2.0.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "upbound.yaml"), []byte(up), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"cacheDir": t.TempDir(), "registries": map[string]any{"insecure": []string{reg.Host}}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("examples/bucket.yaml", "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n")
	ds := waitDiags(t, e, "examples/bucket.yaml", 60*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "boolean") != nil })
	if hasDiag(ds, "unknown-kind", "") != nil {
		t.Errorf("diagnostics = %+v", ds)
	}
	// The project file itself: hover on its dependency tells what it resolved to.
	e.Open("upbound.yaml", up)
	if h := e.Hover("upbound.yaml", 6, 16); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "v2.6.0") {
		t.Errorf("hover on the dependency = %+v", h)
	}
}
