// This file reads a kustomization with positions: the entries that name
// files and folders, its patches and generators, where each is written.

package kustomize

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// fileNames are the names kustomize reads a kustomization from, in its
// order (konfig.RecognizedKustomizationFileNames).
var fileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Kustomization is one kustomization file as a build read it.
type Kustomization struct {
	Path string
	File *document.File
	// doc is its first document; root its mapping (nil when it is not
	// one: kustomize then refuses it, and says why).
	doc  *document.Doc
	root *yaml.Node
}

func readKustomization(path string, text []byte) *Kustomization {
	k := &Kustomization{Path: path, File: document.Parse(path, 0, text)}
	k.doc = k.File.Docs[0]
	if r := k.doc.Root; r != nil && r.Kind == yaml.MappingNode {
		k.root = r
	}
	return k
}

// Dir is the kustomization's folder, which its entries are relative to.
func (k *Kustomization) Dir() string { return filepath.Dir(k.Path) }

// Component: its kind is Component.
func (k *Kustomization) Component() bool { return k.scalar("kind") == "Component" }

func (k *Kustomization) scalar(field string) string {
	_, v, ok := k.doc.Lookup(fieldpath.Path{fieldpath.Field(field)})
	if !ok || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// has reports whether the kustomization sets field.
func (k *Kustomization) has(field string) bool {
	_, _, ok := k.doc.Lookup(fieldpath.Path{fieldpath.Field(field)})
	return ok && k.root != nil
}

// span is where p is written: its key (onKey, when it has one) or its
// value; the nearest written ancestor's key when p is not written; the
// document's start when nothing is.
func (k *Kustomization) span(p fieldpath.Path, onKey bool) document.Span {
	key, val, ok := k.doc.Spans(p)
	if !ok {
		_, key, val = k.doc.Nearest(p)
		onKey = true
	}
	if onKey && !key.IsZero() {
		return key
	}
	return val
}

// firstKey is the span of the kustomization's first key, where a
// problem about the whole kustomization is shown.
func (k *Kustomization) firstKey() document.Span {
	if k.root != nil && len(k.root.Content) > 0 {
		return k.File.NodeSpan(k.root.Content[0])
	}
	return document.Span{Start: k.doc.Span.Start, End: k.doc.Span.Start}
}

// entry is a string the kustomization names (a path, most often), where
// it is written.
type entry struct {
	field string // the list it is in: resources, components, …
	value string
	at    fieldpath.Path
}

// list is the string items of the top-level list field.
func (k *Kustomization) list(field string) []entry {
	_, v, ok := k.doc.Lookup(fieldpath.Path{fieldpath.Field(field)})
	if !ok || v.Kind != yaml.SequenceNode {
		return nil
	}
	var out []entry
	for i, n := range v.Content {
		if n.Kind == yaml.ScalarNode {
			out = append(out, entry{field: field, value: n.Value, at: fieldpath.Path{fieldpath.Field(field), fieldpath.Index(i)}})
		}
	}
	return out
}

// items is the mapping items of the top-level list field, with their
// paths.
func (k *Kustomization) items(field string) []fieldpath.Path {
	_, v, ok := k.doc.Lookup(fieldpath.Path{fieldpath.Field(field)})
	if !ok || v.Kind != yaml.SequenceNode {
		return nil
	}
	var out []fieldpath.Path
	for i, n := range v.Content {
		if n.Kind == yaml.MappingNode {
			out = append(out, fieldpath.Path{fieldpath.Field(field), fieldpath.Index(i)})
		}
	}
	return out
}

// node is the value at p (nil when p is not written).
func (k *Kustomization) node(p fieldpath.Path) *yaml.Node {
	_, v, ok := k.doc.Lookup(p)
	if !ok {
		return nil
	}
	return v
}

// text is the string value at p ("" when it is not a scalar).
func (k *Kustomization) text(p fieldpath.Path) string {
	if n := k.node(p); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// local resolves an entry naming a file or folder against the
// kustomization's folder.
func (k *Kustomization) local(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(k.Dir(), filepath.FromSlash(p))
}

// isURL reports whether s names something to fetch: a URL (kustomize
// reads http(s) files and clones repositories of any scheme).
func isURL(s string) bool { return strings.Contains(s, "://") }

// looksRemote reports whether a resources entry that names no local file
// or folder is one kustomize would clone: a URL, git@host:…, or a
// host/org/repo form (github.com/org/repo//path?ref=v1).
func looksRemote(s string) bool {
	if isURL(s) || strings.HasPrefix(s, "git@") || strings.Contains(s, "?ref=") || strings.Contains(s, "?version=") ||
		strings.HasSuffix(s, ".git") || strings.Contains(s, ".git/") || strings.Contains(s, ".git//") {
		return true
	}
	host, _, _ := strings.Cut(s, "/")
	return strings.Contains(host, ".") && !strings.HasPrefix(host, ".") && strings.Contains(strings.TrimPrefix(s, host+"/"), "/")
}

// patchFields are the fields of patches, in the order kustomize applies
// them (target.configureBuiltinTransformers), with the transformer that
// applies each.
var patchFields = []struct{ field, transformer string }{
	{"patchesStrategicMerge", "PatchStrategicMergeTransformer"},
	{"patches", "PatchTransformer"},
	{"patchesJson6902", "PatchJson6902Transformer"},
}

// patchRef is one patch of a kustomization.
type patchRef struct {
	k     *Kustomization
	field string
	at    fieldpath.Path // the list item
	// file is the patch file (clean, absolute); "" for an inline patch,
	// whose text is inline.
	file   string
	inline *yaml.Node
	// textAt is where the inline text is written (the item itself for
	// patchesStrategicMerge, its "patch" field otherwise).
	textAt fieldpath.Path
	target *selector
}

// patches are the kustomization's patches of the field.
func (k *Kustomization) patches(field string) []patchRef {
	_, v, ok := k.doc.Lookup(fieldpath.Path{fieldpath.Field(field)})
	if !ok || v.Kind != yaml.SequenceNode {
		return nil
	}
	var out []patchRef
	for i, n := range v.Content {
		at := fieldpath.Path{fieldpath.Field(field), fieldpath.Index(i)}
		p := patchRef{k: k, field: field, at: at}
		switch n.Kind {
		case yaml.ScalarNode:
			if strings.ContainsAny(n.Value, "\n:") {
				p.inline, p.textAt = n, at
			} else {
				p.file = k.local(n.Value)
			}
		case yaml.MappingNode:
			if path := k.text(at.Child(fieldpath.Field("path"))); path != "" {
				p.file = k.local(path)
			} else if pn := k.node(at.Child(fieldpath.Field("patch"))); pn != nil && pn.Kind == yaml.ScalarNode {
				p.inline, p.textAt = pn, at.Child(fieldpath.Field("patch"))
			}
			if t := k.node(at.Child(fieldpath.Field("target"))); t != nil && t.Kind == yaml.MappingNode {
				p.target = readSelector(t)
			}
		default:
			continue
		}
		out = append(out, p)
	}
	return out
}

// selector is a patch's target (kustomize's types.Selector).
type selector struct {
	Group, Version, Kind, Name, Namespace string
	LabelSelector, AnnotationSelector     string
}

func readSelector(n *yaml.Node) *selector {
	s := &selector{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := n.Content[i+1].Value
		switch n.Content[i].Value {
		case "group":
			s.Group = v
		case "version":
			s.Version = v
		case "kind":
			s.Kind = v
		case "name":
			s.Name = v
		case "namespace":
			s.Namespace = v
		case "labelSelector":
			s.LabelSelector = v
		case "annotationSelector":
			s.AnnotationSelector = v
		}
	}
	return s
}

// generatorFields are the fields of generators, with the generator each
// configures.
var generatorFields = []struct{ field, generator string }{
	{"configMapGenerator", "ConfigMapGenerator"},
	{"secretGenerator", "SecretGenerator"},
}
