package analysis

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

func TestDependencyHover(t *testing.T) {
	aws := &ResolvedPackage{Version: "v1.2.3", Digest: "sha256:abc", CRDs: 3, XRDs: 1, MRDs: 2, Compositions: 4, FromCache: true}
	fresh := &ResolvedPackage{Version: "v0.5.0", Digest: "sha256:def", CRDs: 0, XRDs: 0, MRDs: 0, Compositions: 0}
	dep := func(outcomes ...DependencyOutcome) []Dependency {
		return []Dependency{
			{Kind: "Function", Package: "xpkg.crossplane.io/crossplane-contrib/function-kcl", Span: document.Span{Start: 0, End: 10}},
			{Kind: "Provider", Package: "xpkg.upbound.io/upbound/provider-aws-s3", Constraint: ">=v1.0.0", Span: document.Span{Start: 20, End: 40}, Outcomes: outcomes},
		}
	}
	const head = "**Provider** `xpkg.upbound.io/upbound/provider-aws-s3`\n\nConstraint `>=v1.0.0`"
	tests := []struct {
		name      string
		deps      []Dependency
		refreshed bool
		offset    int
		want      string // "" no hover
	}{
		{name: "between entries", deps: dep(), offset: 15},
		{name: "at the end of an entry (exclusive)", deps: dep(), offset: 40},
		{name: "no outcome yet", deps: dep(), offset: 20, want: head + "\n\nnot resolved yet"},
		{name: "resolved from the cache", deps: dep(DependencyOutcome{Resolved: aws}), offset: 39,
			want: head + " → **v1.2.3**\n\nDigest `sha256:abc`\n\n3 CRDs, 1 XRDs, 2 MRDs, 4 Compositions (from the cache)"},
		{name: "resolved from the registry with a warning", deps: dep(DependencyOutcome{Resolved: fresh, Problem: "newer tag unreadable; cached kept"}), offset: 25, refreshed: true,
			want: head + " → **v0.5.0**\n\nDigest `sha256:def`\n\n0 CRDs, 0 XRDs, 0 MRDs, 0 Compositions (from the registry)\n\nnewer tag unreadable; cached kept"},
		{name: "not cached, before the registries were asked", deps: dep(DependencyOutcome{Problem: "not in the package cache", NotCached: true}), offset: 30,
			want: head + "\n\nnot resolved yet"},
		{name: "not cached, after the registries were asked", deps: dep(DependencyOutcome{Problem: "not in the package cache", NotCached: true}), offset: 30, refreshed: true,
			want: head + "\n\nnot in the package cache"},
		{name: "failed", deps: dep(DependencyOutcome{Problem: "no version matches >=v1.0.0"}), offset: 30,
			want: head + "\n\nno version matches >=v1.0.0"},
		{name: "no constraint", deps: dep(), offset: 0,
			want: "**Function** `xpkg.crossplane.io/crossplane-contrib/function-kcl`\n\n\n\nnot resolved yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := DependencyHover(tc.deps, tc.refreshed, tc.offset)
			switch {
			case tc.want == "" && h != nil:
				t.Fatalf("hover %q, want none", h.Markdown)
			case tc.want == "":
			case h == nil:
				t.Fatalf("no hover, want %q", tc.want)
			case h.Markdown != tc.want:
				t.Errorf("hover\n%q\nwant\n%q", h.Markdown, tc.want)
			default:
				var want document.Span
				for _, d := range tc.deps {
					if tc.offset >= d.Span.Start && tc.offset < d.Span.End {
						want = d.Span
					}
				}
				if h.Span != want {
					t.Errorf("span %v, want the entry's %v", h.Span, want)
				}
			}
		})
	}
}
