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

var builtinStores sync.Map // major → *builtinStore

type builtinStore struct {
	once  sync.Once
	store *schemas.Store
	err   error
}

// Builtins returns a store holding the embedded Kubernetes, Crossplane
// (for the given major version) and function input schemas. It is built
// once per process and shared (stores are immutable).
func Builtins(major int) (*schemas.Store, error) {
	v, _ := builtinStores.LoadOrStore(major, &builtinStore{})
	b := v.(*builtinStore)
	b.once.Do(func() { b.store, b.err = loadBuiltins(major) })
	return b.store, b.err
}

func loadBuiltins(major int) (*schemas.Store, error) {
	st := schemas.NewStore()
	k8s, err := builtin.Kubernetes()
	if err != nil {
		return st, fmt.Errorf("built-in Kubernetes schemas: %w", err)
	}
	xp, err := builtin.Crossplane(major)
	if err != nil {
		return st, fmt.Errorf("built-in Crossplane schemas: %w", err)
	}
	fns, err := builtin.Functions()
	if err != nil {
		return st, fmt.Errorf("built-in function schemas: %w", err)
	}
	var batch []schemas.FileInput
	for _, set := range []builtin.Set{k8s, xp, fns} {
		name := set.Name
		if set.Version != "" {
			name += " " + set.Version
		}
		for _, f := range set.Files {
			src := schemas.Source{Kind: schemas.SourceBuiltin, Name: name, Version: set.Version, File: f.Name}
			batch = append(batch, schemas.FileInput{Source: src, Path: "builtin:" + f.Name, Content: f.Data})
		}
	}
	return st.WithFiles(batch), nil
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
