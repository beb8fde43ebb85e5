// This file builds analysis.Env for a file of the World.

package loader

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Env is EnvWith the analysis settings the World was loaded with.
func (w *World) Env(path string) analysis.Env { return w.EnvWith(path, w.cfg.Analysis) }

// EnvWith is the one builder of analysis.Env: the store, Crossplane major
// and package facts that apply to the file at path, its role, the
// analysis settings a, and — built on first use, once — the inputs only a
// rendering reads (example composites, the cluster, template files).
func (w *World) EnvWith(path string, a AnalysisSettings) analysis.Env {
	major, _ := w.MajorOf(path)
	st := w.Store(major)
	skip, patchOf, expressions := w.role(path)
	meta := w.NearestMeta(path) // once: three answers below read it
	return analysis.Env{
		Workspace: analysis.Workspace{
			Schemas:          st,
			CrossplaneMajor:  major,
			OtherMajor:       otherMajor(major),
			Unpulled:         w.unpulled(meta),
			DependsOn:        packages.DependsOnField(meta),
			EmbeddedFunction: w.embeddedFunction(meta),
			FunctionOf:       func(name string) (analysis.StepFunction, bool) { return w.functionOf(path, name) },
			DefinedFunctions: func() ([]string, bool) { return w.definedFunctions(path) },
			Render:           sync.OnceValue(func() analysis.RenderInputs { return w.renderInputs(path, st, a.Cluster) }),
		},
		Role: analysis.Role{Skip: skip, PatchOf: patchOf, Expressions: expressions},
		Options: analysis.Options{
			UnknownKind:        a.UnknownKind,
			ClientKinds:        a.ClientKinds,
			CompositionMode:    a.CompositionMode,
			UptestPlaceholders: a.UptestPlaceholders,
			Pipeline:           a.Pipeline,
		},
	}
}

// renderBuilds counts the render inputs built (renderInputs), for tests.
var renderBuilds atomic.Int64

// renderInputs are what only rendering a Composition at path reads: the
// example composites, the cluster, the template files. EnvWith builds
// them on first use only.
func (w *World) renderInputs(path string, st *schemas.Store, given analysis.Cluster) analysis.RenderInputs {
	renderBuilds.Add(1)
	return analysis.RenderInputs{
		Examples:      func(gvk schemas.GVK) []analysis.Example { return w.Examples(st, gvk) },
		Cluster:       w.cluster(path, given),
		TemplateFiles: w.templateFiles(path),
	}
}

// cluster is what a file's analysis knows of the cluster: the front
// end's, with the workspace's EnvironmentConfigs unless the front end's
// are complete.
func (w *World) cluster(path string, given analysis.Cluster) analysis.Cluster {
	if given.Complete {
		return given
	}
	given.EnvironmentConfigs = w.EnvironmentConfigs(path)
	given.From = "in the workspace"
	return given
}

// unpulled counts the dependencies of the package root file meta (the one
// nearest to the file, NearestMeta; "" none) that the package cache does
// not hold.
func (w *World) unpulled(meta string) int {
	if meta == "" {
		return 0
	}
	n := 0
	for _, r := range w.pkgResults()[meta] {
		if r.Package == nil {
			n++
		}
	}
	return n
}

// otherMajor answers analysis.Env.OtherMajor for files targeting major:
// the other major's built-in Crossplane schemas, loaded on first need.
func otherMajor(major int) func(schemas.GVK) int {
	other := map[int]int{1: 2, 2: 1}[major]
	return func(g schemas.GVK) int {
		if other == 0 || !strings.HasSuffix(g.Group, ".crossplane.io") {
			return 0
		}
		st, err := workspace.Builtins(other)
		if err != nil {
			return 0
		}
		if _, ok := st.Lookup(g); ok {
			return other
		}
		return 0
	}
}
