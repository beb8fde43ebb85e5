package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crd-lsp/crd-lsp/internal/mcp"
)

var quickstart = filepath.Join("..", "..", "examples", "quickstart")

// connect serves root in-process and connects the SDK's own client.
func connect(t *testing.T, root string) *sdk.ClientSession {
	t.Helper()
	srv, err := mcp.New(mcp.Options{Root: root, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result; isError says
// whether the tool reported a failure (its text is returned as msg).
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) (isError bool, msg string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return true, b.String()
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	return false, ""
}

func TestTools(t *testing.T) {
	cs := connect(t, quickstart)
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks a description or schemas", tool.Name)
		}
	}
	if strings.Join(names, ",") != "explain,kinds,render,validate" {
		t.Errorf("tools %v", names)
	}
	if init := cs.InitializeResult(); init.ServerInfo.Name != "crd-lsp" || init.Instructions == "" {
		t.Errorf("initialize: %+v", init.ServerInfo)
	}
}

func TestValidate(t *testing.T) {
	cs := connect(t, quickstart)
	var out mcp.ValidateOutput
	if isErr, msg := call(t, cs, "validate", map[string]any{"path": "resources.yaml"}, &out); isErr {
		t.Fatal(msg)
	}
	if len(out.Files) != 1 || out.Files[0].Path != "resources.yaml" || out.Summary.Errors == 0 {
		t.Fatalf("%+v", out)
	}
	want := map[string]mcp.Finding{
		"spec.engin":     {Line: 7, Column: 3, Severity: "error", Code: "unknown-field"},
		"spec.storageGB": {Line: 8, Column: 14, Severity: "error", Code: "type"},
		"spec.replicas":  {Line: 28, Column: 13, Severity: "error", Code: "type"},
	}
	for _, f := range out.Files[0].Findings {
		if w, ok := want[f.Field]; ok && f.Line == w.Line && f.Column == w.Column && f.Code == w.Code && f.Severity == w.Severity {
			delete(want, f.Field)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing findings %+v among %+v", want, out.Files[0].Findings)
	}

	// The whole workspace: every YAML file, the Composition's rendered
	// problems included.
	out = mcp.ValidateOutput{}
	call(t, cs, "validate", map[string]any{}, &out)
	files := map[string]bool{}
	for _, f := range out.Files {
		files[f.Path] = true
	}
	for _, f := range []string{"composition.yaml", "crd.yaml", "resources.yaml", "xrd.yaml"} {
		if !files[f] {
			t.Errorf("validate of the workspace lacks %s: %v", f, files)
		}
	}

	// A text, as if it were a file of the workspace: the workspace's CRD
	// applies to it.
	out = mcp.ValidateOutput{}
	text := "apiVersion: example.org/v1alpha1\nkind: Database\nmetadata:\n  name: x\nspec:\n  engine: postgres\n  storageGB: 50\n  colour: red\n"
	call(t, cs, "validate", map[string]any{"text": text, "filename": "new/db.yaml"}, &out)
	if len(out.Files) != 1 || out.Files[0].Path != "new/db.yaml" || len(out.Files[0].Findings) != 1 {
		t.Fatalf("text: %+v", out)
	}
	if f := out.Files[0].Findings[0]; f.Code != "unknown-field" || f.Line != 8 || f.Column != 3 || f.Field != "spec.colour" {
		t.Errorf("text: %+v", f)
	}
	out = mcp.ValidateOutput{}
	call(t, cs, "validate", map[string]any{"text": strings.Replace(text, "  colour: red\n", "", 1)}, &out)
	if out.Summary.Errors+out.Summary.Warnings != 0 {
		t.Errorf("a valid text: %+v", out)
	}

	if isErr, msg := call(t, cs, "validate", map[string]any{"path": "missing.yaml"}, &out); !isErr || !strings.Contains(msg, "missing.yaml") {
		t.Errorf("a missing file: %v %q", isErr, msg)
	}
}

func TestRender(t *testing.T) {
	cs := connect(t, quickstart)
	var out mcp.RenderOutput
	if isErr, msg := call(t, cs, "render", map[string]any{"composition": "composition.yaml"}, &out); isErr {
		t.Fatal(msg)
	}
	if !out.Synthesized || !strings.Contains(out.YAML, "kind: Deployment") || !strings.Contains(out.YAML, "kind: Service") {
		t.Errorf("render: %+v", out)
	}
	// An XR of our own.
	xr := filepath.Join(t.TempDir(), "xr.yaml")
	if err := os.WriteFile(xr, []byte("apiVersion: example.org/v1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: default\nspec:\n  image: nginx:1.27\n  replicas: 5\n  port: \"8080\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = mcp.RenderOutput{}
	if isErr, msg := call(t, cs, "render", map[string]any{"composition": "composition.yaml", "xr": xr}, &out); isErr {
		t.Fatal(msg)
	}
	if out.Synthesized || !strings.Contains(out.YAML, "nginx:1.27") {
		t.Errorf("render with an XR: %+v", out)
	}
	if isErr, msg := call(t, cs, "render", map[string]any{"composition": "crd.yaml"}, &out); !isErr || !strings.Contains(msg, "no Composition") {
		t.Errorf("render of a CRD: %v %q", isErr, msg)
	}
}

func TestExplainAndKinds(t *testing.T) {
	cs := connect(t, quickstart)
	var ex mcp.ExplainOutput
	if isErr, msg := call(t, cs, "explain", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "field": "spec.template.spec.containers[*].image"}, &ex); isErr {
		t.Fatal(msg)
	}
	if !strings.Contains(ex.Markdown, "**image**") || !strings.Contains(ex.Markdown, "Container image name") {
		t.Errorf("explain image: %q", ex.Markdown)
	}
	// A workspace CRD's field, and the kind itself.
	call(t, cs, "explain", map[string]any{"apiVersion": "example.org/v1alpha1", "kind": "Database", "field": "spec.storageGB"}, &ex)
	if !strings.Contains(ex.Markdown, "storageGB") || !strings.Contains(ex.Markdown, "integer") || !strings.Contains(ex.Markdown, "crd.yaml") {
		t.Errorf("explain storageGB: %q", ex.Markdown)
	}
	ex = mcp.ExplainOutput{}
	call(t, cs, "explain", map[string]any{"apiVersion": "example.org/v1", "kind": "WebApp"}, &ex)
	if !strings.Contains(ex.Markdown, "WebApp") {
		t.Errorf("explain the kind WebApp: %q", ex.Markdown)
	}
	if isErr, msg := call(t, cs, "explain", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "field": "spec.replicaz"}, &ex); !isErr || !strings.Contains(msg, "has no field spec.replicaz") {
		t.Errorf("an unknown field: %v %q", isErr, msg)
	}
	if isErr, msg := call(t, cs, "explain", map[string]any{"apiVersion": "nope.io/v1", "kind": "Nope"}, &ex); !isErr || !strings.Contains(msg, "no schema defines") {
		t.Errorf("an unknown kind: %v %q", isErr, msg)
	}

	var ks mcp.KindsOutput
	call(t, cs, "kinds", map[string]any{"filter": "example.org"}, &ks)
	got := map[string]string{}
	for _, k := range ks.Kinds {
		got[k.APIVersion+" "+k.Kind] = k.Source
	}
	if !strings.Contains(got["example.org/v1alpha1 Database"], "crd.yaml") || !strings.Contains(got["example.org/v1 WebApp"], "xrd.yaml") || ks.Total != len(ks.Kinds) {
		t.Errorf("kinds example.org: %v (total %d)", got, ks.Total)
	}
	ks = mcp.KindsOutput{}
	call(t, cs, "kinds", map[string]any{}, &ks)
	found := false
	for _, k := range ks.Kinds {
		found = found || (k.APIVersion == "apps/v1" && k.Kind == "Deployment" && strings.HasPrefix(k.Source, "built-in"))
	}
	if !found || ks.Total < 50 {
		t.Errorf("kinds: no built-in Deployment among %d", ks.Total)
	}
}
