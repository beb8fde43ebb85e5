package lsp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// thingCRD is a Thing CRD with these colors, in version v1 and, if
// v1beta1, also v1beta1: the test's API server serves it with both
// versions; the workspace defines v1 only, with a wider enum.
func thingCRD(colors string, v1beta1 bool) string {
	version := func(name string, storage bool) string {
		return fmt.Sprintf(`{"name": %q, "served": true, "storage": %v, "schema": {"openAPIV3Schema": {"type": "object",
   "properties": {"spec": {"type": "object", "properties": {"color": {"type": "string", "enum": [%s]}}}}}}}`, name, storage, colors)
	}
	versions := version("v1", true)
	if v1beta1 {
		versions += ", " + version("v1beta1", false)
	}
	return `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "things.live.crd-lsp.dev"},
 "spec": {"group": "live.crd-lsp.dev", "scope": "Namespaced",
  "names": {"kind": "Thing", "plural": "things", "singular": "thing", "listKind": "ThingList"},
  "versions": [` + versions + `]}}`
}

// TestClusterLive: crdLsp.cluster naming a real API server through a
// recording proxy. The workspace's definition of a kind wins over the
// cluster's, and the difference is reported once on it; typing never
// reaches the cluster, and what does reach it is GETs only; a cluster
// that does not answer within crdLsp.cluster.timeout is named with the
// reason while its cached copy keeps serving; on the next start a CRD
// changed on the server is the only one downloaded again, and with the
// server stopped the next start works from the cache.
func TestClusterLive(t *testing.T) {
	s := apiserver.Start(t)
	s.CreateCRD(t, gadgetCRD)
	s.CreateCRD(t, thingCRD(`"red", "green"`, true))
	rec := s.Record(t)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	rec.Kubeconfig(t, kubeconfig, "dev-eu")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	local := thingCRD(`"red", "green", "blue"`, false)
	if err := os.WriteFile(filepath.Join(ws, "thing-crd.yaml"), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := func(timeout string) map[string]any {
		return map[string]any{"cluster": map[string]any{"enabled": true, "kubeconfig": kubeconfig, "context": "dev-eu", "timeout": timeout}}
	}
	onlyGets := func(what string) []apiserver.Request {
		t.Helper()
		reqs := rec.Requests()
		for _, r := range reqs {
			if r.Method != http.MethodGet {
				t.Errorf("%s: %s %s reached the cluster: it must only be read", what, r.Method, r.Path)
			}
		}
		return reqs
	}
	gadget := "apiVersion: live.crd-lsp.dev/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  mode: slow\n"
	thing := "apiVersion: live.crd-lsp.dev/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  color: blue\n"

	e := lsptest.StartInProcess(t, lsptest.Config{Dir: ws, Settings: settings("1m")})
	e.AwaitSchemas(30 * time.Second)
	e.AwaitLog(`crd-lsp: cluster "dev-eu": 2 CRDs read, server v`, 30*time.Second)
	if reqs := onlyGets("first read"); len(reqs) != 2 {
		t.Errorf("first read: %+v", reqs)
	}
	e.Open("gadget.yaml", gadget)
	e.Open("thing.yaml", thing)
	waitDiags(t, e, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "enum", "slow") != nil })
	if ds := e.AwaitSettled("thing.yaml", 30*time.Second); len(ds) != 0 {
		t.Errorf("the workspace's Thing (blue allowed) must win over the cluster's: %+v", ds)
	}
	if h := e.Hover("thing.yaml", 5, 4); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: workspace file `thing-crd.yaml`") {
		t.Errorf("hover on the workspace's Thing = %+v", h)
	}
	crdText, _ := os.ReadFile(filepath.Join(ws, "thing-crd.yaml"))
	e.Open("thing-crd.yaml", string(crdText))
	ds := waitDiags(t, e, "thing-crd.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "cluster-differs", "") != nil })
	n := 0
	for _, d := range ds {
		if c, _ := d.Code.(protocol.String); c == "cluster-differs" {
			n++
			if want := "the cluster dev-eu serves Thing of live.crd-lsp.dev (version v1) with a different schema than this definition, which is used in the workspace instead; " +
				"it also serves Thing of live.crd-lsp.dev in version v1beta1, which this definition (version v1) does not define: documents of that version are validated against the cluster's schema"; !strings.Contains(lsptest.Message(d), want) {
				t.Errorf("cluster-differs: %s", lsptest.Message(d))
			}
		}
	}
	if n != 1 {
		t.Errorf("%d cluster-differs, want 1: %+v", n, ds)
	}

	// Typing: diagnostics, never a request to the cluster.
	for i, mode := range []string{"fast", "sl", "slo", "turbo"} {
		e.Change("gadget.yaml", strings.Replace(gadget, "slow", mode, 1))
		ds := e.AwaitDiagnostics("gadget.yaml", e.Version("gadget.yaml"), 30*time.Second)
		if got := hasDiag(ds, "enum", mode) != nil; got != (i > 0) {
			t.Errorf("mode %s: diagnostics %+v", mode, ds)
		}
	}
	if reqs := onlyGets("typing"); len(reqs) != 0 {
		t.Errorf("typing reached the cluster: %+v", reqs)
	}

	// A cluster that does not answer: named with the reason, within the
	// timeout; the copy read before keeps serving.
	rec.Stall(true)
	e.SetSettings(settings("1s"))
	if l := e.AwaitLog(`crd-lsp: cluster context "dev-eu" (`+rec.URL+`): no answer within 1s; using the copy read `, 30*time.Second); l == "" {
		t.Fatal("no message")
	}
	rec.Stall(false)
	e.Change("gadget.yaml", gadget)
	if ds := e.AwaitDiagnostics("gadget.yaml", e.Version("gadget.yaml"), 30*time.Second); hasDiag(ds, "enum", "slow") == nil {
		t.Errorf("the cached copy no longer serves: %+v", ds)
	}
	onlyGets("slow cluster")

	// The next start: one CRD changed on the server is the only one
	// downloaded; the change is seen.
	s.PatchCRD(t, "gadgets.live.crd-lsp.dev", `[{"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/mode/enum/-", "value": "slow"}]`)
	e2 := lsptest.StartInProcess(t, lsptest.Config{Dir: ws, Settings: settings("1m")})
	e2.AwaitSchemas(30 * time.Second)
	e2.AwaitLog(`crd-lsp: cluster "dev-eu": 2 CRDs read, 1 downloaded (new or changed since the cached copy)`, 30*time.Second)
	reqs := onlyGets("next start")
	if len(reqs) != 3 || !strings.Contains(reqs[1].Accept, "as=PartialObjectMetadataList") || reqs[2].Path != "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.live.crd-lsp.dev" {
		t.Errorf("next start requests: %+v", reqs)
	}
	e2.Open("gadget.yaml", gadget)
	waitDiags(t, e2, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "enum", "") == nil })
	if h := e2.Hover("gadget.yaml", 1, 7); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: cluster `dev-eu`, read just now") {
		t.Errorf("hover = %+v", h)
	}

	// The server stopped: the next start serves the cached copy and says
	// why the cluster was not read.
	// The copy made 7 minutes ago, as its cache says: hover says so.
	s.Stop()
	metas, _ := filepath.Glob(filepath.Join(dir, "cache", "crd-lsp", "clusters", "*", "cluster.json"))
	if len(metas) != 1 {
		t.Fatalf("cluster caches: %v", metas)
	}
	meta, err := os.ReadFile(metas[0])
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(meta, &snap); err != nil {
		t.Fatal(err)
	}
	snap["readAt"] = time.Now().Add(-7*time.Minute - 10*time.Second).UTC().Format(time.RFC3339)
	if meta, err = json.Marshal(snap); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metas[0], meta, 0o644); err != nil {
		t.Fatal(err)
	}
	e3 := lsptest.StartInProcess(t, lsptest.Config{Dir: ws, Settings: settings("1m")})
	e3.AwaitSchemas(30 * time.Second)
	e3.Open("gadget.yaml", strings.Replace(gadget, "slow", "turbo", 1))
	waitDiags(t, e3, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "enum", "turbo") != nil })
	e3.AwaitLog(`crd-lsp: cluster context "dev-eu" (`+rec.URL+`): `, 30*time.Second)
	if h := e3.Hover("gadget.yaml", 1, 7); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: cluster `dev-eu`, read 7 min ago") {
		t.Errorf("hover from the 7-minute-old copy = %+v", h)
	}
}
