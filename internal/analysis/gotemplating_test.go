package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
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

// TestTemplateReadsCorpus: on the corpus's function-go-templating
// workspaces, with each workspace's XRDs and CRDs, what the templates
// read is checked against them: the one finding is a real mistake
// (harvester-vm's template defaults spec.vm.cpu.model, which its XRD
// does not have, so the API server prunes it and the default always
// applies).
func TestTemplateReadsCorpus(t *testing.T) {
	dir := corpusdir.Dir(t)
	var got []string
	checked := 0 // reads of a composite whose XRD is known
	for _, ws := range []string{"workspaces/function-go-templating", "workspaces-3/stuttgart-things-configurations", "workspaces-3/function-examples",
		"workspaces-3/configuration-aws-dynamodb", "workspaces-3/provider-sql-examples", "compositions/upbound-configuration-aws-network/v0.23.0"} {
		root := filepath.Join(dir, ws)
		var defs []schemas.FileInput
		var comps []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := string(b)
			if strings.Contains(s, "kind: CompositeResourceDefinition") || strings.Contains(s, "kind: CustomResourceDefinition") {
				defs = append(defs, schemas.FileInput{Source: workspace.Source(p), Path: p, Content: b})
			}
			if strings.Contains(s, "gotemplating.fn.crossplane.io/") && strings.Contains(s, "kind: Composition\n") {
				comps = append(comps, p)
			}
			return nil
		})
		st, err := workspace.Builtins(2)
		if err != nil {
			t.Fatal(err)
		}
		env := Env{Workspace: Workspace{Schemas: st.WithFiles(defs), CrossplaneMajor: 2}}
		for _, p := range comps {
			text, _ := os.ReadFile(p)
			f := document.Parse(p, 0, text)
			for _, d := range f.Docs {
				v, _ := d.Object()
				if m, _ := v.(map[string]any); m["kind"] == "Composition" {
					steps := templateSteps(d, m)
					if rs := newRequestShape(d, m, steps, env); rs.xr != nil {
						for _, ts := range steps {
							for _, r := range gotemplating.Reads(ts.tpl) {
								if k := gotemplating.Keys(r.Path); len(k) > 3 && k[0] == "observed" && k[1] == "composite" {
									checked++
								}
							}
						}
					}
				}
			}
			for _, dg := range Diagnose(context.Background(), f, env) {
				if dg.Code == codeTemplateRead || dg.Code == codeTemplateNoValue {
					rel, _ := filepath.Rel(dir, p)
					l, c := f.Mapper.LineCol(dg.Span.Start)
					got = append(got, fmt.Sprintf("%s:%d:%d %s", rel, l, c, dg.Message))
				}
			}
		}
	}
	t.Logf("%d reads of a composite with a known XRD", checked)
	if checked < 100 {
		t.Errorf("only %d reads of a composite with a known XRD checked", checked)
	}
	want := []string{`workspaces-3/stuttgart-things-configurations/machinery/harvester-vm/apis/composition.yaml:399:55 the composite resource (HarvesterVM) has no field spec.vm.cpu.model (did you mean "cores"?): default always gives its default`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}
