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
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// editorsWorkspace starts the server on a copy of the editors' test
// workspace (a CRD, an XRD and a Composition with mistakes) and opens
// composition.yaml.
func editorsWorkspace(t *testing.T) (*lsptest.Editor, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "editors", "testdata", "workspace"))); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, "composition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open("composition.yaml", string(text))
	return e, string(text)
}

// TestPreviewListsRenderedErrors: what the API server would reject in a
// rendered resource is in the preview, each finding as FILE:LINE:COL of
// the place in the Composition that decides it (here the base's spec,
// for a required field nobody sets).
func TestPreviewListsRenderedErrors(t *testing.T) {
	e, text := editorsWorkspace(t)
	lines := strings.Split(text, "\n")
	lineOf := func(sub string) (int, int) {
		for i, l := range lines {
			if c := strings.Index(l, sub); c >= 0 {
				return i + 1, c + 1
			}
		}
		t.Fatalf("%q not in composition.yaml", sub)
		return 0, 0
	}
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("composition.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	var deployment *protocol.CodeLens
	name, _ := lineOf("- name: deployment")
	for i, l := range lenses {
		if int(l.Range.Start.Line) == name-1 {
			deployment = &lenses[i]
		}
	}
	if deployment == nil {
		t.Fatalf("no lens on the deployment's line %d: %+v", name, lenses)
	}
	var yaml string
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: deployment.Command.Command, Arguments: deployment.Command.Arguments}, &yaml); err != nil {
		t.Fatal(err)
	}
	specLine, specCol := lineOf("              spec:")
	specCol += len("              ")
	for _, want := range []string{
		"# composition.yaml:" + itoa(specLine) + ":" + itoa(specCol) + `: Deployment "deployment": spec: missing required field "selector"`,
		"\nkind: Deployment",
	} {
		if !strings.Contains(yaml, want) {
			t.Errorf("preview lacks %q:\n%s", want, yaml)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestPreviewDocumentNotDiagnosed: a preview opened as a document of its
// own scheme (VS Code's crd-lsp-preview:) is not analysed: its rendered
// resources' findings belong to the Composition, not to a file of their
// own. The same text in an untitled buffer is diagnosed.
func TestPreviewDocumentNotDiagnosed(t *testing.T) {
	e, _ := editorsWorkspace(t)
	var yaml string
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "crdLsp.render",
		Arguments: []protocol.LSPAny{protocol.LSPAny(`"` + string(e.URI("composition.yaml")) + `"`), protocol.LSPAny("4")}}, &yaml); err != nil {
		t.Fatal(err)
	}
	preview := uri.URI("crd-lsp-preview:/composition.yaml%20%28rendered%29.yaml?line%3D4")
	untitled := uri.URI("untitled:Untitled-1")
	for _, u := range []uri.URI{preview, untitled} {
		if err := e.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "yaml", Version: 1, Text: yaml}}); err != nil {
			t.Fatal(err)
		}
	}
	e.Await("diagnostics for the untitled buffer", 20*time.Second, func() bool {
		d, _ := e.Published(untitled)
		return len(d) > 0
	})
	if err := e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: preview}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: yaml + "\nkind: Nope\n"}}}); err != nil {
		t.Fatal(err)
	}
	e.AwaitIdle(20 * time.Second)
	if d, ok := e.Published(preview); ok {
		t.Errorf("the preview document was diagnosed: %+v", d)
	}
	for _, l := range e.Log() {
		if strings.Contains(l, "crd-lsp-preview") {
			t.Errorf("the server logged about the preview: %s", l)
		}
	}
}

// TestSchemasIncludeKeepsPackageAndExamples: crdLsp.schemas.include limits
// where CRDs are searched, not where crossplane.yaml and example XRs are
// found; crdLsp.schemas.paths adds a CRD folder outside the workspace.
func TestSchemasIncludeKeepsPackageAndExamples(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	golden := filepath.Join("..", "..", "testdata", "golden")
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(to), 0o755)
		}
		if err == nil {
			err = os.WriteFile(to, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(golden, "compositions-v1", "crossplane.yaml"), filepath.Join(dir, "crossplane.yaml"))
	copyFile(filepath.Join(golden, "compositions", "definition.yaml"), filepath.Join(dir, "apis", "definition.yaml"))
	copyFile(filepath.Join(golden, "compositions", "pipeline.yaml"), filepath.Join(dir, "pipeline.yaml"))
	copyFile(filepath.Join(golden, "compositions", "examples", "xr.yaml"), filepath.Join(dir, "examples", "xr.yaml"))
	// A CRD outside the included folders, and one outside the workspace.
	for _, p := range []string{filepath.Join(dir, "other", "crd.yaml"), filepath.Join(outside, "crd.yaml")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(dbCRD), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	include := []any{"schemas/**", "apis/**"}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"schemas": map[string]any{"include": include}}})
	e.AwaitLog("schemas loaded", 60*time.Second)
	if l := e.AwaitLog("schemas loaded", time.Second); !strings.Contains(l, "Crossplane v1, from "+filepath.Join(dir, "crossplane.yaml")) {
		t.Errorf("the Crossplane version does not come from crossplane.yaml: %s", l)
	}
	text, err := os.ReadFile(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open("pipeline.yaml", string(text))
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("pipeline.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) == 0 || lenses[0].Command.Title != "Preview rendered (all resources with examples/xr.yaml)" {
		t.Errorf("the example XR is not used: lenses %+v", lenses)
	}
	// The CRD in other/ is not searched: its kind is unknown.
	e.Open("db.yaml", dbObject)
	awaitCodes(t, e, "db.yaml", "unknown-kind")

	// crdLsp.schemas.paths: the CRD outside the workspace defines it.
	e.SetSettings(map[string]any{"schemas": map[string]any{"include": include, "paths": []any{outside}}})
	awaitCodes(t, e, "db.yaml", "enum")
}

// TestPreviewOffersSelectingExamples: the "Preview rendered" lenses of a
// Composition offer only the example XRs that would select it: one whose
// compositionRef names another Composition, or whose
// compositionSelector's labels the Composition lacks, is left out.
func TestPreviewOffersSelectingExamples(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join("..", "..", "testdata", "golden", "compositions")
	for _, name := range []string{"definition.yaml", "pipeline.yaml", filepath.Join("examples", "xr.yaml")} {
		b, err := os.ReadFile(filepath.Join(golden, name))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	xr := func(name, spec string) string {
		return "apiVersion: database.example.org/v1alpha1\nkind: XPostgreSQLInstance\nmetadata:\n  name: " + name + "\nspec:\n" + spec +
			"  parameters:\n    storageGB: 20\n    region: us-east-1\n"
	}
	for name, text := range map[string]string{
		"ref.yaml": xr("ref", "  compositionRef:\n    name: inputs.pt.database.example.org\n"),
		"sel.yaml": xr("sel", "  crossplane:\n    compositionSelector:\n      matchLabels:\n        tier: gold\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, "examples", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open("pipeline.yaml", string(text))
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("pipeline.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	// The lenses on each Composition's kind line, by the Composition's name.
	byComposition := map[string][]string{}
	lines := strings.Split(string(text), "\n")
	for _, l := range lenses {
		if !strings.HasPrefix(lines[l.Range.Start.Line], "kind: Composition") {
			continue
		}
		name := strings.TrimPrefix(strings.TrimSpace(lines[l.Range.Start.Line+2]), "name: ")
		byComposition[name] = append(byComposition[name], l.Command.Title)
	}
	want := map[string]string{
		// No selector: only xr.yaml (ref.yaml names another Composition, sel.yaml wants a label).
		"xpostgresqlinstances.pt.database.example.org": "[Preview rendered (all resources with examples/xr.yaml)]",
		// compositionRef names this one: ref.yaml too.
		"inputs.pt.database.example.org": "[Preview rendered (all resources with examples/ref.yaml) Preview with examples/xr.yaml]",
	}
	for name, w := range want {
		if got := fmt.Sprint(byComposition[name]); got != w {
			t.Errorf("lenses of %s = %s, want %s", name, got, w)
		}
	}
}
