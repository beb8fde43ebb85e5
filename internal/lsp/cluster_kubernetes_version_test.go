package lsp_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// TestClusterKubernetesVersion: crdLsp.cluster naming a real API server
// behind the recording proxy, which answers /version as a cluster of the
// chosen release. Without crdLsp.kubernetesVersion the cluster's minor
// chooses the built-in Kubernetes schemas: a field added in 1.36 is an
// error on a 1.34 cluster and not once the cluster says 1.37; the setting
// overrides the cluster; a 1.31 cluster gets the nearest built-in minor,
// 1.34, said once however often the cluster is read again.
func TestClusterKubernetesVersion(t *testing.T) {
	s := apiserver.Start(t)
	rec := s.Record(t)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	rec.Kubeconfig(t, kubeconfig, "kv")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// A different timeout is a settings change: a reload, and with it a
	// read of the cluster.
	settings := func(timeout, kubernetesVersion string) map[string]any {
		set := map[string]any{"cluster": map[string]any{"enabled": true, "kubeconfig": kubeconfig, "context": "kv", "timeout": timeout}}
		if kubernetesVersion != "" {
			set["kubernetesVersion"] = kubernetesVersion
		}
		return set
	}
	count := func(e *lsptest.Editor, substr string) int {
		n := 0
		for _, l := range e.Log() {
			if strings.Contains(l, substr) {
				n++
			}
		}
		return n
	}
	// read waits until the cluster has been read saying version for the
	// nth time and the server is idle after it, and checks the version
	// was asked of the cluster.
	read := func(e *lsptest.Editor, version string, n int) {
		t.Helper()
		line := `crd-lsp: cluster "kv": 0 CRDs read, server ` + version
		e.Await(line, 30*time.Second, func() bool { return count(e, line) >= n })
		e.AwaitIdle(30 * time.Second)
		asked := false
		for _, r := range rec.Requests() {
			asked = asked || r.Method == http.MethodGet && r.Path == "/version" && r.Status == http.StatusOK
		}
		if !asked {
			t.Errorf("%s: the cluster's version was not read", version)
		}
	}
	hover := func(e *lsptest.Editor, minor string) {
		t.Helper()
		if h := e.Hover("deploy.yaml", 1, 8); h == nil || !strings.Contains(lsptest.HoverText(h), "built-in kubernetes v"+minor) {
			t.Errorf("hover on the kind does not name Kubernetes %s: %+v", minor, h)
		}
	}
	added := `unknown field "schedulingGroup": spec.template.spec.schedulingGroup is not in Kubernetes 1.34 (added in 1.36)`

	// A 1.34 cluster.
	rec.ServeVersion("v1.34.3")
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: ws, Settings: settings("1m", "")})
	e.AwaitSchemas(30 * time.Second)
	e.Open("deploy.yaml", deploymentWithNewerField)
	read(e, "v1.34.3", 1)
	if d := awaitCodes(t, e, "deploy.yaml", "unknown-field"); lsptest.Message(d[0]) != added || d[0].Range.Start.Line != 11 {
		t.Errorf("1.34 cluster: %+v, want on line 12: %s", d[0], added)
	}
	hover(e, "1.34")

	// crdLsp.kubernetesVersion overrides the cluster, also after the
	// cluster was read again.
	e.SetSettings(settings("1m", "1.37"))
	read(e, "v1.34.3", 2)
	if ds := e.AwaitSettled("deploy.yaml", 30*time.Second); len(ds) != 0 {
		t.Errorf("crdLsp.kubernetesVersion 1.37 on a 1.34 cluster: %+v", ds)
	}
	hover(e, "1.37")

	// The cluster upgraded to 1.37 (the cached copy said 1.34).
	rec.ServeVersion("v1.37.1")
	e.SetSettings(settings("2m", ""))
	read(e, "v1.37.1", 1)
	if ds := e.AwaitSettled("deploy.yaml", 30*time.Second); len(ds) != 0 {
		t.Errorf("1.37 cluster: %+v", ds)
	}
	hover(e, "1.37")

	// A 1.31 cluster: the nearest built-in minor, 1.34, said once, also
	// when the cluster is read again.
	rec.ServeVersion("v1.31.0")
	e.SetSettings(settings("1m", ""))
	read(e, "v1.31.0", 1)
	if d := awaitCodes(t, e, "deploy.yaml", "unknown-field"); lsptest.Message(d[0]) != added {
		t.Errorf("1.31 cluster: %+v, want %s", d[0], added)
	}
	hover(e, "1.34")
	e.SetSettings(settings("2m", ""))
	read(e, "v1.31.0", 2)
	note := "showMessage: crd-lsp: the cluster runs Kubernetes 1.31, which has no built-in schemas (built in: 1.34, 1.35, 1.36, 1.37); using the nearest, Kubernetes 1.34"
	if n := count(e, note); n != 1 {
		t.Errorf("the note was shown %d times, want once:\n%s", n, strings.Join(e.Log(), "\n"))
	}
	if n := count(e, "showMessage: "); n != 1 {
		t.Errorf("%d messages shown, want the one note:\n%s", n, strings.Join(e.Log(), "\n"))
	}
}
