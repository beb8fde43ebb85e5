package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/jsonschema"
	"github.com/crd-lsp/crd-lsp/bench/workload"
)

// gen writes the workloads unless the folder already holds the ones this
// very binary would write (same executable, same corpus folders).
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	work := fs.String("work", "", "output folder (a cache or temp folder; never commit it)")
	corpus := fs.String("corpus", "", "the shared corpus folder (../shared/corpus)")
	force := fs.Bool("force", false, "regenerate even when up to date")
	_ = fs.Parse(args)
	if *work == "" || *corpus == "" {
		return fmt.Errorf("-work and -corpus are required")
	}
	o := workload.Options{
		Full:    filepath.Join(*corpus, "crds/provider-aws-full/v2.6.0/crds"),
		Subset:  filepath.Join(*corpus, "crds/providers/provider-upjet-aws-subset/v2.6.0/crds"),
		Out:     *work,
		Convert: convertCRD,
	}
	stamp, err := genStamp(o)
	if err != nil {
		return err
	}
	if m, err := workload.ReadManifest(*work); err == nil && m.Stamp == stamp && !*force {
		fmt.Printf("# workloads up to date in %s\n", *work)
		return nil
	}
	start := time.Now()
	m, err := workload.Generate(o, stamp)
	if err != nil {
		return err
	}
	fmt.Printf("# workloads generated in %s (%s): %d kinds from %s\n", *work, secs(time.Since(start)), len(m.Kinds), o.Subset)
	for _, w := range m.Workloads {
		fmt.Printf("#   %-20s %6d documents in %5d files\n", w.Name, w.Docs, w.Files)
	}
	return nil
}

// genStamp identifies the generator (this executable's bytes) and its
// inputs, so a changed generator regenerates.
func genStamp(o workload.Options) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	fmt.Fprintf(h, "\x00%s\x00%s", o.Full, o.Subset)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// convertCRD writes a CRD file's JSON Schemas under outDir.
func convertCRD(crdFile, outDir string) error {
	crd, err := workload.ReadCRD(crdFile)
	if err != nil {
		return fmt.Errorf("%s: %w", crdFile, err)
	}
	files, err := jsonschema.Convert(crd)
	if err != nil {
		return fmt.Errorf("%s: %w", crdFile, err)
	}
	for rel, b := range files {
		p := filepath.Join(outDir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
