package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// TestCheckClusterKubernetesVersion runs the real binary with --cluster
// against a real API server behind the recording proxy, which answers
// /version as a cluster of the chosen release: the cluster's minor
// chooses the built-in Kubernetes schemas (a field added in 1.36 is an
// error on a 1.34 cluster, not on a 1.37 one, also when the cluster was
// upgraded since the cached copy), --kubernetes-version overrides it, and
// a cluster whose minor is not built in gets the nearest, said once.
func TestCheckClusterKubernetesVersion(t *testing.T) {
	s := apiserver.Start(t)
	rec := s.Record(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	rec.Kubeconfig(t, kubeconfig, "kv")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "deploy.yaml"), []byte(kubernetesVersionFiles["deploy.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "HOME=" + filepath.Join(dir, "home"), "KUBECONFIG="}
	group := func(minor string) string {
		return `:12:7: error: unknown field "schedulingGroup": spec.template.spec.schedulingGroup is not in Kubernetes ` + minor + ` (added in 1.36) [unknown-field]`
	}
	bind := func(minor string) string {
		return `:20:11: error: unknown field "bindMountOptions": spec.template.spec.containers[0].volumeMounts[0].bindMountOptions is not in Kubernetes ` + minor + ` (added in 1.37) [unknown-field]`
	}
	note := "crd-lsp check: the cluster runs Kubernetes 1.31, which has no built-in schemas (built in: 1.34, 1.35, 1.36, 1.37); using the nearest, Kubernetes 1.34\n"

	for _, c := range []struct {
		what, cluster string
		flags         []string
		code          int
		want, not     []string
		stderr        string
	}{
		{what: "a 1.34 cluster", cluster: "v1.34.3", code: 1, want: []string{group("1.34"), bind("1.34")}},
		{what: "a 1.34 cluster, --kubernetes-version 1.37", cluster: "v1.34.3", flags: []string{"--kubernetes-version", "1.37"}, not: []string{"schedulingGroup", "bindMountOptions"}},
		{what: "the cluster upgraded to 1.37", cluster: "v1.37.1", not: []string{"schedulingGroup", "bindMountOptions"}},
		{what: "the cluster at 1.36", cluster: "v1.36.0", code: 1, want: []string{bind("1.36")}, not: []string{"schedulingGroup"}},
		{what: "a 1.31 cluster", cluster: "v1.31.0", code: 1, want: []string{group("1.34"), bind("1.34")}, stderr: note},
		{what: "a 1.31 cluster, --kubernetes-version 1.36", cluster: "v1.31.0", flags: []string{"--kubernetes-version=1.36"}, code: 1, want: []string{bind("1.36")}, not: []string{"schedulingGroup"}},
	} {
		rec.ServeVersion(c.cluster)
		args := append(append([]string{"check", "--cluster", "--kubeconfig", kubeconfig, "--context", "kv"}, c.flags...), ws)
		code, out, errOut := runBin(t, env, "", args...)
		if code != c.code || errOut != c.stderr {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, stderr %q\n%s", c.what, code, errOut, c.code, c.stderr, out)
		}
		for _, w := range c.want {
			if strings.Count(out, w) != 1 {
				t.Errorf("%s: want %q once in\n%s", c.what, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: %q in\n%s", c.what, n, out)
			}
		}
		asked := false
		for _, r := range rec.Requests() {
			asked = asked || r.Method == http.MethodGet && r.Path == "/version" && r.Status == http.StatusOK
		}
		if !asked {
			t.Errorf("%s: the cluster's version was not read", c.what)
		}
	}
}
