package lsp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// waitDiags waits until's latest diagnostics until ok accepts them.
func waitDiags(t *testing.T, e *lsptest.Editor, path string, timeout time.Duration, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	t.Helper()
	e.Await("diagnostics of "+path+" that match", timeout, func() bool { return ok(e.Diagnostics(path)) })
	return e.Diagnostics(path)
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
	// The end says the pull failed, which dependency, and where (the
	// status item in VS Code shows it and opens that crossplane.yaml).
	if evs := e.Events("$/progress"); len(evs) > 0 {
		_, kind, msg := progressValue(evs[len(evs)-1])
		if want := "package pull failed: 1 of 2 dependencies (" + reg.Host + "/test/provider-missing: "; kind != "end" || !strings.HasPrefix(msg, want) ||
			!strings.HasSuffix(msg, " — in "+filepath.Join(dir, "crossplane.yaml")) {
			t.Errorf("progress ends with %s %q, want %q… naming %s", kind, msg, want, filepath.Join(dir, "crossplane.yaml"))
		}
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
	awaitEvents(t, e, 10*time.Second, "the pull ending after cancel", func(evs []lsptest.Event) bool {
		for _, ev := range evs {
			if ev.Method == "$/progress" && strings.Contains(string(ev.Params), `"cancelled"`) {
				return true
			}
		}
		return false
	})
	// Still answering.
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 1\n")
	if ds := e.AwaitDiagnostics("cm.yaml", 1, 10*time.Second); len(ds) != 1 {
		t.Errorf("diagnostics after cancel = %+v", ds)
	}
}

// awaitEvents waits until cond accepts everything the server has sent
// so far (in wire order).
func awaitEvents(t *testing.T, e *lsptest.Editor, timeout time.Duration, what string, cond func([]lsptest.Event) bool) {
	t.Helper()
	e.Await(what, timeout, func() bool { return cond(e.Events("")) })
}

// progressValue decodes a $/progress event: its token and value.
func progressValue(ev lsptest.Event) (token, kind, message string) {
	var p struct {
		Token any `json:"token"`
		Value struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if ev.Method != "$/progress" || json.Unmarshal(ev.Params, &p) != nil {
		return "", "", ""
	}
	return fmt.Sprint(p.Token), p.Value.Kind, p.Value.Message
}

// faultyWorkspace is a registry on loopback that misbehaves on demand,
// holding test/p:v1.0.0 (a Provider with the Gadget kind), and a
// workspace whose crossplane.yaml depends on it.
type faultyWorkspace struct {
	faults *xpkgtest.Faults
	host   string
	dir    string
	layer  string // v1.0.0's base layer digest
	meta   string // crossplane.yaml
}

func newFaultyWorkspace(t *testing.T) *faultyWorkspace {
	w := &faultyWorkspace{faults: xpkgtest.NewFaults(), dir: t.TempDir()}
	w.host = xpkgtest.MemRegistry(t, w.faults.Wrap)
	data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: xpkgtest.Stream(xpkgtest.Meta("Provider", "p"), xpkgtest.CRD("widgets.example.org", "Gadget", "v1alpha1"))})
	xpkgtest.Push(t, w.host, "test/p", "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
	w.layer = fmt.Sprintf("sha256:%x", sha256.Sum256(data))
	w.meta = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: app\nspec:\n  dependsOn:\n" +
		"    - apiVersion: pkg.crossplane.io/v1\n      kind: Provider\n      package: " + w.host + "/test/p\n      version: \">=v1.0.0\"\n"
	if err := os.WriteFile(filepath.Join(w.dir, "crossplane.yaml"), []byte(w.meta), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *faultyWorkspace) settings(cache string, registries map[string]any) map[string]any {
	r := map[string]any{"insecure": []string{w.host}}
	for k, v := range registries {
		r[k] = v
	}
	return map[string]any{"cacheDir": cache, "registries": r}
}

// A registry that trickles a layer no longer keeps the pull pending: the
// crdLsp.pull command answers once registries.pullTimeout has passed, and
// the dependsOn entry says what happened. A registry that never answers is
// given registries.timeout.
func TestPackagePullDeadlines(t *testing.T) {
	w := newFaultyWorkspace(t)
	w.faults.Set(w.layer, xpkgtest.Trickle(10*time.Millisecond)) // 4 s for the whole layer
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(t.TempDir(), map[string]any{"pullTimeout": 0.3})})
	e.AwaitSchemas(30 * time.Second) // the workspace's crossplane.yaml is known
	var summary string
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "crdLsp.pull"}, &summary); err != nil {
		t.Fatalf("crdLsp.pull: %v", err)
	}
	want := "pulling " + w.host + "/test/p:v1.0.0 from registry " + w.host + " did not finish within 300ms (the pull deadline; layer " + w.layer + " at "
	if !strings.Contains(summary, want) {
		t.Errorf("crdLsp.pull answered %q, want it to contain %q", summary, want)
	}
	e.Open("crossplane.yaml", w.meta)
	ds := waitDiags(t, e, "crossplane.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "package-network", want) != nil })
	if d := hasDiag(ds, "package-network", want); d.Range.Start.Line != 8 || d.Range.Start.Character != 15 || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic %+v, want an error on the package (8:15)", d)
	}

	// The registry does not answer at all.
	w.faults.Set(w.layer, nil)
	w.faults.Set("tags", xpkgtest.Hang())
	e2 := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(t.TempDir(), map[string]any{"timeout": 0.2})})
	e2.Open("crossplane.yaml", w.meta)
	want = "registry " + w.host + " did not answer within 200ms (listing tags of " + w.host + "/test/p)"
	waitDiags(t, e2, "crossplane.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "package-network", want) != nil })
}

// A crdLsp.pull the user cancels (through its progress) answers that it
// was cancelled, rather than a summary of the previous state; the
// background pull it replaced ends as superseded.
func TestPackagePullCommandCancelled(t *testing.T) {
	w := newFaultyWorkspace(t)
	w.faults.Set(w.layer, xpkgtest.Stall())
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(t.TempDir(), nil)})
	background, _, _ := progressValue(e.AwaitEvent("$/progress", 30*time.Second))
	done := make(chan error, 1)
	go func() {
		var summary string
		done <- e.Call("workspace/executeCommand", map[string]any{"command": "crdLsp.pull"}, &summary)
	}()
	// The command's own progress begins; the background one ends.
	var token string
	awaitEvents(t, e, 30*time.Second, "the command's progress and the background one's end", func(evs []lsptest.Event) bool {
		superseded := false
		for _, ev := range evs {
			tok, kind, msg := progressValue(ev)
			if kind == "begin" && tok != background {
				token = tok
			}
			superseded = superseded || (tok == background && kind == "end" && msg == "superseded by a newer pull")
		}
		return token != "" && superseded
	})
	if err := e.Notify("window/workDoneProgress/cancel", map[string]any{"token": token}); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != protocol.CodeRequestCancelled || rpcErr.Message != "package pull cancelled" {
		t.Errorf("crdLsp.pull answered %v, want RequestCancelled \"package pull cancelled\"", err)
	}
	awaitEvents(t, e, 30*time.Second, "the command's progress ending as cancelled", func(evs []lsptest.Event) bool {
		for _, ev := range evs {
			if tok, kind, msg := progressValue(ev); tok == token && kind == "end" && msg == "cancelled" {
				return true
			}
		}
		return false
	})
}

// A corrupt newer tag does not take away the version the server was
// using: resources keep validating against the cached v1.0.0 and the
// dependsOn entry warns why v1.1.0 was refused.
func TestPackageCorruptNewerTagKeepsCached(t *testing.T) {
	w := newFaultyWorkspace(t)
	cache := t.TempDir()
	gadget := "apiVersion: widgets.example.org/v1alpha1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: big\n"
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(cache, nil)})
	e.Open("gadget.yaml", gadget)
	waitDiags(t, e, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "integer") != nil })
	e.Shutdown()

	// v1.1.0 appears, with a layer that does not match its digest.
	data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: xpkgtest.Stream(xpkgtest.Meta("Provider", "p"), xpkgtest.CRD("widgets.example.org", "Gizmo", "v1alpha1"))})
	xpkgtest.Push(t, w.host, "test/p", "v1.1.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
	w.faults.Set(fmt.Sprintf("sha256:%x", sha256.Sum256(data)), func(c *xpkgtest.Call) {
		rec := c.Real()
		b := append([]byte(nil), rec.Body.Bytes()...)
		b[len(b)-10] ^= 0xff
		xpkgtest.CopyHeader(c.W, rec)
		_, _ = c.W.Write(b)
	})
	e2 := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(cache, nil)})
	e2.Open("gadget.yaml", gadget)
	e2.Open("crossplane.yaml", w.meta)
	want := "invalid package " + w.host + "/test/p:v1.1.0: layer digest mismatch"
	ds := waitDiags(t, e2, "crossplane.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "package-invalid-package", want) != nil })
	if d := hasDiag(ds, "package-invalid-package", want); d.Severity != protocol.DiagnosticSeverityWarning || !strings.HasSuffix(lsptest.Message(*d), "; refused; using the cached v1.0.0") {
		t.Errorf("diagnostic %+v, want a warning ending \"; refused; using the cached v1.0.0\"", d)
	}
	// After the refresh ended, gadget.yaml is diagnosed again: still
	// against v1.0.0's schema.
	var gadgetAfter []protocol.Diagnostic
	awaitEvents(t, e2, 30*time.Second, "gadget.yaml diagnosed after the refresh", func(evs []lsptest.Event) bool {
		ended := false
		for _, ev := range evs {
			if _, kind, _ := progressValue(ev); kind == "end" {
				ended = true
			}
			var p protocol.PublishDiagnosticsParams
			if ended && ev.Method == "textDocument/publishDiagnostics" && protocol.Unmarshal(ev.Params, &p) == nil && strings.HasSuffix(string(p.URI), "/gadget.yaml") {
				gadgetAfter = p.Diagnostics
				return true
			}
		}
		return false
	})
	if hasDiag(gadgetAfter, "type", "integer") == nil {
		t.Errorf("gadget.yaml after the refused update: %+v, want spec.size still checked against v1.0.0", gadgetAfter)
	}
}

// Requests never wait for a package to be indexed: while the server
// indexes a pulled package (held there by a hook), hovers are answered
// from the schemas it had; then the package's kinds arrive.
func TestPackageIndexedOffRequestPath(t *testing.T) {
	w := newFaultyWorkspace(t)
	pkgPath := "xpkg://" + w.host + "/test/p/package.yaml"
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	lsp.SetIndexHook(func(path string) {
		if path == pkgPath {
			once.Do(func() { close(entered); <-release })
		}
	})
	t.Cleanup(func() { lsp.SetIndexHook(nil) })
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: w.dir, Settings: w.settings(t.TempDir(), nil)})
	defer close(release)
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
	e.Open("crossplane.yaml", w.meta)
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatalf("the package was never indexed:\n%s", e.Dump())
	}
	// Indexing is under way: requests are still answered.
	if h := e.Hover("cm.yaml", 1, 2); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "ConfigMap") {
		t.Errorf("hover on a ConfigMap while a package is indexed = %+v", h)
	}
	if h := e.Hover("crossplane.yaml", 8, 16); h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "not resolved yet") {
		t.Errorf("hover on the dependency while it is indexed = %+v", h)
	}
	release <- struct{}{}
	e.Open("gadget.yaml", "apiVersion: widgets.example.org/v1alpha1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: big\n")
	waitDiags(t, e, "gadget.yaml", 30*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "type", "integer") != nil })
}

// bigProvider returns a Provider package.yaml of about size bytes: copies
// of the shared corpus's provider-aws CRDs, each copy under its own API
// groups.
func bigProvider(tb testing.TB, size int) []byte {
	tb.Helper()
	dir := filepath.Join(corpus.Dir(tb), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var crds [][]byte
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		crds = append(crds, b)
	}
	var buf bytes.Buffer
	buf.Write(xpkgtest.Meta("Provider", "provider-big"))
	for c := 0; ; c++ {
		suffix := []byte(fmt.Sprintf(".c%d.upbound.io", c))
		for _, b := range crds {
			b = bytes.ReplaceAll(bytes.TrimPrefix(b, []byte("---\n")), []byte(".upbound.io"), suffix)
			if buf.Len()+4+len(b) > size {
				return buf.Bytes()
			}
			buf.WriteString("---\n")
			buf.Write(b)
		}
	}
}

// childPeakRSS returns the peak resident set (VmHWM) of the running child
// process executing bin, in bytes.
func childPeakRSS(tb testing.TB, bin string) int64 {
	tb.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		exe, err := os.Readlink(filepath.Join(p, "exe"))
		if err != nil || exe != bin {
			continue
		}
		status, err := os.ReadFile(filepath.Join(p, "status"))
		if err != nil {
			continue
		}
		var ppid int
		var hwm int64
		for _, line := range strings.Split(string(status), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "PPid:" {
				ppid, _ = strconv.Atoi(f[1])
			}
			if len(f) >= 2 && f[0] == "VmHWM:" {
				hwm, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
		if ppid == os.Getpid() {
			return hwm << 10
		}
	}
	tb.Fatalf("no child process runs %s", bin)
	return 0
}

// hostileProvider returns a package.yaml of about size bytes that is
// costly to parse: one document of that size (a CRD with a huge
// description), or a stream of flow-style (JSON) CRDs that the line scan
// cannot read.
func hostileProvider(kind string, size int) []byte {
	meta := string(xpkgtest.Meta("Provider", "provider-big"))
	if kind == "one-document" {
		crd := string(xpkgtest.CRD("example.org", "Huge", "v1"))
		return []byte(meta + "---\n" + strings.Replace(crd, "openAPIV3Schema:\n", "openAPIV3Schema:\n          description: "+strings.Repeat("x", size-len(crd)-len(meta)-100)+"\n", 1))
	}
	var flow bytes.Buffer
	flow.WriteString(meta)
	for i := 0; flow.Len() < size-4096; i++ {
		fmt.Fprintf(&flow, "---\n{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":\"k%ds.example.org\"},\"spec\":{\"group\":\"example.org\",\"names\":{\"kind\":\"K%d\",\"plural\":\"k%ds\"},\"scope\":\"Cluster\",\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"description\":\"%s\"}}}}}]}}\n", i, i, i, strings.Repeat("d", 2000))
	}
	return flow.Bytes()
}

// BenchmarkBigPackageLoad: 190 MB package.yaml files (realistic: a
// monolithic provider's CRDs; hostile: one huge document, or flow-style
// documents) are pulled, indexed and then served from the cache by the
// real binary, while the editor keeps hovering in an open ConfigMap.
// Reports the slowest hover during each load and the server's peak RSS.
//
//	go test ./internal/lsp -run '^$' -bench BigPackageLoad -benchtime 1x -timeout 30m
func BenchmarkBigPackageLoad(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	const size = 190 << 20
	for _, name := range []string{"realistic", "one-document", "flow-style"} {
		b.Run(name, func(b *testing.B) {
			host := xpkgtest.MemRegistry(b, nil)
			pkg := bigProvider(b, size)
			if name != "realistic" {
				pkg = hostileProvider(name, size)
			}
			xpkgtest.Push(b, host, "test/provider-big", "v1.0.0", xpkgtest.XPkg(pkg))
			pkg = nil
			runtime.GC() // the editor's side holds no package
			benchmarkPackageLoad(b, host)
		})
	}
}

func benchmarkPackageLoad(b *testing.B, host string) {
	dir := b.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: app\nspec:\n  dependsOn:\n    - provider: " + host + "/test/provider-big\n      version: \">=v1.0.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		b.Fatal(err)
	}
	settings := map[string]any{"cacheDir": b.TempDir(), "registries": map[string]any{"insecure": []string{host}}}
	bin := lsptest.BuildBinary(b)
	bucket := "apiVersion: s3.aws.c7.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n"
	for i := 0; i < b.N; i++ {
		for _, phase := range []string{"pull", "cache"} {
			e := lsptest.StartBinary(b, lsptest.Config{Dir: dir, Settings: settings})
			e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
			e.Open("bucket.yaml", bucket)
			e.Open("crossplane.yaml", meta)
			var worst time.Duration
			var hovers int
			outcome := ""
			deadline := time.Now().Add(10 * time.Minute)
			tick := time.NewTicker(20 * time.Millisecond) // the hover rate
			for range tick.C {
				if time.Now().After(deadline) {
					b.Fatalf("%s: the package was neither served nor refused:\n%s", phase, e.Dump())
				}
				start := time.Now()
				e.Hover("cm.yaml", 1, 2)
				worst = max(worst, time.Since(start))
				hovers++
				// Done once bucket.yaml and crossplane.yaml were diagnosed
				// after the refresh ended (the store has the package, or
				// not).
				ended, bucket, cp := false, false, false
				for _, ev := range e.Events("") {
					if _, kind, _ := progressValue(ev); kind == "end" {
						ended = true
					}
					if ended && ev.Method == "textDocument/publishDiagnostics" {
						bucket = bucket || strings.Contains(string(ev.Params), "/bucket.yaml")
						cp = cp || strings.Contains(string(ev.Params), "/crossplane.yaml")
					}
				}
				if bucket && cp {
					outcome = "served"
					for _, d := range e.Diagnostics("crossplane.yaml") {
						if d.Severity == protocol.DiagnosticSeverityError {
							outcome = "refused: " + lsptest.Message(d)
						}
					}
				}
				if outcome != "" {
					break
				}
			}
			tick.Stop()
			rss := childPeakRSS(b, bin)
			b.ReportMetric(float64(worst.Milliseconds()), phase+"-worst-hover-ms")
			b.ReportMetric(float64(rss>>20), phase+"-peak-RSS-MiB")
			b.Logf("%s: %d hovers, slowest %v, peak RSS %d MiB; %s", phase, hovers, worst, rss>>20, outcome)
			e.Shutdown()
			e.Exit()
		}
	}
}
