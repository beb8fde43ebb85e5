package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

func TestDefinitionOfKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", dbObject)
	// On "Database" in "kind: Database" (line 1).
	locs := e.Definition("db.yaml", 1, 8)
	if len(locs) != 1 {
		t.Fatalf("definition = %v, want one location", locs)
	}
	l := locs[0]
	if l.URI != uri.File(filepath.Join(dir, "crd.yaml")) || l.Range.Start.Line != 6 || l.Range.Start.Character != 16 {
		t.Errorf("definition at %s %v, want crd.yaml 6:16 (the kind in spec.names)", l.URI, l.Range.Start)
	}
	// On a field that is not apiVersion/kind: nothing.
	if locs := e.Definition("db.yaml", 5, 4); len(locs) != 0 {
		t.Errorf("definition on spec.engine = %v", locs)
	}
	// Built-in kinds have no file.
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	if locs := e.Definition("cm.yaml", 1, 8); len(locs) != 0 {
		t.Errorf("definition of a built-in kind = %v", locs)
	}
}

func TestDocumentSymbols(t *testing.T) {
	e := lsptest.StartBinary(t, lsptest.Config{Dir: t.TempDir()})
	e.Open("two.yaml", dbObject+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n")
	var res protocol.DocumentSymbolSlice
	params := &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("two.yaml")}}
	if err := e.Call(protocol.MethodTextDocumentDocumentSymbol, params, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Name != "Database/orders" || res[1].Name != "ConfigMap/settings" {
		t.Fatalf("symbols = %+v", res)
	}
	if d := res[0].Detail; d == nil || *d != "example.org/v1" {
		t.Errorf("detail = %v", d)
	}
	if res[1].Range.Start.Line != 7 || res[1].SelectionRange.Start.Line != 8 {
		t.Errorf("ConfigMap range %v selection %v", res[1].Range, res[1].SelectionRange)
	}
	var names []string
	for _, c := range res[0].Children {
		names = append(names, c.Name)
	}
	if len(names) != 4 || names[0] != "apiVersion" || names[3] != "spec" {
		t.Errorf("children = %v", names)
	}
}

// dbCRDRequired is dbCRD with required fields and one more property.
var dbCRDRequired = strings.Replace(dbCRD,
	"              properties:\n                engine:",
	"              required: [engine, storageGB]\n              properties:\n                storageGB: {type: integer}\n                tier: {type: string}\n                engine:", 1)

func TestQuickFixes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRDRequired), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	e.Open("db.yaml", "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n  teir: gold\n")
	diags := e.AwaitDiagnostics("db.yaml", 1, 10*time.Second)
	if len(diags) != 3 {
		t.Fatalf("diagnostics = %v", diags)
	}
	want := map[string]string{
		`Change to "tier"`: `5:2-5:6 "tier"`,
		"Add missing required fields engine, storageGB": `4:5-4:5 "\n  engine: \"postgres\"\n  storageGB: 0"`,
	}
	// The fixes come from the data the published diagnostics carry; a
	// client that drops it, or sends no diagnostics, gets the fixes of
	// what was published for the range.
	stripped := make([]protocol.Diagnostic, len(diags))
	for i, d := range diags {
		d.Data = nil
		stripped[i] = d
	}
	for name, sent := range map[string][]protocol.Diagnostic{"as published": diags, "without data": stripped, "none sent": nil} {
		var actions []protocol.CodeAction
		params := &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("db.yaml")},
			Range:        protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5, Character: 6}},
			Context:      protocol.CodeActionContext{Diagnostics: sent},
		}
		if err := e.Call(protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, a := range actions {
			if len(a.Diagnostics) != 1 {
				t.Errorf("%s: %s fixes %d diagnostics", name, a.Title, len(a.Diagnostics))
			}
			for _, edits := range a.Edit.Changes {
				for _, ed := range edits {
					got[a.Title] = fmt.Sprintf("%d:%d-%d:%d %q", ed.Range.Start.Line, ed.Range.Start.Character, ed.Range.End.Line, ed.Range.End.Character, ed.NewText)
				}
			}
		}
		for title, edit := range want {
			if got[title] != edit {
				t.Errorf("%s: %s: edit %s, want %s (all: %v)", name, title, got[title], edit, got)
			}
		}
	}
}

func TestDefinitionFromCompositeTypeRef(t *testing.T) {
	c := lsptest.CorpusDir(t)
	dir := filepath.Join(c, "compositions", "upbound-configuration-aws-database", "v0.15.0")
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, "apis", "composition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.Open("apis/composition.yaml", string(text))
	line, col := -1, -1
	for i, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, "kind: XSQLInstance") && line < 0 {
			line, col = i, strings.Index(l, "XSQLInstance")+2
		}
	}
	if line < 0 {
		t.Fatal("no compositeTypeRef kind in the corpus composition")
	}
	locs := e.Definition("apis/composition.yaml", line, col)
	if len(locs) != 1 || locs[0].URI != uri.File(filepath.Join(dir, "apis", "definition.yaml")) {
		t.Fatalf("definition = %v, want the XRD in apis/definition.yaml", locs)
	}
}

func TestWorkspaceSymbols(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(dbCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "db.yaml"), []byte(dbObject), 0o644); err != nil {
		t.Fatal(err)
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir})
	e.AwaitSchemas(30 * time.Second)
	var res protocol.SymbolInformationSlice
	if err := e.Call(protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: "datab"}, &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res {
		got[s.Name] = fmt.Sprintf("%s:%d", filepath.Base(s.Location.URI.FsPath()), s.Location.Range.Start.Line)
	}
	if got["Database"] != "crd.yaml:6" || got["Database/orders"] != "db.yaml:1" {
		t.Errorf("workspace symbols = %v", got)
	}
}

func TestCompletionPlainTextWithoutSnippets(t *testing.T) {
	// The harness advertises no snippet support: items are plain text
	// edits, objects open an indented block.
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	e.Open("d.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nda\n")
	for _, it := range e.Completion("d.yaml", 4, 2) {
		if it.Label == "data" {
			te, _ := it.TextEdit.(*protocol.TextEdit)
			if te == nil || te.NewText != "data:\n  " || it.InsertTextFormat == protocol.InsertTextFormatSnippet ||
				te.Range.Start != (protocol.Position{Line: 4}) || te.Range.End != (protocol.Position{Line: 4, Character: 2}) {
				t.Errorf("data item = %+v", it)
			}
			return
		}
	}
	t.Fatal("no completion for data")
}

// TestCompositionNavigation: definition from a fieldPath into the XRD
// (composite side) and the provider's CRD (composed side), from a
// patchSetName to its patchSet, and references from a patchSet to its uses.
func TestCompositionNavigation(t *testing.T) {
	e, _, text := openGolden(t, "compositions-v1", "classic.yaml")
	// pos finds the n-th occurrence of s and returns its line and column.
	pos := func(s string, n int) (int, int) {
		off := -1
		for i := 0; i <= n; i++ {
			j := strings.Index(string(text[off+1:]), s)
			if j < 0 {
				t.Fatalf("%q #%d not in classic.yaml", s, n)
			}
			off += 1 + j
		}
		line := strings.Count(string(text[:off]), "\n")
		return line, off - strings.LastIndex(string(text[:off]), "\n") - 1
	}
	at := func(l protocol.Location) string {
		if filepath.Base(l.URI.FsPath()) == "classic.yaml" && l.URI != e.URI("classic.yaml") {
			t.Errorf("location URI %s, want %s", l.URI, e.URI("classic.yaml"))
		}
		return fmt.Sprintf("%s:%d:%d", filepath.Base(l.URI.FsPath()), l.Range.Start.Line, l.Range.Start.Character)
	}
	// fromFieldPath: spec.parameters.storageGB → the XRD's storageGB property.
	line, col := pos("spec.parameters.storageGB", 0)
	if locs := e.Definition("classic.yaml", line, col+20); len(locs) != 1 || at(locs[0]) != "definition.yaml:26:20" {
		t.Errorf("definition of fromFieldPath = %v, want definition.yaml:26:20 (storageGB in the XRD)", locs)
	}
	// toFieldPath: spec.forProvider.publiclyAccessible → the RDS CRD.
	line, col = pos("spec.forProvider.publiclyAccessible", 0)
	locs := e.Definition("classic.yaml", line, col+3)
	if len(locs) != 1 || !strings.HasPrefix(filepath.Base(locs[0].URI.FsPath()), "rds.aws.upbound.io_instances") {
		t.Fatalf("definition of toFieldPath = %v, want the RDS Instance CRD", locs)
	}
	crdText, err := os.ReadFile(locs[0].URI.FsPath())
	if err != nil {
		t.Fatal(err)
	}
	crdLine := strings.Split(string(crdText), "\n")[locs[0].Range.Start.Line]
	if !strings.HasPrefix(strings.TrimSpace(crdLine[locs[0].Range.Start.Character:]), "publiclyAccessible:") {
		t.Errorf("definition of toFieldPath lands on %q, want the publiclyAccessible property", crdLine)
	}
	// A misspelt fieldPath segment: the diagnostic covers just that segment
	// and a quick fix replaces it.
	line, col = pos("spec.forProvider.allocatedstorage", 0)
	var actions []protocol.CodeAction
	params := &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("classic.yaml")},
		Range:        protocol.Range{Start: protocol.Position{Line: uint32(line), Character: uint32(col + 20)}, End: protocol.Position{Line: uint32(line), Character: uint32(col + 20)}},
	}
	if err := e.Call(protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
		t.Fatal(err)
	}
	fixed := ""
	for _, a := range actions {
		for _, edits := range a.Edit.Changes {
			for _, ed := range edits {
				fixed = fmt.Sprintf("%s %d:%d-%d:%d %q", a.Title, ed.Range.Start.Line, ed.Range.Start.Character, ed.Range.End.Line, ed.Range.End.Character, ed.NewText)
			}
		}
	}
	if want := fmt.Sprintf(`Change to "allocatedStorage" %d:%d-%d:%d "allocatedStorage"`, line, col+17, line, col+33); fixed != want {
		t.Errorf("quick fix = %q, want %q", fixed, want)
	}
	// The region nothing sets: a quick fix adds it to the base's forProvider.
	line, col = pos("forProvider:", 0)
	params.Range = protocol.Range{Start: protocol.Position{Line: uint32(line), Character: uint32(col + 2)}, End: protocol.Position{Line: uint32(line), Character: uint32(col + 2)}}
	actions = nil
	if err := e.Call(protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
		t.Fatal(err)
	}
	added := ""
	for _, a := range actions {
		for _, edits := range a.Edit.Changes {
			for _, ed := range edits {
				added += fmt.Sprintf("%s %q;", a.Title, ed.NewText)
			}
		}
	}
	if !strings.Contains(added, `Add missing required field region "\n            region: \"\""`) {
		t.Errorf("quick fixes on forProvider = %s", added)
	}
	// A base's kind → its CRD.
	line, col = pos("kind: Instance", 0)
	if locs := e.Definition("classic.yaml", line, col+8); len(locs) != 1 || !strings.HasPrefix(filepath.Base(locs[0].URI.FsPath()), "rds.aws.upbound.io_instances") {
		t.Errorf("definition of the base's kind = %v, want the RDS Instance CRD", locs)
	}
	// patchSetName: common → the patchSet's name.
	line, col = pos("patchSetName: common", 0)
	if locs := e.Definition("classic.yaml", line, col+16); len(locs) != 1 || at(locs[0]) != "classic.yaml:11:12" {
		t.Errorf("definition of patchSetName = %v, want classic.yaml:11:12", locs)
	}
	// References of the patchSet, from its name: its one use.
	refs := e.References("classic.yaml", 11, 13, true)
	var got []string
	for _, r := range refs {
		got = append(got, at(r))
	}
	if want := fmt.Sprintf("[classic.yaml:11:12 classic.yaml:%d:%d]", line, col+14); fmt.Sprint(got) != want {
		t.Errorf("references = %v, want %s", got, want)
	}
	if refs := e.References("classic.yaml", 11, 13, false); len(refs) != 1 {
		t.Errorf("references without the declaration = %v", refs)
	}
}

// TestPreviewRendered: a "Preview rendered" lens on the Composition and on
// each composed resource; the lens's command returns the rendered YAML
// (one resource from its lens, all from the Composition's).
func TestPreviewRendered(t *testing.T) {
	e, _, _ := openGolden(t, "compositions-v1", "classic.yaml")
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("classic.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lenses {
		got = append(got, fmt.Sprintf("%d:%s:%s", l.Range.Start.Line, l.Command.Title, l.Command.Command))
	}
	// 0-based: kind: Composition on line 3, the resource's name on line 18.
	if want := "[3:Preview rendered (all resources):crdLsp.render 18:Preview rendered:crdLsp.render]"; fmt.Sprint(got) != want {
		t.Fatalf("lenses = %v, want %s", got, want)
	}
	var yaml string
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lenses[1].Command.Command, Arguments: lenses[1].Command.Arguments}, &yaml); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Rendered by crd-lsp with a composite resource synthesised from the XRD",
		"kind: Instance",
		"crossplane.io/composition-resource-name: rdsinstance",
		"generateName: example-xr-",
		"instanceClass: db.t3.micro",
		"allocatedstorage: 1", // the patch writes what the XR's required storageGB holds
	} {
		if !strings.Contains(yaml, want) {
			t.Errorf("rendered YAML lacks %q:\n%s", want, yaml)
		}
	}
	if strings.Contains(yaml, "\nkind: XPostgreSQLInstance") {
		t.Errorf("a resource's lens rendered the composite too:\n%s", yaml)
	}
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments}, &yaml); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(yaml, "\nkind: XPostgreSQLInstance") || !strings.Contains(yaml, "\nkind: Instance") {
		t.Errorf("the Composition's lens should render the XR and its resources:\n%s", yaml)
	}
	// Bad arguments are an error, not a crash.
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "crdLsp.render"}, &yaml); err == nil {
		t.Error("crdLsp.render without arguments succeeded")
	}
}

// TestPreviewWithExample: with an example XR in the workspace, lenses and
// previews render with it instead of a synthesised composite.
func TestPreviewWithExample(t *testing.T) {
	e, dir, _ := openGolden(t, "compositions", "pipeline.yaml")
	var lenses []protocol.CodeLens
	if err := e.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.URI("pipeline.yaml")}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) < 2 || lenses[1].Command.Title != "Preview rendered with examples/xr.yaml" || len(lenses[1].Command.Arguments) != 3 {
		t.Fatalf("lenses = %+v", lenses)
	}
	var yaml string
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lenses[1].Command.Command, Arguments: lenses[1].Command.Arguments}, &yaml); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Rendered by crd-lsp with " + filepath.Join(dir, "examples", "xr.yaml"), "allocatedstorage: 20", "generateName: orders-"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("preview lacks %q:\n%s", want, yaml)
		}
	}
}

// openGolden starts the server on a golden folder (with the upjet AWS CRDs
// as a second folder) and opens one of its files.
func openGolden(t *testing.T, folder, file string) (*lsptest.Editor, string, []byte) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "golden", folder))
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(lsptest.CorpusDir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")
	e := lsptest.StartBinary(t, lsptest.Config{Dir: dir, Folders: []string{crds}})
	e.AwaitSchemas(60 * time.Second)
	text, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	e.Open(file, string(text))
	return e, dir, text
}

// TestWorkspaceSymbolsIgnoreSchemaScope: crdLsp.schemas.include limits
// where CRDs are searched, not which objects workspace/symbol finds: an
// object outside the included folders is a symbol, listed from the
// World's file index.
func TestWorkspaceSymbolsIgnoreSchemaScope(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{filepath.Join("apis", "crd.yaml"): dbCRD, filepath.Join("examples", "db.yaml"): dbObject} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"schemas": map[string]any{"include": []any{"apis/**"}}}})
	e.AwaitSchemas(30 * time.Second)
	var res protocol.SymbolInformationSlice
	if err := e.Call(protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: "datab"}, &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res {
		got[s.Name] = fmt.Sprintf("%s:%d", filepath.Base(s.Location.URI.FsPath()), s.Location.Range.Start.Line)
	}
	if got["Database"] != "crd.yaml:6" || got["Database/orders"] != "db.yaml:1" {
		t.Errorf("workspace symbols = %v, want the CRD's kind and the object in examples/", got)
	}
}
