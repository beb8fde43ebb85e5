//go:build unix

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileCluster writes a kubeconfig (context "hostile") for an API
// server on loopback whose CRD list is list, with the user stanza user.
func hostileCluster(t *testing.T, list, user string) (kubeconfig, server string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
		case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
			w.Write([]byte(list))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, kc, "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \""+srv.URL+"\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: hostile\ncurrent-context: hostile\nusers:\n- name: u\n  user:\n"+user)
	return kc, srv.URL
}

// TestCheckClusterExecPluginFails: check --cluster whose kubeconfig exec
// plugin exits non-zero tells the user, on stderr, the context, the
// server, the plugin, its exit status and what it said, then checks the
// files without the cluster.
func TestCheckClusterExecPluginFails(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	plugin := filepath.Join(t.TempDir(), "cred-plugin")
	writeFile(t, plugin, "#!/bin/sh\necho 'error: the SSO session has expired; run: aws sso login' >&2\nexit 3\n")
	if err := os.Chmod(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	kc, server := hostileCluster(t, `{"kind":"CustomResourceDefinitionList","items":[]}`, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: Never\n")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "w.yaml"), "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\n")
	_, out, errOut := runCmd(t, "", "check", "--cluster", "--kubeconfig", kc, "--cluster-timeout", "5s", dir)
	want := `crd-lsp check: cluster context "hostile" (` + server + `): the kubeconfig's exec credential plugin ` + plugin + `: exit status 3; it said: error: the SSO session has expired; run: aws sso login; no cached copy`
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if !strings.Contains(out, "no schema for example.org/v1 Widget") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestCheckClusterDeepSchema: a cluster serving a CRD whose schema nests
// 1,000 objects deep: check validates a resource against it — the wrong
// type at the bottom is found and placed — in seconds.
func TestCheckClusterDeepSchema(t *testing.T) {
	const depth = 1000
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	schema := strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"integer"}` + strings.Repeat(`}}`, depth)
	list := fmt.Sprintf(`{"kind":"CustomResourceDefinitionList","items":[{"metadata":{"name":"deeps.example.org","resourceVersion":"1"},"spec":{"group":"example.org","scope":"Namespaced","names":{"kind":"Deep","plural":"deeps","singular":"deep","listKind":"DeepList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":%s}}}}]}}]}`, schema)
	kc, _ := hostileCluster(t, list, "    token: t\n")
	dir := t.TempDir()
	var doc strings.Builder
	doc.WriteString("apiVersion: example.org/v1\nkind: Deep\nmetadata:\n  name: d\nspec:")
	for range depth {
		doc.WriteString(" {a:")
	}
	doc.WriteString(" x" + strings.Repeat("}", depth) + "\n")
	writeFile(t, filepath.Join(dir, "deep.yaml"), doc.String())
	start := time.Now()
	code, out, errOut := runCmd(t, "", "check", "--cluster", "--kubeconfig", kc, dir)
	took := time.Since(start)
	t.Logf("check took %s", took)
	if code != 1 || !strings.Contains(out, `must be of type integer: "string"`) || !strings.Contains(out, "1 file checked: 1 error") || errOut != "" {
		t.Errorf("exit %d, stderr %q\n%.2000s", code, errOut, out)
	}
}
