package loader

import (
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// One way to turn package results into store inputs, for every front
// end: with the server's PackageIndex, a package version is indexed once
// across loads and refreshes, a new digest is indexed again, and a
// package no longer depended on is forgotten; the inputs come in the
// order of the package root files, each package once.
func TestPackageFilesIndex(t *testing.T) {
	pkg := func(ref, version, digest string) *packages.Package {
		return &packages.Package{Ref: ref, Version: version, Digest: digest, Path: "xpkg://" + ref + "/package.yaml", YAML: []byte(strings.ReplaceAll(loadCRDs, "load.example.org", strings.ReplaceAll(ref, "/", ".")))}
	}
	a1, b1 := pkg("example.org/a", "v1", "sha256:a1"), pkg("example.org/b", "v1", "sha256:b1")
	var indexed []string
	ix := NewPackageIndex(func(p string) { indexed = append(indexed, p) })
	results := map[string][]packages.Result{
		"/w/z/crossplane.yaml": {{Package: b1}, {Package: a1}},
		"/w/a/crossplane.yaml": {{Package: a1}, {Err: &packages.Error{Kind: packages.KindNotCached, Msg: "not in the cache"}}},
	}
	files := PackageFiles(results, ix)
	if got := paths(files); strings.Join(got, " ") != a1.Path+" "+b1.Path {
		t.Fatalf("inputs %v, want a then b (by crossplane.yaml path), each once", got)
	}
	for _, f := range files {
		if f.Indexed == nil || f.Source.Kind != schemas.SourcePackage {
			t.Errorf("%s: indexed %v, source %v", f.Path, f.Indexed != nil, f.Source)
		}
	}
	if len(indexed) != 2 {
		t.Fatalf("indexed %v, want each package once", indexed)
	}
	again := PackageFiles(results, ix)
	if len(indexed) != 2 || again[0].Indexed != files[0].Indexed {
		t.Errorf("the same versions were indexed again: %v", indexed)
	}
	a2 := pkg("example.org/a", "v1", "sha256:a2") // the tag moved
	PackageFiles(map[string][]packages.Result{"/w/a/crossplane.yaml": {{Package: a2}}}, ix)
	if len(indexed) != 3 || indexed[2] != a2.Path {
		t.Errorf("a new digest of a was not indexed again: %v", indexed)
	}
	PackageFiles(map[string][]packages.Result{"/w/a/crossplane.yaml": {{Package: a2}}, "/w/z/crossplane.yaml": {{Package: b1}}}, ix)
	if len(indexed) != 4 || indexed[3] != b1.Path {
		t.Errorf("b, dropped by the previous results, was not forgotten: %v", indexed)
	}
	if plain := PackageFiles(results, nil); plain[0].Indexed != nil {
		t.Error("without an index, the stores index the packages: PackageFiles must not")
	}
}

func paths(files []schemas.FileInput) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// Dependencies pairs each dependency of a crossplane.yaml with its own
// outcomes (not those of the packages it pulls in, nor of an entry of
// the same name with another constraint), for analysis.DependencyHover.
func TestDependencies(t *testing.T) {
	meta := []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\nspec:\n  dependsOn:\n  - provider: xpkg.upbound.io/upbound/provider-aws-s3\n    version: \">=v1.0.0\"\n  - function: xpkg.crossplane.io/crossplane-contrib/function-kcl\n    version: v0.1.0\n")
	m := packages.ParseMeta("/w/crossplane.yaml", meta)
	if len(m.Deps) != 2 {
		t.Fatalf("deps %+v", m.Deps)
	}
	s3, kcl := m.Deps[0], m.Deps[1]
	other := s3
	other.Constraint = "v0.9.0"
	notCached := &packages.Error{Kind: packages.KindNotCached, Msg: "not in the cache"}
	results := []packages.Result{
		{Dep: s3, Package: &packages.Package{Version: "v1.2.0", Digest: "sha256:1", FromCache: true, Objects: []packages.Object{{Kind: "CustomResourceDefinition"}, {Kind: "Composition"}}}},
		{Dep: s3, Via: []string{"example.org/c:v1"}, Err: notCached}, // a dependency of a dependency
		{Dep: other, Err: notCached},
		{Dep: kcl, Err: notCached},
	}
	deps := Dependencies(m, results)
	if len(deps) != 2 {
		t.Fatalf("got %d dependencies, want 2", len(deps))
	}
	if d := deps[0]; d.Kind != s3.Kind || d.Package != s3.Package || d.Constraint != ">=v1.0.0" || d.Span.Start != s3.Span.Start || d.Span.End != s3.Span.End ||
		len(d.Outcomes) != 1 || d.Outcomes[0].Resolved == nil || d.Outcomes[0].Problem != "" {
		t.Errorf("provider-aws-s3: %+v", d)
	} else if p := d.Outcomes[0].Resolved; p.Version != "v1.2.0" || p.Digest != "sha256:1" || !p.FromCache || p.CRDs != 1 || p.Compositions != 1 || p.XRDs != 0 || p.MRDs != 0 {
		t.Errorf("provider-aws-s3 resolved to %+v", p)
	}
	if d := deps[1]; len(d.Outcomes) != 1 || d.Outcomes[0].Resolved != nil || !d.Outcomes[0].NotCached || d.Outcomes[0].Problem != notCached.Error() {
		t.Errorf("function-kcl: %+v", d)
	}
}
