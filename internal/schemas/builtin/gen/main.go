// Command gen builds the embedded schema bundle of package builtin (the
// files under data/) from the shared corpus: Kubernetes OpenAPI v3
// documents become one CRD per top-level kind; Crossplane core CRDs and
// composition-function input CRDs are copied verbatim. Output is
// deterministic, so regenerating changes nothing unless the inputs
// changed. Run it through go generate in package builtin:
//
//	go generate ./internal/schemas/builtin/
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin/internal/generate"
)

func main() {
	corpus := flag.String("corpus", "../../../../shared/corpus", "path of the shared corpus (the folder holding crds/)")
	out := flag.String("out", "data", "output folder")
	flag.Parse()
	if err := generate.Run(*corpus, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
