package lsp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestOddCancelRequests: $/cancelRequest whose id is null, a fraction, a
// bool, an object, beyond int64, or whose params are missing is ignored;
// the server keeps serving and exits cleanly.
func TestOddCancelRequests(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{})
	for _, params := range []string{
		`{"id":null}`, `{"id":1.5}`, `{"id":true}`, `{"id":{"a":1}}`, `{"id":[1]}`,
		`{"id":9223372036854775808}`, `{"id":-9223372036854775809}`, `{}`, `[]`, `"x"`, `null`,
	} {
		if err := e.Notify("$/cancelRequest", jsonrpc2.RawMessage(params)); err != nil {
			t.Fatalf("sending cancel %s: %v", params, err)
		}
	}
	if err := e.Notify("$/cancelRequest", nil); err != nil {
		t.Fatalf("sending cancel without params: %v", err)
	}
	e.Open("alive.yaml", "a: [1\n")
	if diags := e.AwaitDiagnostics("alive.yaml", 1, 10*time.Second); len(diags) != 1 {
		t.Fatalf("after odd cancels: diagnostics %v", diags)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	e.Exit()
	if e.ExitCode() != 0 {
		t.Errorf("exit code %d after odd cancels, want 0", e.ExitCode())
	}
}

// TestWrongParamTypes: params of the wrong shape are InvalidParams
// (-32602), not a parse error: the JSON itself was fine.
func TestWrongParamTypes(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{})
	for method, params := range map[string]string{
		"textDocument/hover":      `{"textDocument":5,"position":{"line":"x","character":0}}`,
		"textDocument/completion": `{"textDocument":{"uri":"file:///a.yaml"},"position":[]}`,
		"workspace/symbol":        `{"query":7}`,
	} {
		err := e.Call(method, jsonrpc2.RawMessage(params), nil)
		var rpc *jsonrpc2.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.InvalidParams {
			t.Errorf("%s with %s: %v, want code %d (InvalidParams)", method, params, err, jsonrpc2.InvalidParams)
		}
	}
}

// TestDoubleStarGlobSettings: a repository's settings with many "**" in
// schemas.exclude used to keep the schema scan busy for ever, so nothing
// was validated; the scan finishes and the CRD applies.
func TestDoubleStarGlobSettings(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, filepath.Join(strings.Split(strings.Repeat("d/", 30), "/")...))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{
		"schemas": map[string]any{"exclude": []string{strings.Repeat("**/", 30) + "nothing.yaml"}},
	}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	if got := codes(e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)); got != "enum" {
		t.Errorf("diagnostics %q, want the CRD's enum finding", got)
	}
}

// TestDocumentLimits: an open file over crdLsp.maxFileSize or
// crdLsp.maxDocuments is not analysed; it gets one diagnostic at its start
// saying why and which setting to raise, and nothing else answers for it.
// Raising the setting analyses it.
func TestDocumentLimits(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"maxFileSize": 2000, "maxDocuments": 3}})
	e.AwaitSchemas(30 * time.Second)
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n" + strings.Repeat("# padding\n", 300)
	e.Open("big.yaml", big)
	d := e.AwaitDiagnostics("big.yaml", 1, 10*time.Second)
	if len(d) != 1 || lsptest.Code(d[0]) != "file-too-large" || d[0].Range.Start.Line != 0 || d[0].Range.Start.Character != 0 ||
		!strings.Contains(lsptest.Message(d[0]), fmt.Sprintf("it is %d bytes, over the 2000 bytes limit (raise crdLsp.maxFileSize", len(big))) {
		t.Errorf("oversize file: %v", d)
	}
	if h := e.Hover("big.yaml", 1, 2); h != nil {
		t.Errorf("hover in a file not analysed: %v", h)
	}
	if c := e.Completion("big.yaml", 3, 2); len(c) != 0 {
		t.Errorf("completion in a file not analysed: %v", c)
	}
	// Under the limit after an edit: analysed (the syntax error shows).
	e.Change("big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n")
	if d := e.AwaitDiagnostics("big.yaml", 2, 10*time.Second); len(d) != 1 || lsptest.Code(d[0]) != "yaml-syntax" {
		t.Errorf("after shrinking: %v", d)
	}
	e.Open("many.yaml", strings.Repeat("a: 1\n---\n", 4)+"b: [\n")
	d = e.AwaitDiagnostics("many.yaml", 1, 10*time.Second)
	if len(d) != 1 || !strings.Contains(lsptest.Message(d[0]), "it holds 5 YAML documents, over the limit of 3 (raise crdLsp.maxDocuments") {
		t.Errorf("too many documents: %v", d)
	}
	e.SetSettings(map[string]any{"maxFileSize": 2000, "maxDocuments": 10})
	awaitCodes(t, e, "many.yaml", "yaml-syntax")
}

// TestInternalMethodsFromTheWire: the notification the server's stream
// makes of an oversize didOpen (crd-lsp/internal/documentOverLimit) is
// refused when a client sends it: the URI it names is not marked open and
// gets no diagnostic; as a request it is MethodNotFound.
func TestInternalMethodsFromTheWire(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	for _, token := range []string{"", "guess"} {
		params := map[string]any{"uri": string(e.URI("never-opened.yaml")), "version": 1, "bytes": 1 << 30, "limit": 64 << 20, "token": token}
		if err := e.Notify("crd-lsp/internal/documentOverLimit", params); err != nil {
			t.Fatal(err)
		}
		err := e.Call("crd-lsp/internal/documentOverLimit", params, nil)
		var rpc *jsonrpc2.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.MethodNotFound {
			t.Errorf("an internal method as a request: %v, want MethodNotFound", err)
		}
	}
	e.AwaitIdle(30 * time.Second)
	if v := e.PublishedVersions("never-opened.yaml"); len(v) != 0 {
		t.Errorf("a URI named only by a client's internal notification got diagnostics (versions %v): %v", v, e.Diagnostics("never-opened.yaml"))
	}
}
