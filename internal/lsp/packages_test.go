package lsp_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// waitDiags polls path's latest diagnostics until ok accepts them.
func waitDiags(t *testing.T, e *lsptest.Editor, path string, timeout time.Duration, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		d := e.Diagnostics(path)
		if ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("diagnostics of %s never matched; last: %+v\n%s", path, d, e.Dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func hasDiag(ds []protocol.Diagnostic, code, substr string) *protocol.Diagnostic {
	for i, d := range ds {
		c, _ := d.Code.(protocol.String)
		if string(c) == code && strings.Contains(lsptest.Message(d), substr) {
			return &ds[i]
		}
	}
	return nil
}

// TestPackageDependencies drives the real server against a real registry
// (Debian's docker-registry on loopback): crossplane.yaml's dependsOn is
// resolved to the newest matching tag and pulled with $/progress; a kind
// only that version ships validates a resource; the dependsOn entries get
// hover and diagnostics; with the registry gone, a new server works from
// the cache and warns on the entry.
func TestPackageDependencies(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	meta := xpkgtest.Meta("Provider", "provider-widgets")
	for tag, kinds := range map[string][]string{"v1.0.0": {"Widget"}, "v1.1.0": {"Widget", "Gadget"}, "v2.0.0": {"Widget", "Gadget", "Doohickey"}} {
		docs := [][]byte{meta}
		for _, k := range kinds {
			docs = append(docs, xpkgtest.CRD("widgets.example.org", k, "v1alpha1"))
		}
		xpkgtest.Push(t, reg.Host, "test/provider-widgets", tag, xpkgtest.XPkg(xpkgtest.Stream(docs...)))
	}
	dir := t.TempDir()
	cache := t.TempDir()
	crossplaneYAML := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: app\nspec:\n  dependsOn:\n" +
		"    - provider: " + reg.Host + "/test/provider-widgets\n      version: \">=v1.0.0 <v2.0.0\"\n" +
		"    - provider: " + reg.Host + "/test/provider-missing\n      version: \">=v1.0.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(crossplaneYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	gadget := "apiVersion: widgets.example.org/v1alpha1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: big\n"
	settings := map[string]any{"cacheDir": cache, "registries": map[string]any{"insecure": []string{reg.Host}}}

	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir, Settings: settings})
	e.AwaitSchemas(30 * time.Second)
	e.Open("gadget.yaml", gadget)
	ds := waitDiags(t, e, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "integer") != nil })
	if d := hasDiag(ds, "type", "integer"); d.Range.Start.Line != 5 || d.Range.Start.Character != 8 {
		t.Errorf("type error at %v, want 5:8 (spec.size)", d.Range.Start)
	}
	// Hover names the package and version the schema came from; definition
	// goes to the CRD inside the cached package.yaml.
	if h := e.Hover("gadget.yaml", 5, 3); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Schema: package `"+reg.Host+"/test/provider-widgets:v1.1.0`") {
		t.Errorf("hover on spec.size = %+v", h)
	}
	locs := e.Definition("gadget.yaml", 1, 7)
	if len(locs) != 1 || !strings.HasPrefix(locs[0].URI.FsPath(), cache) {
		t.Fatalf("definition of kind Gadget = %+v, want a location in the package cache %s", locs, cache)
	}
	pkgText, err := os.ReadFile(locs[0].URI.FsPath())
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Split(string(pkgText), "\n")[locs[0].Range.Start.Line]; !strings.Contains(line, "kind: Gadget") {
		t.Errorf("definition lands on %q, want the CRD's kind: Gadget", line)
	}
	// $/progress: begin, a "Pulling" report, end.
	var kinds []string
	pulling := false
	for _, ev := range e.Events("$/progress") {
		s := string(ev.Params)
		for _, k := range []string{`"begin"`, `"report"`, `"end"`} {
			if strings.Contains(s, k) {
				kinds = append(kinds, k)
			}
		}
		pulling = pulling || strings.Contains(s, "Pulling "+reg.Host+"/test/provider-widgets:v1.1.0")
	}
	if len(kinds) < 3 || kinds[0] != `"begin"` || kinds[len(kinds)-1] != `"end"` || !pulling {
		t.Errorf("progress = %v (pulling reported: %v)", kinds, pulling)
	}
	// The dependsOn entries: hover on the resolved one, an error on the
	// missing one's package.
	text, _ := os.ReadFile(filepath.Join(dir, "crossplane.yaml"))
	e.Open("crossplane.yaml", string(text))
	ds = waitDiags(t, e, "crossplane.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	if d := hasDiag(ds, "package-not-found", "provider-missing"); d == nil || d.Range.Start.Line != 8 || d.Range.Start.Character != 16 {
		t.Errorf("diagnostics = %+v, want package-not-found at 8:16", ds)
	}
	if h := e.Hover("crossplane.yaml", 6, 10); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "**v1.1.0**") || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "2 CRDs") {
		t.Errorf("hover on the widgets dependency = %+v", h)
	}
	e.Shutdown()

	// Registry gone: a new server serves the cached package at once.
	reg.Stop()
	e2 := lsptest.StartBinary(t, lsptest.Config{Dir: dir, Settings: settings})
	e2.AwaitSchemas(30 * time.Second)
	e2.Open("gadget.yaml", gadget)
	waitDiags(t, e2, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "integer") != nil })
	e2.Open("crossplane.yaml", string(text))
	ds = waitDiags(t, e2, "crossplane.yaml", 60*time.Second, func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Severity == protocol.DiagnosticSeverityWarning {
				return true
			}
		}
		return false
	})
	found := false
	for _, d := range ds {
		m := lsptest.Message(d)
		if d.Severity == protocol.DiagnosticSeverityWarning && d.Range.Start.Line == 6 && strings.Contains(m, reg.Host) && strings.Contains(m, "v1.1.0") {
			found = true
		}
	}
	if !found {
		t.Errorf("offline diagnostics = %+v, want a warning on the widgets entry naming the registry and the cached v1.1.0", ds)
	}
}

// TestPackagePullCancel: the user cancels a pull through the progress it
// reports (window/workDoneProgress/cancel); the server stops, ends the
// progress, and keeps answering. In-process, so -race covers it.
func TestPackagePullCancel(t *testing.T) {
	release := make(chan struct{})
	host := xpkgtest.MemRegistry(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/tags/list") {
				select { // a registry that does not answer
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	defer close(release)
	dir := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: app\nspec:\n  dependsOn:\n    - provider: " + host + "/test/slow\n      version: \">=v1.0.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"cacheDir": t.TempDir(), "registries": map[string]any{"insecure": []string{host}}}})
	begin := e.AwaitEvent("$/progress", 30*time.Second)
	var p struct {
		Token any `json:"token"`
	}
	if err := json.Unmarshal(begin.Params, &p); err != nil {
		t.Fatal(err)
	}
	if err := e.Notify("window/workDoneProgress/cancel", map[string]any{"token": p.Token}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ended := false
		for _, ev := range e.Events("$/progress") {
			ended = ended || strings.Contains(string(ev.Params), `"cancelled"`)
		}
		if ended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pull did not end after cancel:\n%s", e.Dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Still answering.
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n")
	if ds := e.AwaitDiagnostics("cm.yaml", 1, 10*time.Second); len(ds) != 1 {
		t.Errorf("diagnostics after cancel = %+v", ds)
	}
}
