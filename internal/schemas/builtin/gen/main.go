// Command gen builds the embedded schema bundles of package builtin (the
// files under data/): the OpenAPI v3 documents of the k8s.io/kubernetes
// module of each built-in Kubernetes minor (generate.KubernetesReleases,
// fetched with `go mod download`) become one CRD per top-level kind;
// Crossplane core CRDs and composition-function input CRDs are copied
// verbatim from the shared corpus. Output is deterministic, so
// regenerating changes nothing unless the inputs changed. Run it through
// go generate in package builtin:
//
//	go generate ./internal/schemas/builtin/
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin/internal/generate"
)

func main() {
	corpus := flag.String("corpus", "../../../../shared/corpus", "path of the shared corpus (the folder holding crds/)")
	out := flag.String("out", "data", "output folder")
	flag.Parse()
	dirs, err := generate.ModuleDirs(context.Background())
	if err == nil {
		err = generate.Run(*corpus, dirs, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
