// This file defines the Store, an immutable snapshot of every known schema,
// ranked by source.

package schemas

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/gvk"
)

// GVK names a kind at one version (internal/gvk).
type GVK = gvk.GVK

// SourceKind ranks schema sources: a higher kind wins.
type SourceKind int

const (
	SourceBuiltin   SourceKind = iota // embedded Kubernetes / Crossplane schemas
	SourceWorkspace                   // CRDs, XRDs, MRDs in the user's files
	SourcePackage                     // a package pinned by crossplane.yaml

	// SourceCluster is a CRD a live cluster serves (read through the
	// user's kubeconfig, cached): the workspace's, packages' and built-in
	// definitions of the same kind win.
	SourceCluster SourceKind = -1
	// SourceCatalog is a schema catalog's JSON Schema (converted from a
	// CRD, without its CEL rules): ranked below every other source, so a
	// real definition of the kind always wins.
	SourceCatalog SourceKind = -2
)

func (k SourceKind) String() string {
	switch k {
	case SourceBuiltin:
		return "built-in"
	case SourceWorkspace:
		return "workspace"
	case SourcePackage:
		return "package"
	case SourceCatalog:
		return "catalog"
	case SourceCluster:
		return "cluster"
	}
	return "unknown"
}

// Source says where a schema came from.
type Source struct {
	Kind    SourceKind
	Name    string // "kubernetes v1.37", "crossplane v2.3.4", a workspace path, a package reference
	Version string
	File    string // the file that defined it, if any
	// Kubernetes is set on the built-in Kubernetes schemas: their release
	// (kubernetes.go).
	Kubernetes *KubernetesRelease
}

// Scope of a kind.
type Scope string

const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// KindInfo summarises one known GVK (its winning schema).
type KindInfo struct {
	GVK         GVK
	Scope       Scope
	Plural      string
	Source      Source
	Description string // first sentence of the schema's description
	// Schema is the winning schema, for details; building it is lazy.
	Schema *Schema
}

// Store is an immutable snapshot of all known schemas. Every With* method
// returns a new Store sharing structure with the old one, which stays valid
// and unchanged; Stores are safe for concurrent use.
type Store struct {
	files pmap[string, *fileEntry]
	// gvks holds, per GVK, every candidate schema in rank order.
	gvks pmap[GVK, []*Schema]
	n    int // number of schemas over all files

	kindsOnce sync.Once
	kinds     []KindInfo
}

type fileEntry struct {
	path    string
	src     Source
	schemas []*Schema
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{} }

// WithFile returns a store in which path's definitions are those found in
// content (replacing what path defined before); s is unchanged. Only the
// index fields of each CRD, XRD or MRD document are read; schemas are built
// on first use. The cost is O(size of content + GVKs of path · log n).
// content is copied: the caller may reuse it.
func (s *Store) WithFile(src Source, path string, content []byte) *Store {
	n := s.clone()
	n.setIndexed(IndexInput(FileInput{Source: src, Path: path, Content: bytes.Clone(content)}))
	return n
}

// FileInput is one file for WithFiles.
type FileInput struct {
	Source  Source
	Path    string
	Content []byte
	// Open, if set, reads the file again (it returns what Content was):
	// the store then keeps only the index of Content (kinds, names,
	// versions, where each definition sits) and reads the file through
	// Open when a schema is first needed or rebuilt after eviction,
	// checking the definition is unchanged. Without it the store keeps the
	// definitions' text.
	Open func() ([]byte, error)
	// Indexed, if set, is IndexInput of the same input, done beforehand;
	// WithFiles then only inserts it.
	Indexed *Indexed
}

// WithFiles is WithFile for many files at once.
func (s *Store) WithFiles(in []FileInput) *Store {
	n := s.clone()
	for _, f := range in {
		if f.Indexed != nil {
			n.setIndexed(f.Indexed)
			continue
		}
		n.setIndexed(IndexInput(f))
	}
	return n
}

// WithoutFile returns a store without path's definitions.
func (s *Store) WithoutFile(path string) *Store {
	if _, ok := s.files.get(path); !ok {
		return s
	}
	n := s.clone()
	n.removeFile(path)
	return n
}

func (s *Store) clone() *Store {
	return &Store{files: s.files, gvks: s.gvks, n: s.n}
}

// removeFile, addEntry and setIndexed mutate a Store that nobody else has
// seen yet.

// addEntry inserts a file's entry and its schemas.
func (s *Store) addEntry(e *fileEntry) {
	s.files = s.files.set(e.path, e)
	for _, sc := range e.schemas {
		old, _ := s.gvks.get(sc.GVK)
		list := make([]*Schema, 0, len(old)+1)
		list = append(append(list, old...), sc)
		slices.SortStableFunc(list, func(a, b *Schema) int {
			if ranksBefore(a, b) {
				return -1
			}
			if ranksBefore(b, a) {
				return 1
			}
			return 0
		})
		s.gvks = s.gvks.set(sc.GVK, list)
	}
	s.n += len(e.schemas)
}

func (s *Store) removeFile(path string) {
	e, ok := s.files.get(path)
	if !ok {
		return
	}
	s.files = s.files.del(path)
	for _, sc := range e.schemas {
		old, _ := s.gvks.get(sc.GVK)
		list := make([]*Schema, 0, len(old))
		for _, o := range old {
			if o.Path != path {
				list = append(list, o)
			}
		}
		if len(list) == 0 {
			s.gvks = s.gvks.del(sc.GVK)
		} else {
			s.gvks = s.gvks.set(sc.GVK, list)
		}
	}
	s.n -= len(e.schemas)
}

// ranksBefore: package > workspace > built-in, then by path, then by the
// document's position in its file.
func ranksBefore(a, b *Schema) bool {
	if a.Source.Kind != b.Source.Kind {
		return a.Source.Kind > b.Source.Kind
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.docIndex < b.docIndex
}

// Lookup returns the highest-ranked schema for gvk.
func (s *Store) Lookup(gvk GVK) (*Schema, bool) {
	list, _ := s.gvks.get(gvk)
	if len(list) == 0 {
		return nil, false
	}
	return list[0], true
}

// Candidates returns every schema known for gvk, best first.
func (s *Store) Candidates(gvk GVK) []*Schema {
	list, _ := s.gvks.get(gvk)
	return append([]*Schema(nil), list...)
}

// Kinds lists every known GVK (its winning schema), sorted by group,
// version and kind. The list is computed once per Store; each call returns
// a copy.
func (s *Store) Kinds() []KindInfo {
	return slices.Clone(s.kindList())
}

func (s *Store) kindList() []KindInfo {
	s.kindsOnce.Do(func() {
		out := make([]KindInfo, 0, s.gvks.Len())
		s.gvks.each(func(gvk GVK, list []*Schema) {
			sc := list[0]
			out = append(out, KindInfo{GVK: gvk, Scope: sc.Scope, Plural: sc.Plural, Source: sc.Source, Description: sc.Description, Schema: sc})
		})
		slices.SortFunc(out, func(x, y KindInfo) int {
			a, b := x.GVK, y.GVK
			return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
		})
		s.kinds = out
	})
	return s.kinds
}

// FileGVKs lists what path defines, in document order.
func (s *Store) FileGVKs(path string) []GVK {
	f, _ := s.files.get(path)
	if f == nil {
		return nil
	}
	out := make([]GVK, 0, len(f.schemas))
	for _, sc := range f.schemas {
		out = append(out, sc.GVK)
	}
	return out
}

// Len is the number of indexed GVK definitions (all sources).
func (s *Store) Len() int { return s.n }

func (s *Store) String() string { return fmt.Sprintf("schemas.Store(%d files)", s.files.Len()) }

// indexedSchemas turns an indexed definition into the Schemas of every GVK
// it serves (an XRD's claim too, when it offers one). Nothing is built.
// With open set, the text is not kept.
func indexedSchemas(d *definition, src Source, path string, open func() ([]byte, error)) []*Schema {
	ref := &defRef{kind: d.kind, key: keyOf(d.text), off: d.off, path: path}
	if open != nil {
		ref.open = open
	} else {
		ref.text = d.text
	}
	if src.File == "" {
		src.File = path
	}
	var out []*Schema
	for _, v := range d.versions {
		if !v.served {
			continue
		}
		main := &Schema{GVK: GVK{Group: d.group, Version: v.name, Kind: d.kindName}, Scope: d.xrScope(), Source: src, Plural: d.plural, CRDName: d.name, Description: d.description, Path: path, LegacyXR: d.legacyXR(), docIndex: d.docIndex, def: ref, role: roleMain}
		out = append(out, main)
		if d.offersClaim() {
			main.ClaimKind = d.claimKind
			out = append(out, &Schema{GVK: GVK{Group: d.group, Version: v.name, Kind: d.claimKind}, Scope: Namespaced, Source: src, Plural: d.claimPlural, CRDName: d.name, Path: path, docIndex: d.docIndex, def: ref, role: roleClaim})
		}
	}
	return out
}
