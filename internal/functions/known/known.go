// Package known is the registry of the composition functions crd-lsp
// knows: one record per function (functions.Known, in the function's own
// folder below internal/functions), how a pipeline step is linked to its
// function and release, and what crd-lsp may say about a step's input as
// that release of the function reads it (Judge).
//
// Adding a function is one folder below internal/functions (its record,
// its in-process runner if any, its recorded answers) and one line in
// All.
package known

import (
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/autoready"
	"github.com/crd-lsp/crd-lsp/internal/functions/celfilter"
	"github.com/crd-lsp/crd-lsp/internal/functions/cue"
	"github.com/crd-lsp/crd-lsp/internal/functions/dummy"
	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/functions/extraresources"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/functions/kcl"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/functions/python"
	"github.com/crd-lsp/crd-lsp/internal/functions/sequencer"
	"github.com/crd-lsp/crd-lsp/internal/functions/statustransformer"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
)

// All returns every function crd-lsp knows.
func All() []*functions.Known { return all }

var all = []*functions.Known{
	&patchandtransform.Function,
	&gotemplating.Function,
	&environmentconfigs.Function,
	&extraresources.Function,
	&kcl.Function,
	&python.Function,
	&cue.Function,
	&autoready.Function,
	&sequencer.Function,
	&statustransformer.Function,
	&celfilter.Function,
	&dummy.Function,
}

// ByName is the function whose repository is named name
// (function-kcl), nil when none is known.
func ByName(name string) *functions.Known {
	for _, f := range all {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// ByFunctionRef is the function a functionRef name spells: its
// repository's name, or the name Crossplane gives a package dependency's
// Function (crossplane-contrib-function-kcl).
func ByFunctionRef(name string) *functions.Known {
	for _, f := range all {
		if name == f.Name || strings.HasSuffix(name, "-"+f.Name) {
			return f
		}
	}
	return nil
}

// ByInput is the function whose input kinds include g's group and kind.
func ByInput(g gvk.GVK) *functions.Known {
	for _, f := range all {
		for _, k := range f.Inputs {
			if k.Group == g.Group && k.Kind == g.Kind {
				return f
			}
		}
	}
	return nil
}

// ComposesNothing says whether the function a functionRef names is known
// to compose no resources.
func ComposesNothing(ref string) bool {
	f := ByFunctionRef(ref)
	return f != nil && f.ComposesNothing
}

// LeavesNoData says whether the function a functionRef names leaves
// nothing a later template reads besides readiness and ordering.
func LeavesNoData(ref string) bool {
	f := ByFunctionRef(ref)
	return f != nil && f.LeavesNoData
}

// Ref is what a step's functionRef resolves to in the workspace: a
// Function object's package, or a package dependency.
type Ref struct {
	// Package is the package's repository without tag or digest
	// (xpkg.upbound.io/crossplane-contrib/function-kcl).
	Package string
	// Version is the Function's tag, or the dependency's version
	// constraint (">=v0.10.0"); "" when unknown.
	Version string
	// From says where the name was found (a file).
	From string
}

// How says how a step was linked to its function.
type How string

const (
	// ByPackage: a Function object or a package dependency names its
	// package.
	ByPackage How = "package"
	// ByRefName: functionRef.name spells a known function's name.
	ByRefName How = "name"
	// ByInputKind: only the input's group and kind say it.
	ByInputKind How = "input"
)

// Link is what crd-lsp knows of the function a step runs.
type Link struct {
	// Fn is the known function; nil when the step runs one crd-lsp does
	// not know (Ref may still name its package).
	Fn  *functions.Known
	How How
	Ref Ref
	// Release is the release judged ("" when the function has no
	// recorded release); Pinned says the workspace pins it (an exact
	// tag, or the newest recorded release a constraint allows).
	Release string
	Pinned  bool
}

// LinkStep finds the function a step runs: through resolve (the
// workspace's Function objects and package dependencies), else by its
// functionRef name, else by its input's kind.
func LinkStep(ref string, input map[string]any, resolve func(name string) (Ref, bool)) Link {
	if resolve != nil && ref != "" {
		if r, ok := resolve(ref); ok {
			repo := r.Package[strings.LastIndex(r.Package, "/")+1:]
			l := Link{Fn: ByName(repo), How: ByPackage, Ref: r}
			l.Release, l.Pinned = release(l.Fn, r.Version)
			return l
		}
	}
	if f := ByFunctionRef(ref); f != nil {
		l := Link{Fn: f, How: ByRefName}
		l.Release, _ = release(f, "")
		return l
	}
	if g, ok := inputGVK(input); ok {
		if f := ByInput(g); f != nil {
			l := Link{Fn: f, How: ByInputKind}
			l.Release, _ = release(f, "")
			return l
		}
	}
	return Link{}
}

func inputGVK(in map[string]any) (gvk.GVK, bool) {
	av, _ := in["apiVersion"].(string)
	k, _ := in["kind"].(string)
	if av == "" || k == "" {
		return gvk.GVK{}, false
	}
	return gvk.Parse(av, k), true
}

// release is the release of f a version (a tag or a constraint) selects:
// the tag itself, or the newest recorded release the constraint allows;
// the newest recorded release when the version says nothing.
func release(f *functions.Known, version string) (string, bool) {
	if f == nil || len(f.Releases) == 0 {
		return "", false
	}
	version = strings.TrimSpace(version)
	if version == "" {
		return f.Releases[0], false
	}
	if v, err := semver.NewVersion(version); err == nil && strings.TrimPrefix(version, "v") == v.String() {
		return "v" + v.String(), true
	}
	c, err := semver.NewConstraint(version)
	if err != nil {
		return f.Releases[0], false
	}
	for _, r := range f.Releases {
		if v, err := semver.NewVersion(r); err == nil && c.Check(v) {
			return r, true
		}
	}
	return f.Releases[0], false
}

// Decoding is how the linked release reads its input; ok is false when
// no recorded decoding covers it (an older release, or no function).
func (l Link) Decoding() (functions.Decoding, bool) {
	if l.Fn == nil {
		return functions.Decoding{}, false
	}
	for _, d := range l.Fn.Decodings {
		if atLeast(l.Release, d.Since) {
			return d, true
		}
	}
	return functions.Decoding{}, false
}

// Rules are the linked release's rules.
func (l Link) Rules() []functions.Rule {
	if l.Fn == nil {
		return nil
	}
	var out []functions.Rule
	for _, r := range l.Fn.Rules {
		if atLeast(l.Release, r.Since) && (r.Until == "" || !atLeast(l.Release, r.Until)) {
			out = append(out, r)
		}
	}
	return out
}

// Name is the linked function's name for messages, with the release
// judged when the workspace pins it.
func (l Link) Name() string {
	if l.Fn == nil {
		return l.Ref.Package[strings.LastIndex(l.Ref.Package, "/")+1:]
	}
	if l.Pinned && l.Release != "" {
		return l.Fn.Name + " " + l.Release
	}
	return l.Fn.Name
}

// atLeast says whether release r is since or later ("" since: always;
// "" or unparsable r: only then).
func atLeast(r, since string) bool {
	if since == "" {
		return true
	}
	rv, err := semver.NewVersion(r)
	if err != nil {
		return false
	}
	sv, err := semver.NewVersion(since)
	if err != nil {
		return false
	}
	return !rv.LessThan(sv)
}
