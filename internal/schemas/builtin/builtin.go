// Package builtin embeds the schemas crd-lsp knows without any setup:
// Kubernetes 1.35 built-in kinds (synthesised as CRDs from the upstream
// OpenAPI v3 documents), Crossplane's core CRDs for v1.20 and v2.3, and the
// input CRDs of common composition functions. Everything is served as CRD
// YAML documents, so the schema store treats built-ins like workspace CRDs.
//
// The bundle under data/ is generated from the shared corpus and committed,
// so a fresh clone builds offline:
//
//	go generate ./internal/schemas/builtin/
//
// regenerates it byte-identically (TestGeneratedIsCurrent checks that).
// NOTICE names the upstream sources and their licence.
package builtin

//go:generate go run ./gen -corpus ../../../../shared/corpus -out data

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"strings"
	"sync"
)

//go:embed data/*.yaml.gz
var data embed.FS

// SetKind says what a Set holds.
type SetKind int

const (
	KindKubernetes SetKind = iota
	KindCrossplane
	KindFunctions
)

// Set is one embedded bundle.
type Set struct {
	Name    string // "kubernetes", "crossplane", "functions"
	Version string // "v1.35", "v1.20.11", "v2.3.4", ""
	Kind    SetKind
	Files   []File
}

// File is one CRD document of a Set.
type File struct {
	// Name is the document's origin, e.g.
	// "kubernetes/v1.35/apis__apps__v1_openapi.json#Deployment".
	Name string
	Data []byte
}

type loaded struct {
	once sync.Once
	set  Set
	err  error
}

var cache sync.Map // file name → *loaded

func load(file, name, version string, kind SetKind) (Set, error) {
	v, _ := cache.LoadOrStore(file, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() {
		l.set, l.err = read(file, name, version, kind)
	})
	return l.set, l.err
}

func read(file, name, version string, kind SetKind) (Set, error) {
	f, err := data.Open("data/" + file)
	if err != nil {
		return Set{}, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return Set{}, fmt.Errorf("%s: %w", file, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return Set{}, fmt.Errorf("%s: %w", file, err)
	}
	set := Set{Name: name, Version: version, Kind: kind}
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		doc = bytes.TrimPrefix(doc, []byte("---\n"))
		src, body, ok := bytes.Cut(doc, []byte("\n"))
		if !ok || !bytes.HasPrefix(src, []byte("# source: ")) {
			continue
		}
		set.Files = append(set.Files, File{Name: strings.TrimPrefix(string(src), "# source: "), Data: body})
	}
	return set, nil
}

// Kubernetes returns the built-in Kubernetes kinds.
func Kubernetes() (Set, error) {
	return load("kubernetes-v1.35.yaml.gz", "kubernetes", "v1.35", KindKubernetes)
}

// Crossplane returns Crossplane's core CRDs for a major version: 1 is
// v1.20.11, 2 is v2.3.4.
func Crossplane(major int) (Set, error) {
	switch major {
	case 1:
		return load("crossplane-v1.20.11.yaml.gz", "crossplane", "v1.20.11", KindCrossplane)
	case 2:
		return load("crossplane-v2.3.4.yaml.gz", "crossplane", "v2.3.4", KindCrossplane)
	}
	return Set{}, fmt.Errorf("no built-in schemas for Crossplane v%d (have v1 and v2)", major)
}

// Functions returns the input CRDs of common composition functions.
func Functions() (Set, error) {
	return load("functions.yaml.gz", "functions", "", KindFunctions)
}
