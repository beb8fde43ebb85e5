package loader

import (
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Which Kubernetes minor's built-in schemas a World's stores hold: the
// setting (Config.KubernetesVersion), else the configured cluster's server
// version (its snapshot, cached or fresh), else the newest built in
// (workspace.ChooseKubernetes).

// KubernetesChoice is the built-in Kubernetes minor the World's stores
// hold, with the note to show the user once when it is not what was asked
// for.
func (w *World) KubernetesChoice() workspace.KubernetesChoice { return w.kube }

// chooseKubernetes sets w.kube from the setting and the cluster's version.
func (w *World) chooseKubernetes() {
	w.kube = workspace.ChooseKubernetes(w.cfg.KubernetesVersion, w.kubernetesVersion())
}

// builtins is the built-in store of a Crossplane major at the World's
// Kubernetes minor.
func (w *World) builtins(major int) *schemas.Store {
	st, err := workspace.BuiltinsFor(major, w.kube.Minor)
	if err != nil || st == nil {
		return schemas.NewStore()
	}
	return st
}

// rebuildForCluster re-chooses the minor after the cluster's version
// changed and, if the choice moved, rebuilds every store on the new
// built-ins.
func (w *World) rebuildForCluster() {
	before := w.kube.Minor
	w.chooseKubernetes()
	if w.kube.Minor == before {
		return
	}
	inputs := w.inputs()
	stores := make(map[int]*schemas.Store, len(w.stores))
	for m := range w.stores {
		stores[m] = w.builtins(m).WithFiles(inputs)
	}
	w.stores = stores
}
