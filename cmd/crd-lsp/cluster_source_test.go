package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// widgetCRD is served by the test's API server only: a CEL rule, a
// default, a map-keyed list and an enum, as a cluster's CRD carries them.
const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.live.crd-lsp.dev"},
  "spec": {
    "group": "live.crd-lsp.dev",
    "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
    "scope": "Namespaced",
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {
            "type": "object",
            "required": ["size"],
            "x-kubernetes-validations": [{"rule": "self.size <= self.max", "message": "size must not exceed max"}],
            "properties": {
              "size": {"type": "integer", "minimum": 1},
              "max": {"type": "integer", "default": 10},
              "mode": {"type": "string", "enum": ["fast", "safe"]},
              "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}
            }
          }
        }
      }}
    }]
  }
}`

const widgetCR = `apiVersion: live.crd-lsp.dev/v1
kind: Widget
metadata:
  name: w
spec:
  size: 2
  mode: slow
  ports:
  - name: http
    port: 80
  - name: http
    port: 81
---
apiVersion: live.crd-lsp.dev/v1
kind: Widget
metadata:
  name: cel
spec:
  size: 20
  max: 5
---
apiVersion: live.crd-lsp.dev/v1
kind: Widget
metadata:
  name: defaulted
spec:
  size: 11
`

// TestCheckCluster: check --cluster validates a custom resource against
// the CRD a real API server serves (read with a kubeconfig's client
// certificate), then from the cache with the server stopped; an
// unreachable context is named with its reason.
func TestCheckCluster(t *testing.T) {
	s := apiserver.Start(t)
	s.CreateCRD(t, widgetCRD)

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	s.Kubeconfig(t, kubeconfig, "live-test")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(ws, "widget.yaml")
	if err := os.WriteFile(f, []byte(widgetCR), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "HOME=" + filepath.Join(dir, "home"), "KUBECONFIG="}

	_, unknown, _ := runBin(t, env, "", "check", ws)
	if !strings.Contains(unknown, "no schema for live.crd-lsp.dev/v1 Widget") {
		t.Fatalf("without --cluster the kind is unknown:\n%s", unknown)
	}

	args := []string{"check", "--cluster", "--kubeconfig", kubeconfig, "--context", "live-test", ws}
	code, online, errOut := runBin(t, env, "", args...)
	var out string
	t.Logf("online:\n%s\nstderr:\n%s", online, errOut)
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		f + `:7:9: error: unsupported value "slow"`,
		f + `:11:5: error: duplicate entry {name: http}`,
		f + `:18:1: error: size must not exceed max [cel] at spec`,
		f + `:26:1: error: size must not exceed max [cel] at spec`,
	} {
		if !strings.Contains(online, want) {
			t.Errorf("missing %q in:\n%s", want, online)
		}
	}
	if strings.Contains(online, "no schema") {
		t.Errorf("the cluster's CRD was not used:\n%s", online)
	}

	// A workspace CRD of the same kind wins over the cluster's: here it
	// allows mode "slow".
	ws2 := filepath.Join(dir, "ws2")
	if err := os.Mkdir(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	local := strings.Replace(widgetCRD, `"enum": ["fast", "safe"]`, `"enum": ["fast", "safe", "slow"]`, 1)
	if local == widgetCRD {
		t.Fatal("the test's CRD changed: no enum to widen")
	}
	for name, content := range map[string]string{"crd.yaml": local, "widget.yaml": widgetCR} {
		if err := os.WriteFile(filepath.Join(ws2, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, out, errOut = runBin(t, env, "", "check", "--cluster", "--kubeconfig", kubeconfig, "--context", "live-test", ws2)
	if strings.Contains(out, `unsupported value "slow"`) || !strings.Contains(out, "duplicate entry {name: http}") || errOut != "" {
		t.Errorf("the workspace's CRD must win over the cluster's:\n%s\nstderr: %s", out, errOut)
	}
	differs := filepath.Join(ws2, "crd.yaml") + `:7:23: info: the cluster live-test serves Widget of live.crd-lsp.dev (version v1) with a different schema than this definition, which is used in the workspace instead [cluster-differs] at spec.names.kind`
	if strings.Count(out, "[cluster-differs]") != 1 || !strings.Contains(out, differs) {
		t.Errorf("the difference must be reported once, on the workspace's CRD:\n%s", out)
	}
	// The same definition on both sides: nothing to report.
	if err := os.WriteFile(filepath.Join(ws2, "crd.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ = runBin(t, env, "", "check", "--cluster", "--kubeconfig", kubeconfig, "--context", "live-test", ws2); strings.Contains(out, "[cluster-differs]") {
		t.Errorf("identical definitions reported:\n%s", out)
	}

	// Credentials the server refuses: the context and the reason.
	badCfg := filepath.Join(dir, "bad")
	b, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "    client-certificate: "+s.ClientCert+"\n    client-key: "+s.ClientKey+"\n", "    token: not-a-token\n", 1)
	if bad == string(b) {
		t.Fatal("kubeconfig without the client certificate lines")
	}
	if err := os.WriteFile(badCfg, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, errOut = runBin(t, append(env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache2")), "", "check", "--cluster", "--kubeconfig", badCfg, "--context", "live-test", ws)
	if !strings.Contains(errOut, `cluster context "live-test" (`+s.Base+`): unauthorised (401)`) || !strings.Contains(errOut, "no cached copy") {
		t.Errorf("refused credentials stderr: %q", errOut)
	}

	// Credentials from an exec plugin (client.authentication.k8s.io/v1
	// ExecCredential with the client certificate), as kubectl runs it.
	certPEM, err := os.ReadFile(s.ClientCert)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(s.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	cred, _ := json.Marshal(map[string]any{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
		"status": map[string]any{"clientCertificateData": string(certPEM), "clientKeyData": string(keyPEM)}})
	credFile := filepath.Join(dir, "cred.json")
	plugin := filepath.Join(dir, "cred-plugin")
	if err := os.WriteFile(credFile, cred, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\nexec cat "+credFile+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	execCfg := filepath.Join(dir, "exec")
	withExec := strings.Replace(string(b), "    client-certificate: "+s.ClientCert+"\n    client-key: "+s.ClientKey+"\n",
		"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: Never\n", 1)
	if err := os.WriteFile(execCfg, []byte(withExec), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, errOut = runBin(t, append(env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache3")), "", "check", "--cluster", "--kubeconfig", execCfg, "--context", "live-test", ws)
	if out != online || errOut != "" {
		t.Errorf("exec plugin credentials: stderr %q\n%s", errOut, out)
	}

	// The server gone: the cached copy serves the same findings, and
	// stderr names the context, why, and the copy's age.
	s.Stop()
	code, offline, errOut := runBin(t, env, "", args...)
	if code != 1 || offline != online {
		t.Errorf("offline: exit %d, findings differ:\n%s\nwant:\n%s", code, offline, online)
	}
	if !strings.Contains(errOut, `cluster context "live-test" (`+s.Base+`)`) || !strings.Contains(errOut, "using the copy read") {
		t.Errorf("offline stderr: %q", errOut)
	}

	// A context never read, unreachable: a clear message, no findings
	// from a cluster.
	var other bytes.Buffer
	other.WriteString(`apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:1"}
  name: gone
contexts:
- context: {cluster: gone, user: u}
  name: gone
users:
- name: u
  user: {token: abc}
`)
	goneCfg := filepath.Join(dir, "gone")
	if err := os.WriteFile(goneCfg, other.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, errOut = runBin(t, env, "", "check", "--cluster", "--kubeconfig", goneCfg, "--context", "gone", ws)
	if !strings.Contains(errOut, `crd-lsp check: cluster context "gone" (https://127.0.0.1:1): `) || !strings.Contains(errOut, "connection refused") || !strings.Contains(errOut, "no cached copy") {
		t.Errorf("unreachable stderr: %q", errOut)
	}
	if !strings.Contains(out, "no schema for live.crd-lsp.dev/v1 Widget") {
		t.Errorf("unreachable: the kind must stay unknown:\n%s", out)
	}
	_, _, errOut = runBin(t, env, "", "check", "--cluster", "--kubeconfig", goneCfg, "--context", "nope", ws)
	if !strings.Contains(errOut, `cluster context "nope": no such context in the kubeconfig`) {
		t.Errorf("unknown context stderr: %q", errOut)
	}
}
