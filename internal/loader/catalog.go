package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Schema catalogs (Config.Catalog): kinds that the workspace's files use
// and nothing else defines are looked up in the user's catalogs
// (catalogSource, one of sourcesOf's sources). Catalog schemas rank below
// every other source: a CRD of the kind, wherever it comes from, wins.

// MissingKinds are the kinds of the workspace's objects (and open
// buffers), and of what its Compositions compose (composedKinds), that no schema of the file's store defines (or only a
// catalog's, which may be due for a refresh), sorted: what a catalog may
// serve. Client-side configuration kinds and package metadata
// are not missing.
func (w *World) MissingKinds() []gvk.GVK {
	seen := map[gvk.GVK]bool{}
	var out []gvk.GVK
	paths := map[string]bool{}
	for p, f := range w.files {
		if f.headers != nil || f.composed != nil {
			paths[p] = true
		}
	}
	for p := range paths {
		st := w.StoreFor(p)
		f := w.files[p]
		kinds := slices.Clone(f.composed)
		for _, h := range f.headers {
			kinds = append(kinds, gvk.Parse(h.APIVersion, h.Kind))
		}
		for _, g := range kinds {
			if g.Kind == "" || g.Version == "" || seen[g] {
				continue
			}
			seen[g] = true
			if analysis.IsClientSide(g, w.cfg.Analysis.ClientKinds) || g.Group == packages.MetaGroup || g.Group == "apiextensions.k8s.io" {
				continue
			}
			if cands := st.Candidates(g); len(cands) > 0 && cands[0].Source.Kind != schemas.SourceCatalog {
				continue
			}
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// catalogInput is a catalog schema as a store input.
func catalogInput(s remote.CatalogSchema) schemas.FileInput {
	return schemas.FileInput{Source: schemas.Source{Kind: schemas.SourceCatalog, Name: s.URL}, Path: s.URL, Content: s.CRD}
}

// catalogSource is the schema catalogs (Config.Catalog) as a Source:
// ranked below every other source, asked only for kinds nothing else
// defines (MissingKinds).
type catalogSource struct {
	c     *remote.Catalog
	asked *Asked
}

func (catalogSource) Name() SourceName         { return SourceCatalog }
func (catalogSource) Rank() schemas.SourceKind { return schemas.SourceCatalog }
func (catalogSource) Refresh() Refresh         { return Refresh{On: KindsChanged, InCheck: true} }
func (s catalogSource) config() string         { return fmt.Sprintf("%p", s.c) }

func (catalogSource) Announce(*World) (string, string) { return "", "" }

// Cached is what the catalog cache holds for the missing kinds, with no
// network.
func (s catalogSource) Cached(w *World) Served {
	var sv Served
	for _, g := range w.MissingKinds() {
		if cs, ok := s.c.Cached(g.Group, g.Version, g.Kind); ok {
			sv.Inputs = append(sv.Inputs, catalogInput(cs))
		}
	}
	return sv
}

// Fetch looks the missing kinds up in the catalog (cache first, then the
// configured locations; the network only for http(s) locations), each
// kind once while the same Asked is given; what it serves adds to what
// the catalog served.
func (s catalogSource) Fetch(ctx context.Context, w *World) Fetched {
	f := Fetched{Source: SourceCatalog, add: true, config: s.config()}
	for _, g := range s.asked.fresh(w.MissingKinds()) {
		if ctx.Err() != nil {
			return Fetched{Source: SourceCatalog}
		}
		cs, err := s.c.Fetch(ctx, g.Group, g.Version, g.Kind)
		switch {
		case err == nil:
			f.Served.Inputs = append(f.Served.Inputs, catalogInput(cs))
		case !errors.Is(err, remote.ErrNotInCatalog):
			f.Problems = append(f.Problems, fmt.Sprintf("schema catalog lookup of %s %s failed: %v", g.APIVersion(), g.Kind, err))
		}
	}
	if n := len(f.Served.Inputs); n > 0 {
		f.apply = true
		f.Done = fmt.Sprintf("%d schemas", n)
		f.Summary = fmt.Sprintf("schema catalogs: %d schemas for kinds nothing else defines", n)
	}
	return f
}

// Asked remembers the kinds a catalog was asked for, so that a
// long-lived front end (the editor) asks each once while its settings
// stay (the catalog's own cache answers after that, offline). Safe for
// concurrent use; nil asks every kind every time.
type Asked struct {
	mu    sync.Mutex
	kinds map[gvk.GVK]bool
}

// NewAsked is an empty Asked.
func NewAsked() *Asked { return &Asked{kinds: map[gvk.GVK]bool{}} }

// fresh are the kinds not asked before, now marked asked.
func (a *Asked) fresh(kinds []gvk.GVK) []gvk.GVK {
	if a == nil {
		return kinds
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []gvk.GVK
	for _, g := range kinds {
		if !a.kinds[g] {
			a.kinds[g] = true
			out = append(out, g)
		}
	}
	return out
}

// KindsChanged reports whether the kinds of the file at path differ
// between old and w (a new kind may be one a catalog serves).
func (w *World) KindsChanged(old *World, path string) bool {
	f, o := w.file(path), old.file(path)
	return !slices.Equal(f.headers, o.headers) || !slices.Equal(f.composed, o.composed)
}

// composedKinds are the kinds a Composition composes, found by a line
// scan of the file (P&T bases, go-templating templates, any embedded
// manifest): an "apiVersion: group/version" line and the "kind: Kind" line
// of the same mapping (same indentation). Only files holding a
// Composition are scanned; kinds not written literally (templated) are
// not found.
func composedKinds(hs []workspace.Header, content []byte) []gvk.GVK {
	isComposition := false
	for _, h := range hs {
		if g := gvk.Parse(h.APIVersion, h.Kind); g.Group == "apiextensions.crossplane.io" && g.Kind == "Composition" {
			isComposition = true
		}
	}
	if !isComposition {
		return nil
	}
	type open struct {
		indent int
		av     string
	}
	var out []gvk.GVK
	var avs, kinds []open // lines waiting for their other half
	for rest := content; len(rest) > 0; {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		trimmed := bytes.TrimLeft(raw, " ")
		item := bytes.HasPrefix(trimmed, []byte("- "))
		if item {
			trimmed = bytes.TrimLeft(trimmed[2:], " ")
		}
		if len(bytes.TrimSpace(trimmed)) == 0 || trimmed[0] == '#' {
			continue
		}
		indent := len(raw) - len(trimmed)
		// A line closes the mappings indented deeper (a list item, its
		// own level too), and "---" every one.
		closed := func(o open) bool { return o.indent > indent || item && o.indent == indent }
		if bytes.Equal(bytes.TrimSpace(trimmed), []byte("---")) {
			closed = func(open) bool { return true }
		}
		avs = slices.DeleteFunc(avs, closed)
		kinds = slices.DeleteFunc(kinds, closed)
		isAV, isKind := bytes.HasPrefix(trimmed, []byte("apiVersion:")), bytes.HasPrefix(trimmed, []byte("kind:"))
		if !isAV && !isKind {
			continue
		}
		_, v, _ := strings.Cut(string(trimmed), ":")
		val := strings.TrimSpace(v)
		if i := strings.Index(val, " #"); i >= 0 {
			val = strings.TrimSpace(val[:i])
		}
		val = strings.Trim(val, `"'`)
		if val == "" || strings.ContainsAny(val, "{}$ ") {
			continue // templated or empty
		}
		if isAV && !strings.Contains(val, "/") {
			continue // a core kind: built in
		}
		// Pair with the other line of the same mapping (same indentation),
		// whichever comes first.
		mine, other := &avs, &kinds
		if isKind {
			mine, other = &kinds, &avs
		}
		paired := false
		for i := len(*other) - 1; i >= 0; i-- {
			if (*other)[i].indent == indent {
				if isAV {
					out = append(out, gvk.Parse(val, (*other)[i].av))
				} else {
					out = append(out, gvk.Parse((*other)[i].av, val))
				}
				*other = (*other)[:i]
				paired = true
				break
			}
		}
		if !paired {
			*mine = append(*mine, open{indent, val})
		}
	}
	return out
}

// embeddedFunction describes the functions the project file mp (the one
// nearest to the file, NearestMeta) embeds, by the functionRef name its
// Compositions use for them (packages.EmbeddedFunctionRef): those spec.functions lists, else any
// name the project's repository label prefixes (the folders of its
// functions path, which the World does not list).
func (w *World) embeddedFunction(mp string) func(string) string {
	m := w.file(mp).meta
	if m == nil || m.Repository == "" {
		return nil
	}
	byRef := map[string]string{}
	for _, fn := range m.Functions {
		byRef[packages.EmbeddedFunctionRef(m.Repository, fn)] = fn
	}
	prefix := packages.EmbeddedFunctionRef(m.Repository, "")
	file := filepath.Base(mp)
	return func(ref string) string {
		fn, ok := byRef[ref]
		if !ok && len(m.Functions) == 0 && prefix != "" && strings.HasPrefix(ref, prefix) && len(ref) > len(prefix) && ref[len(prefix)] != '-' {
			fn, ok = ref[len(prefix):], true
		}
		if !ok {
			return ""
		}
		return fmt.Sprintf("%s, the function %q that %s embeds (%s)", ref, fn, file, filepath.ToSlash(filepath.Join(m.FunctionsPath, fn)))
	}
}
