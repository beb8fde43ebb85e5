package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBinaryMCP: `crd-lsp mcp` as an agent's MCP client starts it (the
// SDK's own client over the subprocess's stdio): its validate tool finds
// exactly what `crd-lsp check --output json` finds in the same workspace,
// field paths included, and the server exits when the client closes.
func TestBinaryMCP(t *testing.T) {
	bin := builtBinary(t)
	root, err := filepath.Abs(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	// Bounded calls: a server that never answers fails the test by name.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--cache-dir", t.TempDir(), "--root", root)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "crd-lsp" || got.Version == "" {
		t.Errorf("server info %+v", got)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "validate", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("validate: %v %+v", err, res)
	}
	var got struct {
		Files []struct {
			Path     string           `json:"path"`
			Findings []jsonDiagnostic `json:"findings"`
		} `json:"files"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}

	_, out, _ := runBin(t, nil, "", "check", "--cache-dir", t.TempDir(), "--output", "json", root)
	var want struct{ Files []checkedFile }
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != len(want.Files) || len(want.Files) == 0 {
		t.Fatalf("mcp validated %d files, check %d", len(got.Files), len(want.Files))
	}
	for i, wf := range want.Files {
		gf := got.Files[i]
		if rel, _ := filepath.Rel(root, wf.Path); filepath.ToSlash(rel) != gf.Path {
			t.Errorf("file %d: mcp %s, check %s", i, gf.Path, wf.Path)
		}
		if len(gf.Findings) != len(wf.Diagnostics) {
			t.Errorf("%s: mcp %d findings, check %d", gf.Path, len(gf.Findings), len(wf.Diagnostics))
			continue
		}
		for j, d := range wf.Diagnostics {
			if gf.Findings[j] != d {
				t.Errorf("%s: finding %d: mcp %+v, check %+v", gf.Path, j, gf.Findings[j], d)
			}
		}
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("the server did not exit cleanly after the client closed: %v", cmd.ProcessState)
	}
}
