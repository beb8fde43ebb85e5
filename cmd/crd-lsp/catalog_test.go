package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// catalogServer serves internal/remote/testdata/catalog (verbatim files
// of datreeio/CRDs-catalog) over HTTP on loopback, counting the requests
// per path.
func catalogServer(t *testing.T) (*httptest.Server, func(string) int) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int{}
	files := http.FileServer(http.Dir(filepath.Join("..", "..", "internal", "remote", "testdata", "catalog")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func(p string) int { mu.Lock(); defer mu.Unlock(); return hits[p] }
}

// TestCheckCatalog: a workspace with no CRDs validates cert-manager
// Certificates from a schema catalog (kubeconform's location template),
// fetched once over HTTP, then from the cache with the server gone.
func TestCheckCatalog(t *testing.T) {
	srv, hits := catalogServer(t)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	dir := filepath.Join("testdata", "catalog")
	f := filepath.Join(dir, "certificates.yaml")

	// Without a catalog the kind is unknown.
	_, out, _ := runBin(t, env, "", "check", dir)
	if !strings.Contains(out, f+`:2:7: warning: no schema for cert-manager.io/v1 Certificate`) {
		t.Fatalf("without a catalog:\n%s", out)
	}

	loc := srv.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"
	note := "(schema from the catalog " + srv.URL + "/cert-manager.io/certificate_v1.json, a JSON Schema converted from a CRD: no CEL rules, reduced fidelity)"
	want := []string{
		f + `:18:1: error: missing required field "secretName" ` + note + ` [required]`,
		f + `:19:3: error: unknown field "secretNam"; did you mean "secretName"? ` + note + ` [unknown-field]`,
		f + `:20:3: error: missing required field "name" ` + note + ` [required]`,
		f + `:23:16: error: unsupported value "DSA": supported values: "RSA", "ECDSA", "Ed25519" ` + note + ` [enum]`,
		"1 file checked: 4 errors",
	}
	checkOut := func(what string) {
		t.Helper()
		code, out, errOut := runBin(t, env, "", "check", "--catalog", loc, dir)
		if code != 1 {
			t.Fatalf("%s: exit %d, stderr %s\n%s", what, code, errOut, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", what, w, out)
			}
		}
		if strings.Contains(out, "no schema for") || strings.Contains(out, ":8:") {
			t.Errorf("%s: the valid Certificate or the kind is reported:\n%s", what, out)
		}
	}
	checkOut("first run")
	if n := hits("/cert-manager.io/certificate_v1.json"); n != 1 {
		t.Fatalf("certificate_v1.json fetched %d times, want 1", n)
	}
	checkOut("second run")
	if n := hits("/cert-manager.io/certificate_v1.json"); n != 1 {
		t.Errorf("the cached schema was fetched again (%d requests)", n)
	}
	srv.Close()
	checkOut("catalog server gone")
}

// TestCheckCatalogCRDWins: a real CRD of the kind in the workspace wins
// over the catalog, which is then not even asked.
func TestCheckCatalogCRDWins(t *testing.T) {
	srv, hits := catalogServer(t)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "catalog", "certificates.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Certificate, plural: certificates}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
`
	for name, text := range map[string]string{"certificates.yaml": string(b), "crd.yaml": crd} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runBin(t, env, "", "check", "--catalog", srv.URL+"/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json", dir)
	if code != 0 || strings.Contains(out, "catalog") {
		t.Errorf("exit %d, stderr %s\n%s", code, errOut, out)
	}
	if n := hits("/cert-manager.io/certificate_v1.json"); n != 0 {
		t.Errorf("the catalog was asked %d times for a kind the workspace defines", n)
	}
}

// TestCheckCatalogComposedKind: a kind only a Composition composes (a P&T
// base) is looked up in the catalog too, and the base is validated with
// its schema, said to come from the catalog.
func TestCheckCatalogComposedKind(t *testing.T) {
	srv, hits := catalogServer(t)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	dir := filepath.Join("testdata", "catalog-composition")
	_, out, errOut := runBin(t, env, "", "check", "--catalog", srv.URL+"/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json", dir)
	want := filepath.Join(dir, "composition.yaml") + `:23:17: error: unknown field "secretNam"; did you mean "secretName"? (schema from the catalog ` + srv.URL + `/cert-manager.io/certificate_v1.json, a JSON Schema converted from a CRD: no CEL rules, reduced fidelity) [unknown-field]`
	if !strings.Contains(out, want) || hits("/cert-manager.io/certificate_v1.json") != 1 {
		t.Errorf("output lacks %q:\n%s\n%s", want, out, errOut)
	}
}
