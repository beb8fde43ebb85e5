// This file keeps the index of workspace objects by kind that finds
// example composites for rendering.

package lsp

import (
	"bytes"
	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// indexObjectsLocked records the apiVersion/kind headers of a workspace
// file (nil content removes it).
func (s *server) indexObjectsLocked(p string, content []byte) {
	if s.objects == nil {
		s.objects = map[string][]workspace.Header{}
	}
	if h := workspace.Headers(content); len(h) > 0 {
		s.objects[p] = h
	} else {
		delete(s.objects, p)
	}
}

// examples returns the workspace's example composites for the XR kind gvk:
// objects of that kind or of its claim kind, files under an examples
// folder first, then by path. Open buffers win over disk.
func (s *server) examples(store *schemas.Store, gvk schemas.GVK) []analysis.Example {
	kinds := workspace.ExampleKinds(store, gvk)
	s.mu.Lock()
	paths := workspace.ExamplePaths(s.objects, kinds)
	s.mu.Unlock()
	var out []analysis.Example
	for _, p := range paths {
		if text, err := s.readFile(p); err == nil {
			if ex, ok := analysis.FirstExample(s.objectsIn(p, text), func(av, k string) bool { return kinds[workspace.Header{APIVersion: av, Kind: k}] }); ok {
				out = append(out, ex)
			}
		}
	}
	return out
}

// exampleFile is an example file's text and the objects parsed from it.
type exampleFile struct {
	text []byte
	objs []analysis.Example
}

// objectsIn parses an example file's objects, once per content: every
// Composition diagnosis and lens request asks for them again.
func (s *server) objectsIn(p string, text []byte) []analysis.Example {
	s.exMu.Lock()
	defer s.exMu.Unlock()
	if e, ok := s.exFiles[p]; ok && bytes.Equal(e.text, text) {
		return e.objs
	}
	if s.exFiles == nil {
		s.exFiles = map[string]exampleFile{}
	}
	e := exampleFile{text: bytes.Clone(text), objs: analysis.ObjectsIn(p, text)}
	s.exFiles[p] = e
	return e.objs
}

// examplesFunc adapts examples to analysis.Env.
func (s *server) examplesFunc(store *schemas.Store) func(schemas.GVK) []analysis.Example {
	return func(g schemas.GVK) []analysis.Example { return s.examples(store, g) }
}
