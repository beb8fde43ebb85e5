// This file defines DiagnoseIncremental: Diagnose, reusing the findings of
// documents whose text and environment did not change.

package analysis

import (
	"context"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// DiagnoseCache holds what DiagnoseIncremental found in one version of a
// file, by document text, so that the next version checks only the
// documents that changed. It is immutable once returned.
type DiagnoseCache struct {
	env     envKey
	docs    map[string][]Diagnostic // spans relative to the document's start
	checked int
}

// Checked is how many documents the version this cache describes had to
// check (the others' findings were reused).
func (c *DiagnoseCache) Checked() int { return c.checked }

// envKey is what a document's diagnostics depend on besides its text.
type envKey struct {
	schemas         *schemas.Store
	unknownKind     severity.Severity
	clientKinds     string
	crossplaneMajor int
	compositionMode composition.Mode
	patchOf         string
	expressions     bool
	unpulled        int
	uptest          bool
	dependsOn       string
	uri             string
}

// DiagnoseIncremental is Diagnose, reusing prev's findings for documents
// whose text is unchanged when the environment is the same (the same
// schema snapshot and settings). Compositions are always checked again:
// they are rendered with example files the snapshot does not cover (and
// with real functions when env.Options.Pipeline runs them). It
// returns the findings and the cache for the next version (prev when ctx
// was cancelled).
func DiagnoseIncremental(ctx context.Context, f *document.File, env Env, prev *DiagnoseCache) ([]Diagnostic, *DiagnoseCache) {
	if env.Role.Skip != "" {
		return nil, &DiagnoseCache{}
	}
	key := envKey{env.Workspace.Schemas, env.Options.UnknownKind, strings.Join(env.Options.ClientKinds, "\x00"), env.Workspace.CrossplaneMajor, env.Options.CompositionMode, env.Role.PatchOf, env.Role.Expressions, env.Workspace.Unpulled, env.Options.UptestPlaceholders, env.Workspace.DependsOn, f.URI}
	next := &DiagnoseCache{env: key, docs: map[string][]Diagnostic{}}
	if prev != nil && prev.env != key {
		prev = nil
	}
	var out []Diagnostic
	for _, d := range f.Docs {
		if ctx.Err() != nil {
			return nil, prev
		}
		text := string(f.Text[d.Span.Start:d.Span.End])
		if prev != nil {
			if rel, ok := prev.docs[text]; ok {
				next.docs[text] = rel
				for _, dg := range rel {
					dg.Span = document.Span{Start: dg.Span.Start + d.Span.Start, End: dg.Span.End + d.Span.Start}
					out = append(out, dg)
				}
				continue
			}
		}
		found := diagnoseDoc(ctx, d, env)
		if ctx.Err() != nil {
			return nil, prev
		}
		next.checked++
		out = append(out, found...)
		if cacheable(d, found) {
			rel := make([]Diagnostic, len(found))
			for i, dg := range found {
				dg.Span = document.Span{Start: dg.Span.Start - d.Span.Start, End: dg.Span.End - d.Span.Start}
				rel[i] = dg
			}
			next.docs[text] = rel
		}
	}
	sortDiagnostics(out)
	return out, next
}

// cacheable: the findings are the document's own (inside its text) and it
// is not a Composition.
func cacheable(d *document.Doc, found []Diagnostic) bool {
	for _, dg := range found {
		if dg.Span.Start < d.Span.Start || dg.Span.End > d.Span.End {
			return false
		}
	}
	if d.Root == nil {
		return true
	}
	_, kind, ok := d.Lookup(fieldpath.Path{fieldpath.Field("kind")})
	return !ok || kind.Value != "Composition"
}

func sortDiagnostics(out []Diagnostic) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Span.Start != out[j].Span.Start {
			return out[i].Span.Start < out[j].Span.Start
		}
		return out[i].Message < out[j].Message
	})
}
