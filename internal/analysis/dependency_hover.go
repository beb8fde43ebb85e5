// This file defines hover on a package root file's dependency
// (crossplane.yaml, upbound.yaml, crossplane-project.yaml): what the
// dependency resolved to, or why not.

package analysis

import (
	"fmt"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// A Dependency is one dependency of a package root file, with the
// outcomes of resolving it, as DependencyHover reads them (the loader
// turns package metadata and results into these: loader.Dependencies).
type Dependency struct {
	Kind       string // Configuration, Provider, Function
	Package    string // the package reference as written
	Constraint string // the version constraint ("" none)
	// Span is the dependency's entry in the file.
	Span document.Span
	// Outcomes are the results of resolving this dependency itself (not
	// those of the packages it depends on): none until it was resolved.
	Outcomes []DependencyOutcome
}

// A DependencyOutcome is one result of resolving a dependency.
type DependencyOutcome struct {
	// Resolved is the package it resolved to (nil: none).
	Resolved *ResolvedPackage
	// Problem is why it did not resolve, or a warning about what it
	// resolved to ("": none).
	Problem string
	// NotCached: the problem is only that the package cache does not
	// hold it (not news before the registries were asked).
	NotCached bool
}

// A ResolvedPackage is what a dependency resolved to.
type ResolvedPackage struct {
	Version, Digest                string
	CRDs, XRDs, MRDs, Compositions int
	FromCache                      bool // served from the package cache, not the registry
}

// DependencyHover describes the dependency whose entry holds offset: the
// version it resolved to, its digest, what it ships and where it came
// from, or why it did not resolve. refreshed says whether the registries
// were asked (before, a dependency the cache lacks is "not resolved yet").
// nil when offset is on no dependency.
func DependencyHover(deps []Dependency, refreshed bool, offset int) *HoverResult {
	for _, d := range deps {
		if offset < d.Span.Start || offset >= d.Span.End {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "**%s** `%s`\n\n", d.Kind, d.Package)
		if d.Constraint != "" {
			fmt.Fprintf(&b, "Constraint `%s`", d.Constraint)
		}
		for _, o := range d.Outcomes {
			if p := o.Resolved; p != nil {
				from := "the registry"
				if p.FromCache {
					from = "the cache"
				}
				fmt.Fprintf(&b, " → **%s**\n\nDigest `%s`\n\n%d CRDs, %d XRDs, %d MRDs, %d Compositions (from %s)",
					p.Version, p.Digest, p.CRDs, p.XRDs, p.MRDs, p.Compositions, from)
			}
			if o.Problem != "" && !(o.NotCached && !refreshed) {
				fmt.Fprintf(&b, "\n\n%s", o.Problem)
			} else if o.Resolved == nil {
				b.WriteString("\n\nnot resolved yet")
			}
		}
		if len(d.Outcomes) == 0 {
			b.WriteString("\n\nnot resolved yet")
		}
		return &HoverResult{Span: d.Span, Markdown: b.String()}
	}
	return nil
}
