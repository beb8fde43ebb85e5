package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// messages are a file's published findings as "line: message [code]"
// (1-based lines).
func messages(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		msg, _ := d.Message.(protocol.String)
		code, _ := d.Code.(protocol.String)
		out = append(out, strings.Join([]string{strconv.Itoa(int(d.Range.Start.Line) + 1), ": ", string(msg), " [", string(code), "]"}, ""))
	}
	return out
}

// has reports whether one of ds is at line (1-based) with a message
// holding text.
func has(ds []protocol.Diagnostic, line int, text string) bool {
	for _, m := range messages(ds) {
		if strings.HasPrefix(m, strconv.Itoa(line)+": ") && strings.Contains(m, text) {
			return true
		}
	}
	return false
}

// TestKustomizeOverlaysInTheEditor: the README's kustomize example in
// the editor. The base is reported for dev only; editing the staging
// patch (unsaved) re-validates prod, which builds it, and re-publishes
// the open base; fixing the JSON 6902 patch clears its finding; with
// crdLsp.kustomize.build false, the base is judged alone.
func TestKustomizeOverlaysInTheEditor(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", "kustomize"))); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)

	base, selector, replicas := "base/deployment.yaml", "overlays/staging/selector.yaml", "overlays/staging/replicas.yaml"
	e.Open(base, read(base))
	got := e.AwaitDiagnostics(base, 1, 30*time.Second)
	if want := []string{`5: missing required field "selector" (as overlays/dev builds it) [required]`, `8: Invalid value: {app: web}: ` + "`selector` does not match template `labels`" + ` (as overlays/dev builds it) [k8s-validation]`}; strings.Join(messages(got), "\n") != strings.Join(want, "\n") {
		t.Errorf("base:\n%s\nwant:\n%s", strings.Join(messages(got), "\n"), strings.Join(want, "\n"))
	}
	e.Open(replicas, read(replicas))
	if got := e.AwaitDiagnostics(replicas, 1, 30*time.Second); !has(got, 3, `must be of type integer: "string" (as overlays/prod builds it)`) {
		t.Errorf("the JSON 6902 patch: %q", messages(got))
	}
	e.Open(selector, read(selector))
	if got := e.AwaitDiagnostics(selector, 1, 30*time.Second); !has(got, 13, `unknown field "imagePullPolicie"`) {
		t.Errorf("the strategic-merge patch: %q", messages(got))
	}

	// The staging patch without its selector, unsaved: prod, built on
	// staging, now lacks it too, and the open base says so.
	e.Change(selector, strings.Replace(read(selector), "  selector:\n    matchLabels:\n      app: web\n", "", 1))
	e.AwaitDiagnostics(selector, 2, 30*time.Second)
	e.Await("the base reported for dev and prod", 30*time.Second, func() bool {
		return has(e.Diagnostics(base), 5, `missing required field "selector" (as overlays/dev and overlays/prod build it)`)
	})

	// The JSON 6902 patch fixed: its finding goes.
	e.Change(replicas, strings.Replace(read(replicas), "value: two", "value: 2", 1))
	if got := e.AwaitDiagnostics(replicas, 2, 30*time.Second); len(got) != 0 {
		t.Errorf("the fixed JSON 6902 patch: %q", messages(got))
	}

	// Builds off: the base alone.
	e.SetSettings(map[string]any{"kustomize": map[string]any{"build": false}})
	e.Await("the base judged alone", 30*time.Second, func() bool {
		return has(e.Diagnostics(base), 5, `missing required field "selector" [required]`)
	})
}

// BenchmarkKeystrokeKustomizePatch measures keystroke → diagnostics on a
// strategic-merge patch of an overlay (prod, built on staging, built on
// the base), with the base holding n Deployments: each edit changes the
// patched image, so prod is built again and its changed object validated
// again (the others' validations are kept).
//
//	go test ./internal/lsp -run '^$' -bench KeystrokeKustomizePatch
func BenchmarkKeystrokeKustomizePatch(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(strconv.Itoa(n)+"objects", func(b *testing.B) {
			dir := b.TempDir()
			files := map[string]string{
				"base/kustomization.yaml":    "resources:\n- deployments.yaml\n",
				"staging/kustomization.yaml": "resources:\n- ../base\nnamespace: staging\n",
				"prod/kustomization.yaml":    "resources:\n- ../staging\npatches:\n- path: image.yaml\n",
			}
			var deployments strings.Builder
			for i := range n {
				fmt.Fprintf(&deployments, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web%d\nspec:\n  selector:\n    matchLabels: {app: web%d}\n  template:\n    metadata:\n      labels: {app: web%d}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n", i, i, i)
			}
			files["base/deployments.yaml"] = deployments.String()
			patch := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web0\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.%d\n"
			files["prod/image.yaml"] = fmt.Sprintf(patch, 0)
			for p, text := range files {
				p = filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir})
			e.AwaitSchemas(30 * time.Second)
			e.Open("prod/image.yaml", files["prod/image.yaml"])
			if got := e.AwaitDiagnostics("prod/image.yaml", 1, 30*time.Second); len(got) != 0 {
				b.Fatalf("the patch: %q", messages(got))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				text := fmt.Sprintf(patch, i)
				if i%2 == 1 {
					text += "        imagePullPolicie: Always\n" // a finding every other edit: the build's
				}
				e.Change("prod/image.yaml", text)
				got := e.AwaitDiagnostics("prod/image.yaml", e.Version("prod/image.yaml"), 30*time.Second)
				if (i%2 == 1) != (len(got) == 1) {
					b.Fatalf("edit %d: %q", i, messages(got))
				}
			}
		})
	}
}

// TestKustomizeOverlaysBinaryDiskChange: the crd-lsp binary over stdio,
// with a client file watcher. The open base is reported for dev only;
// the staging patch rewritten on disk without its selector (not open in
// the editor) re-validates prod, and the base is reported for both; the
// patch restored on disk, for dev only again.
func TestKustomizeOverlaysBinaryDiskChange(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", "kustomize"))); err != nil {
		t.Fatal(err)
	}
	base, selector := "base/deployment.yaml", "overlays/staging/selector.yaml"
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	patch := read(selector)
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(60 * time.Second)
	e.Open(base, read(base))
	devOnly := `5: missing required field "selector" (as overlays/dev builds it) [required]` + "\n" +
		`8: Invalid value: {app: web}: ` + "`selector` does not match template `labels`" + ` (as overlays/dev builds it) [k8s-validation]`
	e.Await("the base reported for dev only", 30*time.Second, func() bool {
		return strings.Join(messages(e.Diagnostics(base)), "\n") == devOnly
	})
	without := strings.Replace(patch, "  selector:\n    matchLabels:\n      app: web\n", "", 1)
	if without == patch {
		t.Fatal("the example's staging patch no longer sets the selector as this test expects")
	}
	e.WriteFile(selector, without)
	e.Await("the base reported for dev and prod", 30*time.Second, func() bool {
		return has(e.Diagnostics(base), 5, `missing required field "selector" (as overlays/dev and overlays/prod build it)`)
	})
	e.WriteFile(selector, patch)
	e.Await("the base reported for dev only again", 30*time.Second, func() bool {
		return strings.Join(messages(e.Diagnostics(base)), "\n") == devOnly
	})
}

// TestKustomizeGeneratorInputWatched: a generator's .env file, not YAML
// and never open, rewritten on disk (reported by the client's file
// watcher) builds the kustomization that reads it again: a key the
// generated ConfigMap may not have appears on the kustomization, and
// goes when the file is fixed.
func TestKustomizeGeneratorInputWatched(t *testing.T) {
	dir := t.TempDir()
	for rel, text := range map[string]string{
		"app/kustomization.yaml": "resources:\n- service.yaml\nconfigMapGenerator:\n- name: settings\n  envs:\n  - settings.env\n",
		"app/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
		"app/settings.env":       "LOG_LEVEL=debug\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(60 * time.Second)
	k := "app/kustomization.yaml"
	text, err := os.ReadFile(filepath.Join(dir, "app", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open(k, string(text))
	if got := e.AwaitDiagnostics(k, 1, 30*time.Second); len(got) != 0 {
		t.Fatalf("the kustomization before the edit: %q", messages(got))
	}
	e.WriteFile("app/settings.env", "LOG_LEVEL=debug\nLOG/LEVEL=info\n")
	e.Await("the .env's bad key said on its envs entry", 30*time.Second, func() bool {
		return has(e.Diagnostics(k), 6, `ConfigMap "settings-`) && has(e.Diagnostics(k), 6, `data.LOG/LEVEL: Invalid value: "LOG/LEVEL": a valid config key`)
	})
	e.WriteFile("app/settings.env", "LOG_LEVEL=info\n")
	e.Await("the fixed .env's finding gone", 30*time.Second, func() bool {
		return len(e.Diagnostics(k)) == 0
	})
}

// TestKustomizeRemoteSetting: crdLsp.kustomize.allowRemote, turned on in
// the editor, builds an overlay whose base is a real git repository
// (fetched over file://): the entry's "not built" information gives way
// to the remote base's own wrong value, said on that entry, naming the
// remote base; turned off, the information is back.
func TestKustomizeRemoteSetting(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	repo := testfixtures.GitRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- service.yaml\n",
		"base/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: eighty\n",
	})
	url := "file://" + filepath.ToSlash(repo) + "//base"
	dir := t.TempDir()
	k := "prod/kustomization.yaml"
	text := "resources:\n- " + url + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "prod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prod", "kustomization.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	e.Open(k, text)
	if got := e.AwaitDiagnostics(k, 1, 30*time.Second); !has(got, 2, "crdLsp.kustomize.allowRemote") {
		t.Errorf("not asked: %q", messages(got))
	}
	e.SetSettings(map[string]any{"kustomize": map[string]any{"allowRemote": true}})
	e.Await("the remote base built", 30*time.Second, func() bool {
		ds := e.Diagnostics(k)
		return len(ds) == 1 && has(ds, 2, `Service "web" of the remote base `+url+` (base/service.yaml): spec.ports[0].port: must be of type integer: "string"`)
	})
	e.SetSettings(map[string]any{"kustomize": map[string]any{"allowRemote": false}})
	e.Await("not built again", 30*time.Second, func() bool {
		ds := e.Diagnostics(k)
		return len(ds) == 1 && has(ds, 2, "crdLsp.kustomize.allowRemote")
	})
}
