package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

const dbCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.example.org
spec:
  group: example.org
  names: {kind: Database, plural: databases}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                engine: {type: string, enum: [postgres, mysql]}
`

const dbObject = `apiVersion: example.org/v1
kind: Database
metadata:
  name: orders
spec:
  engine: oracle
`

func codes(diags []protocol.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, lsptest.Code(d))
	}
	return strings.Join(out, ",")
}

// awaitCodes waits until path's latest diagnostics have exactly these codes.
func awaitCodes(t *testing.T, e *lsptest.Editor, path, want string) []protocol.Diagnostic {
	t.Helper()
	e.Await(fmt.Sprintf("%s: diagnostics with codes %q", path, want), 20*time.Second, func() bool { return codes(e.Diagnostics(path)) == want })
	return e.Diagnostics(path)
}

func TestWorkspaceSchemasFollowFiles(t *testing.T) { followFiles(t) }

// With the decoded cache on (as the binary runs), edits of a CRD change
// the result at once, whether its decoding is new or read back from the
// cache: the second session finds every content decoded on disk (the
// in-memory builds are dropped between them).
func TestWorkspaceSchemasFollowFilesDecodedCache(t *testing.T) {
	cache := t.TempDir()
	schemas.SetDecodedCache(cache, 0)
	defer schemas.SetDecodedCache("", 0)
	schemas.SetBuildBudget(schemas.SetBuildBudget(0)) // earlier tests' builds
	followFiles(t)
	entries, _ := os.ReadDir(cache)
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	if n < 2 {
		t.Fatalf("the decoded cache holds %d entries, want one per CRD content", n)
	}
	schemas.SetBuildBudget(schemas.SetBuildBudget(0))
	followFiles(t)
}

func followFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	d := awaitCodes(t, e, "db.yaml", "enum")
	if d[0].Range.Start.Line != 5 || d[0].Range.Start.Character != 10 {
		t.Errorf("enum error at %v, want 5:10", d[0].Range.Start)
	}
	// The diagnostic's data names the field, as the API server would.
	var data struct {
		Field string `json:"field"`
	}
	if err := json.Unmarshal(d[0].Data, &data); err != nil || data.Field != "spec.engine" {
		t.Errorf("enum error data %s (%v), want field spec.engine", d[0].Data, err)
	}

	// The CRD is deleted outside the editor: the kind becomes unknown.
	e.RemoveFile("crd.yaml")
	awaitCodes(t, e, "db.yaml", "unknown-kind")

	// It comes back with oracle allowed.
	e.WriteFile("crd.yaml", strings.Replace(dbCRD, "[postgres, mysql]", "[postgres, mysql, oracle]", 1))
	awaitCodes(t, e, "db.yaml", "")

	// An open buffer wins over the disk: narrowing the enum in the editor
	// re-validates the object without a save.
	e.Open("crd.yaml", strings.Replace(dbCRD, "[postgres, mysql]", "[postgres, mysql, oracle]", 1))
	e.Change("crd.yaml", dbCRD)
	awaitCodes(t, e, "db.yaml", "enum")

	// Closing the buffer brings back the disk version (oracle allowed).
	e.Close("crd.yaml")
	awaitCodes(t, e, "db.yaml", "")
}

func TestSettingsUnknownKindSeverity(t *testing.T) {
	dir := t.TempDir()
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"validation": map[string]any{"unknownKind": "error"}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("x.yaml", "apiVersion: example.org/v1\nkind: Nope\nmetadata:\n  name: x\n")
	d := awaitCodes(t, e, "x.yaml", "unknown-kind")
	if d[0].Severity != protocol.DiagnosticSeverityError || d[0].Range.Start.Line != 1 {
		t.Errorf("unknown kind = %+v, want an error on line 1", d[0])
	}
	e.SetSettings(map[string]any{"validation": map[string]any{"unknownKind": "ignore"}})
	awaitCodes(t, e, "x.yaml", "")
}

// TestSettingsClientKinds: crdLsp.validation.clientKinds adds client-side
// configuration kinds that are not validated.
func TestSettingsClientKinds(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"validation": map[string]any{"clientKinds": []string{"Settings.tools.example.org"}}}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("x.yaml", "apiVersion: tools.example.org/v1\nkind: Settings\nfoo: bar\n---\napiVersion: tools.example.org/v1\nkind: Other\nmetadata:\n  name: o\n")
	d := awaitCodes(t, e, "x.yaml", "unknown-kind")
	if d[0].Range.Start.Line != 5 {
		t.Errorf("unknown kind on line %d, want only the Other on line 5: %v", d[0].Range.Start.Line, d)
	}
	e.SetSettings(map[string]any{"validation": map[string]any{"clientKinds": []string{"tools.example.org"}}})
	awaitCodes(t, e, "x.yaml", "")
}

func TestMultiRootFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(b, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: a})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	awaitCodes(t, e, "db.yaml", "unknown-kind")
	// The folder holding the CRD joins the workspace.
	err := e.Server().DidChangeWorkspaceFolders(context.Background(), &protocol.DidChangeWorkspaceFoldersParams{
		Event: protocol.WorkspaceFoldersChangeEvent{Added: []protocol.WorkspaceFolder{{URI: uri.File(b), Name: "b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	awaitCodes(t, e, "db.yaml", "enum")
	// And leaves it again.
	err = e.Server().DidChangeWorkspaceFolders(context.Background(), &protocol.DidChangeWorkspaceFoldersParams{
		Event: protocol.WorkspaceFoldersChangeEvent{Removed: []protocol.WorkspaceFolder{{URI: uri.File(b), Name: "b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	awaitCodes(t, e, "db.yaml", "unknown-kind")
}

func TestSetTrace(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{})
	if err := e.Notify(protocol.MethodSetTrace, &protocol.SetTraceParams{Value: protocol.TraceValueVerbose}); err != nil {
		t.Fatal(err)
	}
	e.Open("/tmp/trace.yaml", "a: 1\n")
	e.AwaitLog("logTrace: received notification textDocument/didOpen", 5*time.Second)
}

// TestCompositionModeSetting: crdLsp.validation.compositionMode decides how
// a Composition without a known XRD (whose patches then go unchecked) is
// reported; the annotation overrides.
func TestCompositionModeSetting(t *testing.T) {
	comp := "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\n%sspec:\n  compositeTypeRef:\n    apiVersion: nowhere.example.org/v1\n    kind: XNowhere\n  mode: Pipeline\n  pipeline:\n    - step: s\n      functionRef:\n        name: f\n      input:\n        apiVersion: pt.fn.crossplane.io/v1beta1\n        kind: Resources\n        resources:\n          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap}\n            patches:\n              - fromFieldPath: spec.x\n                toFieldPath: data.x\n"
	for _, c := range []struct {
		mode, annotation string
		want             protocol.DiagnosticSeverity
	}{
		{"strict", "", protocol.DiagnosticSeverityError},
		{"warn", "", protocol.DiagnosticSeverityWarning},
		{"loose", "", protocol.DiagnosticSeverityWarning},
		{"warn", "  annotations:\n    crossplane.io/composition-schema-aware-validation-mode: strict\n", protocol.DiagnosticSeverityError},
	} {
		e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"validation": map[string]any{"compositionMode": c.mode}}})
		e.AwaitSchemas(30 * time.Second)
		e.Open("c.yaml", strings.Replace(comp, "%s", c.annotation, 1))
		ds := waitDiags(t, e, "c.yaml", 10*time.Second, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "composition-schema", "XNowhere") != nil })
		if d := hasDiag(ds, "composition-schema", "XNowhere"); d.Severity != c.want {
			t.Errorf("mode %s, annotation %q: severity %v, want %v", c.mode, c.annotation, d.Severity, c.want)
		}
		e.Shutdown()
	}
}

// Until the workspace is loaded, an open document gets only what depends
// on no schema (syntax, a CRD's own rules): no "unknown kind" or unknown
// field that would vanish a moment later. Once loaded, the rest follows.
func TestNothingSchemaDependentBeforeLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	reached := make(chan struct{}, 1)
	lsp.SetLoadHook(func() {
		select {
		case reached <- struct{}{}:
		default:
		}
		<-release
	})
	t.Cleanup(func() { lsp.SetLoadHook(nil) })
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	testfixtures.Await(t, reached, "the load to read the disk") // and it waits
	e.Open("db.yaml", "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  engine: postgres\n  teir: gold\n---\nbad: [\n")
	early := e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)
	if got := codes(early); got != "yaml-syntax" {
		t.Errorf("before the load: codes %q, want only the syntax error: %v", got, early)
	}
	close(release)
	if got := codes(e.AwaitSettled("db.yaml", 20*time.Second)); got != "unknown-field,yaml-syntax" {
		t.Errorf("after the load: codes %q, want unknown-field,yaml-syntax", got)
	}
}
