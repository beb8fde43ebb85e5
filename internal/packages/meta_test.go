package packages

import (
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

const metaBoth = `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: platform  # the name
spec:
  crossplane:
    version: ">=v1.14.1-0"
  dependsOn:
    - provider: xpkg.crossplane.io/crossplane-contrib/provider-kubernetes
      version: ">=v1.2.0 <v2.0.0"
    - configuration: upbound/configuration-aws-network
      version: 'v0.23.0'
    - function: xpkg.upbound.io/crossplane-contrib/function-patch-and-transform
      version: ~0.8
    - apiVersion: pkg.crossplane.io/v1
      kind: Provider
      package: xpkg.crossplane.io/crossplane-contrib/provider-helm
      version: "^1"
    - {provider: "xpkg.crossplane.io/x/provider-é", version: v1}
    - function: xpkg.crossplane.io/crossplane-contrib/function-auto-ready@sha256:0000000000000000000000000000000000000000000000000000000000000001
`

func TestParseMetaForms(t *testing.T) {
	m := ParseMeta("crossplane.yaml", []byte(metaBoth))
	if m.APIVersion != "meta.pkg.crossplane.io/v1" || m.Kind != "Configuration" || m.Name != "platform" || m.Crossplane != ">=v1.14.1-0" {
		t.Errorf("header = %q %q %q %q", m.APIVersion, m.Kind, m.Name, m.Crossplane)
	}
	// provider-é is not a valid repository name: a problem, not a dependency.
	// The deprecated provider:/configuration:/function: forms get hints.
	var problems []Problem
	hints := map[string]int{}
	for _, p := range m.Problems {
		if p.Severity == severity.Hint {
			hints[metaBoth[p.Offset:p.End]]++
			continue
		}
		problems = append(problems, p)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "invalid package name") {
		t.Fatalf("problems = %+v", m.Problems)
	}
	if got := metaBoth[problems[0].Offset:problems[0].End]; got != `"xpkg.crossplane.io/x/provider-é"` {
		t.Errorf("problem span = %q", got)
	}
	if hints["provider"] != 2 || hints["configuration"] != 1 || hints["function"] != 2 || len(hints) != 3 {
		t.Errorf("hints on the deprecated forms = %v", hints)
	}
	type want struct{ pkg, name, constraint, kind, apiVersion, pkgText, verText, spanStart, spanEnd string }
	wants := []want{
		{"xpkg.crossplane.io/crossplane-contrib/provider-kubernetes", "xpkg.crossplane.io/crossplane-contrib/provider-kubernetes", ">=v1.2.0 <v2.0.0", "Provider", "",
			"xpkg.crossplane.io/crossplane-contrib/provider-kubernetes", `">=v1.2.0 <v2.0.0"`, "provider:", `<v2.0.0"`},
		{"xpkg.crossplane.io/upbound/configuration-aws-network", "upbound/configuration-aws-network", "v0.23.0", "Configuration", "",
			"upbound/configuration-aws-network", `'v0.23.0'`, "configuration:", `'v0.23.0'`},
		{"xpkg.upbound.io/crossplane-contrib/function-patch-and-transform", "xpkg.upbound.io/crossplane-contrib/function-patch-and-transform", "~0.8", "Function", "",
			"xpkg.upbound.io/crossplane-contrib/function-patch-and-transform", "~0.8", "function:", "~0.8"},
		{"xpkg.crossplane.io/crossplane-contrib/provider-helm", "xpkg.crossplane.io/crossplane-contrib/provider-helm", "^1", "Provider", "pkg.crossplane.io/v1",
			"xpkg.crossplane.io/crossplane-contrib/provider-helm", `"^1"`, "apiVersion:", `"^1"`},
		{"xpkg.crossplane.io/crossplane-contrib/function-auto-ready", "xpkg.crossplane.io/crossplane-contrib/function-auto-ready", "sha256:0000000000000000000000000000000000000000000000000000000000000001", "Function", "",
			"xpkg.crossplane.io/crossplane-contrib/function-auto-ready@sha256:0000000000000000000000000000000000000000000000000000000000000001", "", "function:", "01"},
	}
	if len(m.Deps) != len(wants) {
		t.Fatalf("got %d deps, want %d: %+v", len(m.Deps), len(wants), m.Deps)
	}
	for i, w := range wants {
		d := m.Deps[i]
		if d.Package != w.pkg || d.Name != w.name || d.Constraint != w.constraint || d.Kind != w.kind || d.APIVersion != w.apiVersion || d.File != "crossplane.yaml" {
			t.Errorf("dep %d = %+v", i, d)
		}
		if got := metaBoth[d.PackageSpan.Start:d.PackageSpan.End]; got != w.pkgText {
			t.Errorf("dep %d package span = %q, want %q", i, got, w.pkgText)
		}
		if got := metaBoth[d.VersionSpan.Start:d.VersionSpan.End]; got != w.verText {
			t.Errorf("dep %d version span = %q, want %q", i, got, w.verText)
		}
		entry := metaBoth[d.Span.Start:d.Span.End]
		if !strings.HasPrefix(entry, w.spanStart) || !strings.HasSuffix(entry, w.spanEnd) {
			t.Errorf("dep %d entry span = %q", i, entry)
		}
	}
	// Line and byte column of the second dependency's version value.
	if l, c := m.Pos(m.Deps[1].VersionSpan.Start); l != 12 || c != 16 {
		t.Errorf("Pos = %d:%d, want 12:16", l, c)
	}
}

func TestParseMetaProblems(t *testing.T) {
	cases := []struct {
		name, src, want, at string
		sev                 severity.Severity
	}{
		{"deprecated form", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - function: a.io/b/c\n      version: v1\n", "function: is deprecated in Crossplane's package metadata (still supported): write apiVersion: pkg.crossplane.io/v1, kind: Function and package: instead", "function", severity.Hint},
		{"no form", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - version: v1\n", "needs provider:", "version: v1", severity.Error},
		{"package without kind", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - package: a.io/b/c\n      version: v1\n", "needs apiVersion", "a.io/b/c", severity.Error},
		{"two forms", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - provider: a.io/b/c\n      function: a.io/b/d\n      version: v1\n", "only one of provider, function", "provider: a.io/b/c\n      function: a.io/b/d\n      version: v1", severity.Error},
		{"tag in name", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - provider: a.io/b/c:v1.2.0\n      version: \">=v1\"\n", "is ignored", "a.io/b/c:v1.2.0", severity.Warning},
		{"not meta", "apiVersion: v1\nkind: ConfigMap\n", "no meta.pkg.crossplane.io", "", severity.Error},
		{"syntax", "apiVersion: meta.pkg.crossplane.io/v1\nkind: [\n", "YAML syntax error", "", severity.Error},
		{"bad kind", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Widget\n", "unknown package kind", "Widget", severity.Error},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ParseMeta("crossplane.yaml", []byte(tc.src))
			var problems []Problem
			for _, p := range m.Problems {
				if p.Severity != severity.Hint || tc.sev == severity.Hint {
					problems = append(problems, p) // hints on the deprecated forms aside
				}
			}
			if len(problems) != 1 {
				t.Fatalf("problems = %+v", m.Problems)
			}
			p := problems[0]
			if !strings.Contains(p.Message, tc.want) || p.Severity != tc.sev || tc.src[p.Offset:p.End] != tc.at {
				t.Errorf("problem = %+v (%q), want %q at %q", p, tc.src[p.Offset:p.End], tc.want, tc.at)
			}
		})
	}
	// Crossplane reads every metadata version it has had: none is
	// deprecated.
	for _, v := range []string{"v1alpha1", "v1beta1", "v1"} {
		if m := ParseMeta("c.yaml", []byte("apiVersion: meta.pkg.crossplane.io/"+v+"\nkind: Provider\nmetadata:\n  name: p\n")); len(m.Problems) != 0 {
			t.Errorf("%s: problems = %+v", v, m.Problems)
		}
	}
	// A tag in the name without version: becomes the constraint.
	m := ParseMeta("c.yaml", []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn:\n    - provider: a.io/b/c:v1.2.0\n"))
	if len(m.Deps) != 1 || m.Deps[0].Constraint != "v1.2.0" || m.Deps[0].Package != "a.io/b/c" {
		t.Errorf("deps = %+v", m.Deps)
	}
}

func TestQualify(t *testing.T) {
	for in, want := range map[string]string{
		"crossplane-contrib/provider-x":      "reg.example/crossplane-contrib/provider-x",
		"provider-x":                         "reg.example/provider-x",
		"xpkg.upbound.io/upbound/provider-x": "xpkg.upbound.io/upbound/provider-x",
		"localhost/a/b":                      "localhost/a/b",
		"127.0.0.1:5000/a":                   "127.0.0.1:5000/a",
	} {
		if got := Qualify(in, "reg.example"); got != want {
			t.Errorf("Qualify(%q) = %q, want %q", in, got, want)
		}
	}
}
