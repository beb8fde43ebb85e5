package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
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
