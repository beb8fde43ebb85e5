// Package builtin embeds the schemas crd-lsp knows without any setup, as
// apiextensions.k8s.io/v1 CustomResourceDefinition YAML documents, so the
// schema store treats built-ins exactly like workspace CRDs:
//
//   - Kubernetes() — the Kubernetes 1.35 GA kinds (Deployment, Service,
//     ConfigMap, ClusterRole, CustomResourceDefinition …), one CRD per
//     top-level kind, synthesised from the upstream OpenAPI v3 documents:
//     $refs inlined, zero-value defaults and patch extensions dropped,
//     int-or-string as x-kubernetes-int-or-string, Quantity as any value
//     with the quantity pattern, root metadata as {type: object} (the
//     validator applies ObjectMeta's rules itself), recursion (JSONSchemaProps)
//     cut as an open object. Every schema is structural and passes the API
//     server's CRD validation. The core group is group "" (CRD name
//     <plural>.core).
//   - Crossplane(1), Crossplane(2) — Crossplane's core CRDs of v1.20.11
//     (with classic mode: Resources Compositions) and v2.3.4, verbatim.
//   - Functions() — the input CRDs of function-patch-and-transform,
//     function-go-templating, function-sequencer and function-cel-filter,
//     verbatim.
//
// Each set is one multi-document YAML file under data/, where every
// document is preceded by a "# source: <origin>" comment. The files are
// embedded uncompressed: a set is split on first use straight from the
// binary's read-only data (no copy), and every crd-lsp process (each
// check, each server start) is spared decompressing 7.5 MB of Kubernetes
// schemas, which cost about 35 ms of CPU; git stores them compressed.
//
// The data/ files are generated from the team's shared corpus by
// ./gen (logic in ./internal/generate) and committed, so a fresh clone
// builds offline. To regenerate, byte-identically unless the corpus
// changed:
//
//	go generate ./internal/schemas/builtin/
//
// TestGeneratedIsCurrent regenerates into a temporary folder and compares
// byte for byte with the committed files; the corpus is
// ../../../../shared/corpus from this folder, or $CRD_LSP_CORPUS. The test
// skips when the corpus is absent, except with CI=true, where it fails.
// NOTICE names the upstream repositories, tags, commits and licence
// (Apache-2.0).
package builtin

//go:generate go run ./gen -corpus ../../../../shared/corpus -out data

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
)

// The bundles, as generated (see generate.Sets).
var (
	//go:embed data/kubernetes-v1.35.yaml
	kubernetesData []byte
	//go:embed data/crossplane-v1.20.11.yaml
	crossplane1Data []byte
	//go:embed data/crossplane-v2.3.4.yaml
	crossplane2Data []byte
	//go:embed data/functions.yaml
	functionsData []byte
)

// separator starts every document of a bundle (see internal/generate).
const separator = "---\n# source: "

// SetKind says what a Set holds.
type SetKind int

const (
	KindKubernetes SetKind = iota // Kubernetes built-in kinds
	KindCrossplane                // Crossplane core CRDs
	KindFunctions                 // composition-function input CRDs
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
	// "kubernetes/v1.35/apis__apps__v1_openapi.json#Deployment" or
	// "crossplane/v2.3.4/apiextensions.crossplane.io_compositions.yaml".
	Name string
	// Data is one YAML document, newline-terminated. It is shared by all
	// callers and must not be modified.
	Data []byte
}

type loaded struct {
	once sync.Once
	set  Set
	err  error
}

var (
	kubernetes, crossplane1, crossplane2, functions loaded
)

func (l *loaded) get(file string, raw []byte, name, version string, kind SetKind) (Set, error) {
	l.once.Do(func() { l.set, l.err = read(file, raw, name, version, kind) })
	set := l.set
	// Callers get their own Files slice header; the documents themselves
	// are shared and must not be modified.
	set.Files = append([]File(nil), l.set.Files...)
	return set, l.err
}

// read splits one bundle into its documents. The documents are
// sub-slices (capacity-clipped) of the embedded bundle, so a Set holds no
// more than its File headers.
func read(file string, raw []byte, name, version string, kind SetKind) (Set, error) {
	set := Set{Name: name, Version: version, Kind: kind}
	sep := []byte(separator)
	if !bytes.HasPrefix(raw, sep) {
		return Set{}, fmt.Errorf("built-in schemas %s: does not start with %q", file, separator)
	}
	set.Files = make([]File, 0, bytes.Count(raw, []byte("\n"+separator))+1)
	for rest := raw; len(rest) > 0; {
		rest = rest[len(sep):]
		src, body, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return Set{}, fmt.Errorf("built-in schemas %s: truncated document", file)
		}
		end := bytes.Index(body, []byte("\n"+separator))
		if end < 0 {
			end = len(body)
		} else {
			end++ // keep the document's final newline
		}
		set.Files = append(set.Files, File{Name: string(src), Data: body[:end:end]})
		rest = body[end:]
	}
	return set, nil
}

// Kubernetes returns the built-in Kubernetes kinds.
func Kubernetes() (Set, error) {
	return kubernetes.get("kubernetes-v1.35.yaml", kubernetesData, "kubernetes", "v1.35", KindKubernetes)
}

// Crossplane returns Crossplane's core CRDs for a major version: 1 is
// v1.20.11, 2 is v2.3.4.
func Crossplane(major int) (Set, error) {
	switch major {
	case 1:
		return crossplane1.get("crossplane-v1.20.11.yaml", crossplane1Data, "crossplane", "v1.20.11", KindCrossplane)
	case 2:
		return crossplane2.get("crossplane-v2.3.4.yaml", crossplane2Data, "crossplane", "v2.3.4", KindCrossplane)
	}
	return Set{}, fmt.Errorf("no built-in schemas for Crossplane v%d (have v1 and v2)", major)
}

// Functions returns the input CRDs of common composition functions.
func Functions() (Set, error) {
	return functions.get("functions.yaml", functionsData, "functions", "", KindFunctions)
}
