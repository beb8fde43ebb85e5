package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// requestFiles are the files of the request handlers (hover, completion,
// definition, references, symbols, code actions and lenses).
var requestFiles = []string{"hover.go", "completion.go", "definition.go", "references.go", "document_symbol.go", "workspace_symbol.go", "code_action.go", "code_lens.go"}

// sessionState are the server's fields that hold session state: a
// snapshot carries what a request may read of them.
var sessionState = map[string]bool{"mu": true, "enc": true, "caps": true, "folders": true, "settings": true, "open": true, "world": true, "seq": true, "pkgs": true, "fileProblems": true, "scanGen": true, "reloads": true, "watched": true, "cat": true, "symbols": true}

// The snapshot is the only door to session state: no request handler
// reads a session field (or takes the session's lock) itself; it reads
// its snapshot (sn). A new field a request needs goes into snapshot.
func TestHandlersReadOnlyTheSnapshot(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range requestFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || len(fn.Recv.List[0].Names) != 1 {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok || star.X.(*ast.Ident).Name != "server" {
				continue
			}
			recv := fn.Recv.List[0].Names[0].Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == recv && sessionState[sel.Sel.Name] {
					t.Errorf("%s: %s reads the session's %s: read it from the snapshot", fset.Position(sel.Pos()), fn.Name.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// The session has one writer: its World and settings are replaced only
// by commitLocked (writer.go), which every change goes through; no other
// file assigns them (nor takes their address, which would let it).
func TestOneWriter(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "writer.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		written := func(e ast.Expr) (string, bool) {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "world" && sel.Sel.Name != "settings") {
				return "", false
			}
			if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "s" || id.Name == "srv") {
				return sel.Sel.Name, true
			}
			return "", false
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if field, ok := written(lhs); ok {
						t.Errorf("%s assigns the session's %s: change it through commitLocked (writer.go)", fset.Position(n.Pos()), field)
					}
				}
			case *ast.UnaryExpr:
				if field, ok := written(n.X); ok && n.Op == token.AND {
					t.Errorf("%s takes the address of the session's %s: change it through commitLocked (writer.go)", fset.Position(n.Pos()), field)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked only %d files", checked)
	}
}
