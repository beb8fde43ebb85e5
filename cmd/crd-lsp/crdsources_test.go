package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

func bucketCRD(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const badBucket = "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n"

// TestCheckCRDSourceURL: check --crds URL reads a release's CRD file over
// HTTP (a loopback server), validates with it, and uses the cached copy
// once the server is gone.
func TestCheckCRDSourceURL(t *testing.T) {
	crd := bucketCRD(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/releases/v2.6.0/provider-aws-s3.crds.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write(crd)
	}))
	dir, cache := t.TempDir(), t.TempDir()
	f := filepath.Join(dir, "bucket.yaml")
	writeFile(t, f, badBucket)
	url := srv.URL + "/releases/v2.6.0/provider-aws-s3.crds.yaml"
	want := f + `:8:24: error: must be of type boolean: "string" [type]`

	_, out, _ := runCmd(t, "", "check", "--cache-dir", cache, dir)
	if !strings.Contains(out, "no schema for s3.aws.upbound.io/v1beta1 Bucket") {
		t.Fatalf("without --crds:\n%s", out)
	}
	code, out, errOut := runCmd(t, "", "check", "--cache-dir", cache, "--crds", url, dir)
	if code != 1 || !strings.Contains(out, want) || hits.Load() != 1 {
		t.Fatalf("with --crds: exit %d (%d requests)\n%s\n%s", code, hits.Load(), out, errOut)
	}
	srv.Close()
	code, out, errOut = runCmd(t, "", "check", "--cache-dir", cache, "--crds", url, dir)
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(errOut, "the cached copy") {
		t.Errorf("server gone: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "", "check", "--cache-dir", cache, "--crds", srv.URL+"/other.crds.yaml", dir)
	if !strings.Contains(errOut, "other.crds.yaml") || !strings.Contains(out, "no schema for") {
		t.Errorf("an unreachable, uncached source: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCheckCRDSourceHelmChart: check --crds oci://… pulls a Helm chart
// pushed to Debian's docker-registry on loopback and reads its crds/
// folder and the templates that are plain CRDs (not templated ones).
func TestCheckCRDSourceHelmChart(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	tgz := xpkgtest.Tar(true,
		xpkgtest.Entry{Name: "aws-s3/Chart.yaml", Body: []byte("apiVersion: v2\nname: aws-s3\nversion: 1.0.0\n")},
		xpkgtest.Entry{Name: "aws-s3/crds/s3.aws.upbound.io_buckets.yaml", Body: bucketCRD(t)},
		xpkgtest.Entry{Name: "aws-s3/templates/widgets.yaml", Body: xpkgtest.CRD("example.org", "Widget", "v1")},
		xpkgtest.Entry{Name: "aws-s3/templates/gadgets.yaml", Body: []byte("{{- if .Values.gadgets }}\n" + string(xpkgtest.CRD("example.org", "Gadget", "v1")) + "{{- end }}\n")},
	)
	xpkgtest.PushChart(t, reg.Host, "charts/aws-s3", "1.0.0", tgz, `{"name":"aws-s3","version":"1.0.0","apiVersion":"v2"}`)

	dir, cache := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "bucket.yaml"), badBucket)
	writeFile(t, filepath.Join(dir, "things.yaml"), "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: big\n---\napiVersion: example.org/v1\nkind: Gadget\nmetadata:\n  name: g\n")
	ref := "oci://" + reg.Host + "/charts/aws-s3:1.0.0"
	code, out, errOut := runCmd(t, "", "check", "--cache-dir", cache, "--insecure", reg.Host, "--crds", ref, dir)
	for _, want := range []string{
		filepath.Join(dir, "bucket.yaml") + `:8:24: error: must be of type boolean: "string" [type]`,
		filepath.Join(dir, "things.yaml") + `:6:9: error: must be of type integer: "string" [type]`,
		filepath.Join(dir, "things.yaml") + `:9:7: warning: no schema for example.org/v1 Gadget`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: exit %d\n%s\n%s", want, code, out, errOut)
		}
	}
	reg.Stop()
	_, out2, errOut := runCmd(t, "", "check", "--cache-dir", cache, "--insecure", reg.Host, "--crds", ref, dir)
	if out2 != out || !strings.Contains(errOut, "the cached copy") {
		t.Errorf("registry gone: stdout\n%s\nstderr\n%s", out2, errOut)
	}
}
