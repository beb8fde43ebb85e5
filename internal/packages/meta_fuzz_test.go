package packages

import (
	"reflect"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// FuzzParseMeta feeds ParseMeta arbitrary crossplane.yaml content. It must
// never panic, and what it returns must be positioned inside the input:
// editors and `crd-lsp check` put these spans on the text. The seeds (and
// testdata/fuzz/FuzzParseMeta) run in every `go test`; explore with
//
//	go test ./internal/packages -run '^$' -fuzz FuzzParseMeta -fuzztime 60s
func FuzzParseMeta(f *testing.F) {
	f.Add([]byte(metaBoth))
	f.Add([]byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n"))
	f.Add([]byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n  - {}\n"))
	f.Add([]byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn: [{package: a/b, version: ''}]"))
	f.Add([]byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - provider: &p x/y\n      version: *p\n"))
	f.Add([]byte("\ufeffapiVersion: meta.pkg.crossplane.io/v1\nkind: Function\n---\n: : :\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := ParseMeta("crossplane.yaml", data)
		in := func(what string, s Span) {
			if s.Start < 0 || s.End < 0 || s.Start > len(data) || s.End > len(data) {
				t.Fatalf("%s span %v outside the %d-byte input", what, s, len(data))
			}
		}
		for _, p := range m.Problems {
			in("problem "+p.Message, Span{p.Offset, p.End})
			if p.Message == "" || (p.Severity != severity.Error && p.Severity != severity.Warning && p.Severity != severity.Info && p.Severity != severity.Hint) {
				t.Fatalf("problem %+v", p)
			}
			if line, col := m.Pos(p.Offset); line < 1 || col < 1 {
				t.Fatalf("Pos(%d) = %d:%d", p.Offset, line, col)
			}
		}
		for _, d := range m.Deps {
			in("dependency", d.Span)
			in("package", d.PackageSpan)
			in("version", d.VersionSpan)
			if d.Package == "" || d.Name == "" {
				t.Fatalf("dependency without a package: %+v", d)
			}
		}
		// Two parses read the same (their parsed texts aside: those hold
		// nodes by pointer).
		again := ParseMeta("crossplane.yaml", data)
		first := *m
		first.file, again.file = nil, nil
		if !reflect.DeepEqual(&first, again) {
			t.Fatalf("two parses differ:\n%+v\n%+v", &first, again)
		}
	})
}
