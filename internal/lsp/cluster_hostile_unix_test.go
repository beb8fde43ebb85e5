//go:build unix

package lsp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestClusterExecPluginHangsEditor: crdLsp.cluster names a context whose
// kubeconfig exec credential plugin hangs (a login that never comes),
// with a generous crdLsp.cluster.timeout. While the read waits on it, the
// editor keeps answering: the workspace CRD's diagnostics arrive and hover
// answers within 1 s. Ending the session stops the plugin: its process is
// gone once Serve has returned (before, client-go ran it with no context
// and it kept running).
func TestClusterExecPluginHangsEditor(t *testing.T) {
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the API server got %s %s: the plugin gave no credentials", r.Method, r.URL)
	}))
	defer api.Close()
	aux := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(aux, "cache"))
	// The plugin holds the write end of a FIFO for as long as it runs: the
	// test reads it to learn when the plugin started and when it ended.
	alive := filepath.Join(aux, "alive")
	if err := syscall.Mkfifo(alive, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	plugin := filepath.Join(aux, "login-plugin")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\nexec 3>"+alive+"\nexec sleep 3600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(aux, "kubeconfig")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \""+api.URL+"\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: sso\ncurrent-context: sso\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: IfAvailable\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}

	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(alive) // returns once the plugin opened its end
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{
		"cluster": map[string]any{"enabled": true, "kubeconfig": kc, "context": "sso", "timeout": "10m"}}})
	var f *os.File
	select {
	case f = <-opened:
	case <-time.After(30 * time.Second):
		t.Fatal("the exec plugin was not started within 30 s")
	}
	if f == nil {
		t.FailNow()
	}
	defer f.Close()
	t.Cleanup(func() { // should it survive the test, it must not survive the run
		if w, err := os.OpenFile(alive, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})

	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	if got := codes(e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)); got != "enum" {
		t.Errorf("while the plugin hangs: diagnostics %q, want the workspace CRD's enum finding", got)
	}
	start := time.Now()
	if h := e.Hover("db.yaml", 5, 4); h == nil {
		t.Error("no hover while the plugin hangs")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("hover took %s while the plugin hangs", d)
	}

	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	e.Exit()
	if err := e.ServeResult(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, f) // EOF once no process holds the write end
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Error("the exec plugin still runs 10 s after the session ended")
	}
}
