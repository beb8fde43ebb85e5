package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// kubernetesVersionFlag registers --kubernetes-version (check, render).
func kubernetesVersionFlag(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "kubernetes-version", "", fmt.Sprintf("Kubernetes minor whose built-in schemas apply: %s (default: the --cluster's server version, else %s)",
		strings.Join(workspace.KubernetesMinors(), ", "), workspace.KubernetesMinors()[len(workspace.KubernetesMinors())-1]))
}

// kubernetesVersion validates the flag's value: a built-in minor or
// nothing.
func kubernetesVersion(v string) error {
	if strings.TrimSpace(v) == "" || !workspace.ChooseKubernetes(v, "").Invalid {
		return nil
	}
	return fmt.Errorf("--kubernetes-version %q: want one of the built-in Kubernetes minors %s", v, strings.Join(workspace.KubernetesMinors(), ", "))
}

// kubernetesNote says once on stderr why the built-in schemas are not the
// cluster's own minor.
func kubernetesNote(world *loader.World, cmd string, stderr io.Writer) {
	if note := world.KubernetesChoice().Note; note != "" {
		fmt.Fprintf(stderr, "crd-lsp %s: %s\n", cmd, note)
	}
}
