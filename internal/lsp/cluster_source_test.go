package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// gadgetCRD is served by the test's API server only.
const gadgetCRD = `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "gadgets.live.crd-lsp.dev"},
 "spec": {"group": "live.crd-lsp.dev", "scope": "Namespaced",
  "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object",
   "properties": {"spec": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast", "safe"]}}}}}}}]}}`

// TestClusterSource: crdLsp.cluster naming a context of a real API server
// (kubeconfig with a client certificate): the cluster's CRD validates an
// open document and hover names the cluster and the read's age; a context
// that cannot be reached is named in a message with the reason.
func TestClusterSource(t *testing.T) {
	s := apiserver.Start(t)
	s.CreateCRD(t, gadgetCRD)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	s.Kubeconfig(t, kubeconfig, "dev-eu")

	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{
		"cluster": map[string]any{"enabled": true, "kubeconfig": kubeconfig, "context": "dev-eu"}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("gadget.yaml", "apiVersion: live.crd-lsp.dev/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  mode: slow\n")
	ds := waitDiags(t, e, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "enum", "slow") != nil })
	if d := hasDiag(ds, "enum", "slow"); d.Range.Start.Line != 5 {
		t.Errorf("enum error at %v", d.Range.Start)
	}
	if h := e.Hover("gadget.yaml", 1, 7); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: cluster `dev-eu`, read just now") {
		t.Errorf("hover = %+v", h)
	}
	e.AwaitLog(`crd-lsp: cluster "dev-eu": 1 CRDs read`, 30*time.Second)
	// $/progress while reading: begin naming the context, end with the count.
	var prog []string
	for _, ev := range e.Events("$/progress") {
		if p := string(ev.Params); strings.Contains(p, "Reading the CRDs of dev-eu") || strings.Contains(p, "1 CRDs read") {
			prog = append(prog, p)
		}
	}
	if len(prog) != 2 || !strings.Contains(prog[0], `"begin"`) || !strings.Contains(prog[1], `"end"`) {
		t.Errorf("progress = %v", prog)
	}

	gone := filepath.Join(dir, "gone")
	if err := os.WriteFile(gone, []byte("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \"https://127.0.0.1:1\"}\n  name: gone\ncontexts:\n- context: {cluster: gone, user: u}\n  name: gone\nusers:\n- name: u\n  user: {token: abc}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2 := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{
		"cluster": map[string]any{"enabled": true, "kubeconfig": gone, "context": "gone"}}})
	e2.AwaitSchemas(30 * time.Second)
	if l := e2.AwaitLog(`crd-lsp: cluster context "gone" (https://127.0.0.1:1): `, 30*time.Second); !strings.Contains(l, "connection refused") {
		t.Errorf("message: %s", l)
	}
}
