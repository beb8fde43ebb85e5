package packages

import (
	"strings"
	"testing"
)

func TestParseProjectFiles(t *testing.T) {
	up := "apiVersion: meta.dev.upbound.io/v2alpha1\nkind: Project\nmetadata:\n  name: p\nspec:\n  crossplane:\n    version: \">=v2.0.0\"\n  dependsOn:\n  - provider: xpkg.upbound.io/upbound/provider-aws-s3\n    version: v1.16.0\n"
	m := ParseMeta("/w/upbound.yaml", []byte(up))
	if len(m.Problems) != 0 || len(m.Deps) != 1 || m.Deps[0].Package != "xpkg.upbound.io/upbound/provider-aws-s3" || m.Deps[0].Kind != "Provider" || m.Crossplane != ">=v2.0.0" {
		t.Errorf("upbound.yaml: %+v", m)
	}
	if got := up[m.Deps[0].PackageSpan.Start:m.Deps[0].PackageSpan.End]; got != "xpkg.upbound.io/upbound/provider-aws-s3" {
		t.Errorf("package span covers %q", got)
	}

	cp := "apiVersion: dev.crossplane.io/v1alpha1\nkind: Project\nmetadata:\n  name: p\nspec:\n  dependencies:\n  - type: git\n    git:\n      repository: https://example.org/r\n  - type: xpkg\n    xpkg:\n      apiVersion: pkg.crossplane.io/v1\n      kind: Function\n      package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready\n      version: \">=v0.1.0\"\n  - type: xpkg\n"
	m = ParseMeta("/w/crossplane-project.yaml", []byte(cp))
	if len(m.Deps) != 1 || m.Deps[0].Kind != "Function" || m.Deps[0].Constraint != ">=v0.1.0" || m.Deps[0].APIVersion != "pkg.crossplane.io/v1" {
		t.Errorf("crossplane-project.yaml deps: %+v", m.Deps)
	}
	if len(m.Problems) != 1 || !strings.Contains(m.Problems[0].Message, "needs xpkg:") || cp[m.Problems[0].Offset:m.Problems[0].Offset+10] != "type: xpkg" {
		t.Errorf("crossplane-project.yaml problems: %+v", m.Problems)
	}

	// A project file of the other format, or none at all, is said so.
	m = ParseMeta("/w/crossplane-project.yaml", []byte(up))
	if len(m.Problems) != 1 || m.Problems[0].Message != "no dev.crossplane.io Project in crossplane-project.yaml" {
		t.Errorf("wrong format: %+v", m.Problems)
	}
	if DependsOnField("/w/crossplane-project.yaml") != "spec.dependencies in crossplane-project.yaml" || DependsOnField("/w/upbound.yaml") != "dependsOn in upbound.yaml" || DependsOnField("") != "dependsOn in crossplane.yaml" {
		t.Error("DependsOnField")
	}
}

func TestEmbeddedFunctionRef(t *testing.T) {
	for _, c := range []struct{ repo, fn, want string }{
		{"xpkg.crossplane.io/acme/platform", "compose", "acme-platformcompose"},
		{"xpkg.upbound.io/acme/platform-api", "compose-resources", "acme-platform-apicompose-resources"},
		{"xpkg.upbound.io/acme/platform", "", "acme-platform"},
	} {
		if got := EmbeddedFunctionRef(c.repo, c.fn); got != c.want {
			t.Errorf("EmbeddedFunctionRef(%q, %q) = %q, want %q", c.repo, c.fn, got, c.want)
		}
	}
	m := ParseMeta("/w/crossplane-project.yaml", []byte("apiVersion: dev.crossplane.io/v1alpha1\nkind: Project\nspec:\n  repository: r.example/a/b\n  functions:\n  - source: Tarball\n    tarball:\n      name: t\n      pathPrefix: x\n  - source: Directory\n    directory:\n      name: d\n"))
	if m.Repository != "r.example/a/b" || strings.Join(m.Functions, ",") != "t,d" || m.FunctionsPath != "functions" {
		t.Errorf("project: %q %v %q", m.Repository, m.Functions, m.FunctionsPath)
	}
}
