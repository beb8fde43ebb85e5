package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestGoTemplatingCorpus: on every function-go-templating Composition of
// the corpus (the function's own examples, and real configurations), the
// inline templates give no finding, since they all run upstream; with a
// call to an undefined function injected into each template's first
// action, the file gets exactly one template-syntax error, at the
// injected name's first byte.
func TestGoTemplatingCorpus(t *testing.T) {
	dir := corpusdir.Dir(t)
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}
	var files []string
	for _, root := range []string{filepath.Join(dir, "workspaces", "function-go-templating"), filepath.Join(dir, "compositions")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "gotemplating.fn.crossplane.io/") {
					files = append(files, p)
				}
			}
			return err
		})
	}
	injected := 0
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		text, _ := os.ReadFile(p)
		f := document.Parse(p, 0, text)
		for _, dg := range Diagnose(context.Background(), f, env) {
			if strings.HasPrefix(dg.Code, "template-") {
				l, c := f.Mapper.LineCol(dg.Span.Start)
				t.Errorf("%s:%d:%d: a finding on a template that runs upstream: %s", rel, l, c, dg.Message)
			}
		}
		for _, d := range f.Docs {
			v, err := d.Object()
			m, _ := v.(map[string]any)
			if err != nil || m["kind"] != "Composition" {
				continue
			}
			for _, ts := range templateSteps(d, m) {
				if len(ts.parts) == 0 {
					continue
				}
				_, n, ok := d.Lookup(ts.parts[0])
				if !ok {
					continue
				}
				sp := f.NodeSpan(n)
				open := strings.Index(string(text[sp.Start:sp.End]), ts.tpl.Left+" ")
				if open < 0 {
					continue
				}
				at := sp.Start + open + len(ts.tpl.Left) + 1
				bad := string(text[:at]) + "nosuchfn " + string(text[at:])
				bf := document.Parse(p, 0, []byte(bad))
				var got []Diagnostic
				for _, dg := range Diagnose(context.Background(), bf, env) {
					if dg.Code == "template-syntax" {
						got = append(got, dg)
					}
				}
				injected++
				if len(got) != 1 || got[0].Span.Start != at || got[0].Span.End != at+len("nosuchfn") ||
					got[0].Message != `function-go-templating cannot parse the template: function "nosuchfn" not defined` {
					l, c := bf.Mapper.LineCol(at)
					t.Errorf("%s: injected at %d:%d, got %+v", rel, l, c, got)
				}
			}
		}
	}
	if injected < 20 {
		t.Errorf("only %d templates had an error injected", injected)
	}
	t.Logf("%d files, %d templates with an injected error", len(files), injected)
}
