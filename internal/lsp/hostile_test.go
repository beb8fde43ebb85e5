package lsp_test

import (
	"errors"
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
