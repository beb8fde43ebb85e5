// Command gen writes rules.json, the declarative validation rules of
// k8s.io/api's built-in kinds (see internal/k8srules/internal/extract),
// from the module cache (or the Go module proxy): go generate in
// internal/k8srules.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/crd-lsp/crd-lsp/internal/k8srules/internal/extract"
)

func main() {
	out := flag.String("out", "rules.json", "file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	b, err := extract.Generate()
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
