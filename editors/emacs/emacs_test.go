// Package emacs holds crd-lsp's end-to-end test through Emacs's LSP client:
// Emacs 28 with eglot, as Debian ships them (emacs-nox, elpa-eglot), in
// batch mode, driving the built binary.
package emacs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

type diagnostic struct {
	Line, Col  int
	Type, Text string
}

type result struct {
	Error              string
	Server             string
	Diagnostics        []diagnostic
	DiagnosticsSetting []diagnostic `json:"diagnostics_setting"`
	DiagnosticsFixed   []diagnostic `json:"diagnostics_fixed"`
	Hover              string
	Completion         []string
	Restored           bool
	Actions            []string
	FixedLine          string `json:"fixed_line"`
	Rendered           string
	RenderedFirst      string `json:"rendered_first"`
	RenderedFile       any    `json:"rendered_file"`
	RenderedModified   bool   `json:"rendered_modified"`
	RenderedTyping     string `json:"rendered_typing"`
	Root               string
}

// lineOf is the 1-based line and 0-based column of the first occurrence of sub.
func lineOf(t *testing.T, text, sub string) (int, int) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if c := strings.Index(l, sub); c >= 0 {
			return i + 1, c
		}
	}
	t.Fatalf("%q not in the fixture", sub)
	return 0, 0
}

// TestEglot opens the custom resources of editors/testdata/workspace in
// Emacs with eglot and checks what flymake shows (each diagnostic at its
// line and column), hover, completion on a new line, a setting changed
// through eglot-workspace-configuration, a quick fix applied with
// eglot-code-actions, and the render command on the Composition.
func TestEglot(t *testing.T) {
	emacs, err := exec.LookPath("emacs")
	if err == nil {
		_, err = os.Stat("/usr/share/emacs/site-lisp/elpa/eglot-1.9")
		if err != nil {
			matches, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/eglot-*")
			if len(matches) > 0 {
				err = nil
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("emacs with eglot not found (%v): .ci/run installs emacs-nox and elpa-eglot with apt-get", err)
		}
		t.Skipf("emacs with eglot not installed: %v", err)
	}
	bin := lsptest.BuildBinary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "testdata", "workspace"))); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	db, comp := read("database.yaml"), read("composition.yaml")
	// A package root without .git: docs/editors.md's root-marker block
	// makes it eglot's project.
	if err := os.WriteFile(filepath.Join(ws, "crossplane.yaml"), []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: webapps\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "project.el")
	if err := os.WriteFile(project, []byte(docBlock(t, "(defun crd-lsp-project")), 0o644); err != nil {
		t.Fatal(err)
	}
	render := filepath.Join(dir, "render.el")
	if err := os.WriteFile(render, []byte(docBlock(t, "(defun crd-lsp-render")), 0o644); err != nil {
		t.Fatal(err)
	}
	hoverLine, hoverCol := lineOf(t, db, "storageGB: \"50\"")
	completeAfter, _ := lineOf(t, db, "storageGB: 2000")
	fixLine, fixCol := lineOf(t, db, "engin:")
	compLine, _ := lineOf(t, comp, "kind: Composition")
	out := filepath.Join(dir, "out.json")
	plan := map[string]any{
		"bin": bin, "dir": ws, "file": "database.yaml", "out": out, "timeout": 60, "project": project, "render": render,
		"wait":        `unknown field "engin"`,
		"hover":       []int{hoverLine, hoverCol + 1},
		"complete":    completeAfter,
		"fix":         map[string]any{"line": fixLine, "col": fixCol + 1, "title": `Change to "engine"`},
		"setting":     map[string]any{"value": "error", "wait": "no schema for example.org/v1alpha1 Cache", "type": "eglot-error"},
		"composition": map[string]any{"file": "composition.yaml", "line": compLine},
	}
	planFile := filepath.Join(dir, "plan.json")
	b, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("e2e.el")
	cmd := exec.Command(emacs, "--batch", "-Q", "-l", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "CRD_LSP_PLAN="+planFile, "HOME="+dir)
	output, err := testfixtures.CombinedOutput(t, cmd, 10*time.Minute) // e2e.el waits a minute at most per step
	raw, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("emacs wrote no result (%v): %v\n%s", err, rerr, output)
	}
	var res result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if res.Error != "" || err != nil {
		t.Fatalf("emacs failed (%v): %s\nresult: %s\n%s", err, res.Error, raw, output)
	}

	// eglot labels a diagnostic "source [code]: message"; flymake types
	// are eglot-error, eglot-warning and eglot-note.
	diag := func(text, sub, at, typ, code, message string) diagnostic {
		l, c := lineOf(t, text, sub)
		return diagnostic{Line: l, Col: c + strings.Index(sub, at), Type: typ, Text: "crd-lsp [" + code + "]: " + message}
	}
	mysql, _ := lineOf(t, db, "engine: mysql")
	missing := diag(db, "spec:", "spec", "eglot-error", "required", `missing required field "engine"`)
	unknown := diag(db, "engin:", "engin", "eglot-error", "unknown-field", `unknown field "engin"; did you mean "engine"?`)
	typ := diag(db, `storageGB: "50"`, `"50"`, "eglot-error", "type", `must be of type integer: "string"`)
	celRule := diagnostic{Line: mysql - 1, Col: 0, Type: "eglot-error", Text: "crd-lsp [cel]: mysql databases are limited to 1000 GiB"}
	cache := diag(db, "kind: Cache", "Cache", "eglot-warning", "unknown-kind", "no schema for example.org/v1alpha1 Cache: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml")
	celSkipped := diag(db, "apiVersion: example.org/v1alpha1", "apiVersion", "eglot-note", "cel", "some validation rules (x-kubernetes-validations) were not checked because the object was invalid; correct the existing errors to complete validation")
	check := func(what string, got, want []diagnostic) {
		t.Helper()
		less := func(a, b diagnostic) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return strings.Compare(a.Text, b.Text)
		}
		got, want = slices.Clone(got), slices.Clone(want)
		slices.SortFunc(got, less)
		slices.SortFunc(want, less)
		if !slices.Equal(got, want) {
			t.Errorf("%s: flymake shows\n  %+v\nwant\n  %+v", what, got, want)
		}
	}
	check("database.yaml", res.Diagnostics, []diagnostic{missing, unknown, typ, celRule, cache, celSkipped})

	if filepath.Clean(res.Root) != ws {
		t.Errorf("eglot's project root = %q, want the folder of crossplane.yaml %s", res.Root, ws)
	}
	if !strings.Contains(res.Hover, "**storageGB** `integer` — required") || !strings.Contains(res.Hover, "Allocated storage in GiB.") {
		t.Errorf("hover = %q", res.Hover)
	}
	if !slices.Contains(res.Completion, "deletionProtection") || !slices.Contains(res.Completion, "tags") ||
		slices.Contains(res.Completion, "engine") || slices.Contains(res.Completion, "storageGB") {
		t.Errorf("completion on a new line in spec = %q, want deletionProtection and tags, not engine or storageGB", res.Completion)
	}
	if !res.Restored {
		t.Errorf("the buffer differs from the file after the completion line was removed")
	}

	cacheErr := cache
	cacheErr.Type = "eglot-error"
	check("after unknownKind: error", res.DiagnosticsSetting, []diagnostic{missing, unknown, typ, celRule, cacheErr, celSkipped})

	if !slices.Contains(res.Actions, `Change to "engine"`) || res.FixedLine != "  engine: postgres" {
		t.Errorf("code actions %q, fixed line %q", res.Actions, res.FixedLine)
	}
	check("after the quick fix", res.DiagnosticsFixed, []diagnostic{typ, celRule, cacheErr, celSkipped})

	for _, want := range []string{"\nkind: Deployment", "crossplane.io/composition-resource-name: deployment", "\nkind: Service", "generateName: example-xr-"} {
		if !strings.Contains(res.Rendered, want) {
			t.Errorf("rendered Composition lacks %q:\n%s", want, res.Rendered)
		}
	}
	// docs/editors.md's render command: a read-only scratch buffer, no
	// file, unmodified, rendered again in place.
	if res.RenderedFirst != res.Rendered {
		t.Errorf("rendering again changed the scratch buffer:\n%s\nthen:\n%s", res.RenderedFirst, res.Rendered)
	}
	if res.RenderedFile != false || res.RenderedModified || res.RenderedTyping != "buffer-read-only" {
		t.Errorf("the render buffer: file %v, modified %v, typing %q; want no file, unmodified, typing refused (buffer-read-only)", res.RenderedFile, res.RenderedModified, res.RenderedTyping)
	}
	// The server only read the files: the quick fix lives in Emacs's buffer.
	if got := read("database.yaml"); got != db {
		t.Errorf("database.yaml changed on disk")
	}
}

// docBlock is the elisp block of docs/editors.md that holds sub, exactly as
// the docs give it.
func docBlock(t *testing.T, sub string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(b), "```elisp\n")[1:] {
		if code, _, _ := strings.Cut(part, "```"); strings.Contains(code, sub) {
			return code
		}
	}
	t.Fatalf("docs/editors.md has no elisp block with %q", sub)
	return ""
}
