package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestDiagnoseIncremental: after an edit, only the documents whose text
// changed are checked again, and the findings are those of a full check.
func TestDiagnoseIncremental(t *testing.T) {
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 300 {
		port := "80"
		if i%2 == 1 {
			port = "http" // a string where an integer belongs
		}
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s%d\nspec:\n  ports:\n    - port: %s\n---\n", i, port)
	}
	env := Env{Workspace: Workspace{Schemas: store, CrossplaneMajor: 2}, Options: Options{UnknownKind: severity.Warning}}
	text := b.String()
	f1 := document.Parse("file:///w/many.yaml", 1, []byte(text))
	d1, c1 := DiagnoseIncremental(context.Background(), f1, env, nil)
	if c1.Checked() != len(f1.Docs) {
		t.Errorf("first version: %d documents checked, want all %d", c1.Checked(), len(f1.Docs))
	}
	edits := []string{
		strings.Replace(text, "name: s0\n", "name: s0x\n", 1),                  // a keystroke in the first document
		strings.Replace(text, "name: s0\n", "name: s0\n  labels: {a: b}\n", 1), // a new line: the rest moves down
		strings.Replace(text, "port: 80\n", "port: eighty\n", 1),
	}
	for i, edited := range edits {
		f2 := document.ParseWithin("file:///w/many.yaml", int32(i+2), []byte(edited), document.Limits{}, f1)
		got, c2 := DiagnoseIncremental(context.Background(), f2, env, c1)
		want := Diagnose(context.Background(), f2, env)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("edit %d: incremental findings differ:\n%v\nwant\n%v", i, got, want)
		}
		if c2.Checked() != 1 {
			t.Errorf("edit %d: %d documents checked, want 1", i, c2.Checked())
		}
	}
	if len(d1) != 150 {
		t.Errorf("%d findings in the first version, want one per string port (150)", len(d1))
	}
	// Another schema snapshot: everything is checked again.
	if _, c := DiagnoseIncremental(context.Background(), f1, Env{Workspace: Workspace{Schemas: store.WithFile(workspace.Source("/x.yaml"), "/x.yaml", []byte("a: 1")), CrossplaneMajor: 2}}, c1); c.Checked() != len(f1.Docs) {
		t.Errorf("new snapshot: %d checked", c.Checked())
	}
}
