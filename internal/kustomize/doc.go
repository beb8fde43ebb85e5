// Package kustomize builds kustomizations with kustomize's own library
// (sigs.k8s.io/kustomize/api/krusty) over a read-only view of the
// workspace, and says, for a field of an object a build made, which file
// and line wrote it: the base that declared it, the patch (strategic
// merge or JSON 6902, in a file or inline) that set it, the generator
// that made the object, the transformer setting of the kustomization that
// changed it, else the kustomization entry that brought the object in.
//
// Nothing is executed or fetched unless asked: a plan of every
// kustomization a build reaches is read first (plan.go), and a build that
// would fetch a remote base (kustomize clones with git, or reads a URL),
// inflate a Helm chart (kustomize runs helm) or run a plugin or KRM
// function is not run: it is a positioned problem saying why. Asked
// (Source.AllowRemote, Source.Helm), remote git bases are cloned with the
// user's git into a temporary folder removed after the build, git killed
// past Limits.FetchTimeout (remote.go), and helmCharts whose charts are
// in their chart home are inflated by the user's helm. Builds are bounded
// (time, bytes read, objects and bytes made, depth of bases) and never
// write into the workspace: the file system kustomize sees refuses every
// write (source.go).
//
// Only this package imports sigs.k8s.io/kustomize.
package kustomize
