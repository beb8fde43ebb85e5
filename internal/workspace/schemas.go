// This file parses a Crossplane version setting (ParseMajor), builds the
// built-in store of a major (Builtins), and finds example composites' files.

package workspace

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin"
)

// DefaultCrossplaneMajor is targeted when neither crossplane.yaml nor the
// settings say otherwise.
const DefaultCrossplaneMajor = 2

var majorRE = regexp.MustCompile(`v?(\d+)(\.|$|\s)`)

// ParseMajor reads the Crossplane major (1 or 2) of a version or
// constraint such as "v1.20", ">=v2.0.0-0" or "v2".
func ParseMajor(s string) (int, bool) {
	m := majorRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || (n != 1 && n != 2) {
		return 0, false
	}
	return n, true
}

var builtinStores sync.Map // builtinKey → *builtinStore

type builtinKey struct {
	major int    // Crossplane major; 0: Kubernetes kinds only
	minor string // Kubernetes minor
}

type builtinStore struct {
	once  sync.Once
	store *schemas.Store
	err   error
}

// Builtins returns a store holding the embedded Kubernetes (the newest
// built-in minor), Crossplane (for the given major version) and function
// input schemas. It is built once per process and shared (stores are
// immutable).
func Builtins(major int) (*schemas.Store, error) {
	return BuiltinsFor(major, builtin.NewestKubernetes)
}

// BuiltinsFor is Builtins with the built-in Kubernetes schemas of one
// minor of builtin.KubernetesMinors ("1.34"); its Kubernetes schemas'
// Source.Kubernetes names the minor and opens the newer ones on need.
func BuiltinsFor(major int, minor string) (*schemas.Store, error) {
	v, _ := builtinStores.LoadOrStore(builtinKey{major, minor}, &builtinStore{})
	b := v.(*builtinStore)
	b.once.Do(func() { b.store, b.err = loadBuiltins(major, minor) })
	return b.store, b.err
}

// kubernetesRelease is the release of minor's built-in Kubernetes
// schemas, the newer minors served by Kubernetes-only stores.
func kubernetesRelease(minor string) *schemas.KubernetesRelease {
	r := &schemas.KubernetesRelease{Minor: minor}
	for _, m := range builtin.KubernetesMinors {
		if builtin.CompareMinors(m, minor) > 0 {
			r.Newer = append(r.Newer, schemas.NewerKubernetes{Minor: m, Store: func() (*schemas.Store, error) { return BuiltinsFor(0, m) }})
		}
	}
	return r
}

func loadBuiltins(major int, minor string) (*schemas.Store, error) {
	batch, err := builtinInputs(major, minor, func(src schemas.Source, path string, f builtin.File) (schemas.FileInput, error) {
		return builtinInput(src, path, f), nil
	})
	if err != nil {
		return schemas.NewStore(), err
	}
	return schemas.NewStore().WithFiles(batch), nil
}

// builtinInputs are the store inputs of the built-in sets for a Crossplane
// major (0: none) and Kubernetes minor, each document's source named
// here and its input made by input.
func builtinInputs(major int, minor string, input func(schemas.Source, string, builtin.File) (schemas.FileInput, error)) ([]schemas.FileInput, error) {
	k8s, err := builtin.KubernetesMinor(minor)
	if err != nil {
		return nil, fmt.Errorf("built-in Kubernetes schemas: %w", err)
	}
	sets := []builtin.Set{k8s}
	if major != 0 {
		xp, err := builtin.Crossplane(major)
		if err != nil {
			return nil, fmt.Errorf("built-in Crossplane schemas: %w", err)
		}
		fns, err := builtin.Functions()
		if err != nil {
			return nil, fmt.Errorf("built-in function schemas: %w", err)
		}
		sets = append(sets, xp, fns)
	}
	release := kubernetesRelease(minor)
	var batch []schemas.FileInput
	for _, set := range sets {
		name := set.Name
		if set.Version != "" {
			name += " " + set.Version
		}
		for _, f := range set.Files {
			src := schemas.Source{Kind: schemas.SourceBuiltin, Name: name, Version: set.Version, File: f.Name}
			if set.Kind == builtin.KindKubernetes {
				src.Kubernetes = release
			}
			in, err := input(src, "builtin:"+f.Name, f)
			if err != nil {
				return nil, err
			}
			batch = append(batch, in)
		}
	}
	return batch, nil
}

func builtinInput(src schemas.Source, path string, f builtin.File) schemas.FileInput {
	ix, err := schemas.DecodeIndexed(src, path, f.Index, f.Text)
	if err != nil {
		// Cannot happen with the generated indexes (builtin's
		// TestIndexIsCurrent); scanning the text gives the same store.
		data, _ := f.Text()
		return schemas.FileInput{Source: src, Path: path, Content: data}
	}
	return schemas.FileInput{Source: src, Path: path, Indexed: ix}
}

// Source is the schema source of a workspace file.
func Source(path string) schemas.Source {
	return schemas.Source{Kind: schemas.SourceWorkspace, Name: path, File: path}
}

// ExampleKinds are the kinds an example composite of the XR kind gvk may
// have: the XR kind itself and the claim kind its XRD offers.
func ExampleKinds(store *schemas.Store, gvk schemas.GVK) map[Header]bool {
	want := map[Header]bool{{APIVersion: gvk.APIVersion(), Kind: gvk.Kind}: true}
	if store == nil {
		return want
	}
	if cands := store.Candidates(gvk); len(cands) > 0 && cands[0].ClaimKind != "" {
		want[Header{APIVersion: gvk.APIVersion(), Kind: cands[0].ClaimKind}] = true
	}
	return want
}

// ExamplePaths lists the files of index holding an object of one of the
// kinds: files under an examples folder first, then by path.
func ExamplePaths(index map[string][]Header, kinds map[Header]bool) []string {
	var paths []string
	for p, hs := range index {
		for _, h := range hs {
			if kinds[h] {
				paths = append(paths, p)
				break
			}
		}
	}
	sort.Slice(paths, func(i, j int) bool {
		ei, ej := strings.Contains(paths[i], "example"), strings.Contains(paths[j], "example")
		if ei != ej {
			return ei
		}
		return paths[i] < paths[j]
	})
	return paths
}

// KubernetesChoice is the built-in Kubernetes minor a workspace targets
// (builtin.ChooseKubernetes).
type KubernetesChoice = builtin.KubernetesChoice

// ChooseKubernetes picks the built-in Kubernetes minor from the setting
// (crdLsp.kubernetesVersion, --kubernetes-version; "" for none) and the
// cluster server's version ("" without a cluster).
func ChooseKubernetes(setting, clusterVersion string) KubernetesChoice {
	return builtin.ChooseKubernetes(setting, clusterVersion)
}

// KubernetesMinors are the built-in Kubernetes minors, oldest first.
func KubernetesMinors() []string { return append([]string(nil), builtin.KubernetesMinors...) }
