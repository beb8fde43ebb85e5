// This file defines crd-lsp pull: gather the crossplane.yaml files, resolve
// and pull their dependencies into the package cache, print the packages and
// problems.

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
	"github.com/spf13/pflag"
)

const pullUsage = `Usage: crd-lsp pull [flags] [DIR]

Finds the crossplane.yaml files (and Crossplane CLI and Upbound project
files, crossplane-project.yaml and upbound.yaml) under DIR (default ".", or
DIR itself when it is a file), resolves every package they depend on (and, transitively,
what Configurations depend on) against the registries, and pulls them into
the package cache that the language server reads. Run it in CI, or once
before working offline.

Output: one line per package (reference, version, digest, definitions, and
whether it came from the cache or the registry), then problems as
file:line:col: severity: message [kind]. Credentials come from the Docker
config (DOCKER_CONFIG or ~/.docker/config.json, credential helpers included).
A registry may stay silent for --timeout (before it answers, or in the
middle of a layer), and each package's pull takes at most --pull-timeout.
Exit status: 0 when every dependency resolved (a registry that cannot be
reached while the cache still has the package is a warning), 1 when any
failed, 2 for usage errors, 130 when interrupted.

Flags:
`

type pullOptions struct {
	cacheDir   string
	defaultReg string
	insecure   stringList
	quiet      bool
	logLevel   string
	timeouts   packages.Timeouts
}

func pullFlags(out io.Writer, opts *pullOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("pull", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&opts.cacheDir, "cache-dir", "", "package cache folder (default: the user cache folder/crd-lsp/packages)")
	fs.StringVar(&opts.defaultReg, "registry-default", packages.DefaultRegistry, "registry for package names without a host")
	fs.Var(&opts.insecure, "insecure", "registry HOST:PORT to use over plain HTTP (repeatable)")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress messages on stderr")
	fs.StringVar(&opts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	fs.DurationVar(&opts.timeouts.Answer, "timeout", 30*time.Second, "how long a registry may stay silent (before it answers, or in the middle of a layer)")
	fs.DurationVar(&opts.timeouts.Pull, "pull-timeout", 5*time.Minute, "how long one package's pull may take in all (tags, manifests, layer)")
	return fs
}

// pull gathers the crossplane.yaml files under the folder, then, for each
// in turn, resolves its dependencies into the cache (analyse) and prints
// the packages as they come and, at the end, the problems and a summary.
func pull(opts *pullOptions, args []string, stdout, stderr io.Writer, usage func()) int {
	if len(args) > 1 {
		fmt.Fprintln(stderr, "crd-lsp pull: want at most one DIR")
		usage()
		return 2
	}
	if opts.timeouts.Answer <= 0 || opts.timeouts.Pull <= 0 {
		fmt.Fprintln(stderr, "crd-lsp pull: --timeout and --pull-timeout must be positive")
		return 2
	}
	if opts.timeouts.Answer < 10*time.Second {
		opts.timeouts.Connect = opts.timeouts.Answer
	}
	root := "."
	if len(args) == 1 {
		root = args[0]
	}
	log, err := newLogger(stderr, opts.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp pull:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	metas, client, err := gatherPull(ctx, opts, root, log, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp pull:", err)
		return 2
	}
	rep := pullReport{printed: map[string]bool{}}
	for _, m := range metas {
		results, diags := pullMeta(ctx, client, m)
		rep.add(stdout, m, results, diags)
	}
	rep.finish(stdout, len(metas))
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "crd-lsp pull: interrupted; the cache keeps what was pulled before")
		return 130
	}
	if rep.failed > 0 {
		return 1
	}
	return 0
}

// gatherPull finds the crossplane.yaml files under root (as check and the
// editor find them) and opens the package cache.
func gatherPull(ctx context.Context, opts *pullOptions, root string, log *slog.Logger, stderr io.Writer) ([]*packages.Meta, *packages.Client, error) {
	metas, skipped, err := loader.FindMetas(ctx, []string{root}, workspace.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, sk := range skipped {
		log.Info("skipped", "file", sk.Path, "reason", sk.Reason)
	}
	if len(metas) == 0 {
		return nil, nil, fmt.Errorf("no crossplane.yaml, crossplane-project.yaml or upbound.yaml under %s", root)
	}
	popts := packages.Options{
		CacheDir:        opts.cacheDir,
		DefaultRegistry: opts.defaultReg,
		Insecure:        opts.insecure,
		Timeouts:        opts.timeouts,
		Logf:            func(format string, args ...any) { log.Debug(fmt.Sprintf(format, args...)) },
	}
	if !opts.quiet {
		popts.Progress = func(p packages.Progress) { fmt.Fprintln(stderr, printable(p.Message)) }
	}
	client, err := packages.New(popts)
	if err != nil {
		return nil, nil, err
	}
	return metas, client, nil
}

// pullMeta resolves m's dependencies (pulling what the cache lacks) and
// returns what the editor and check would say of m, sorted by position
// (hints aside: they are for the editor).
func pullMeta(ctx context.Context, client *packages.Client, m *packages.Meta) ([]packages.Result, []analysis.Diagnostic) {
	var results []packages.Result
	if len(m.Deps) > 0 {
		results = client.Resolve(ctx, m.Deps)
	}
	diags := loader.PackageProblems(m, results, true)
	for _, pr := range m.Problems {
		if pr.Syntax { // (check and the editor have them from the document's own diagnostics)
			diags = append(diags, analysis.Diagnostic{Span: document.Span{Start: pr.Offset, End: max(pr.End, pr.Offset)}, Severity: pr.Severity, Code: "yaml-syntax", Message: pr.Message})
		}
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	kept := diags[:0]
	for _, d := range diags {
		if d.Severity <= severity.Warning {
			kept = append(kept, d)
		}
	}
	return results, kept
}

// pullReport prints each package once, as it is resolved, and keeps the
// problems for the end.
type pullReport struct {
	printed          map[string]bool // ref@digest
	problems         []string
	failed, warnings int
}

func (r *pullReport) add(stdout io.Writer, m *packages.Meta, results []packages.Result, diags []analysis.Diagnostic) {
	for _, res := range results {
		if p := res.Package; p != nil {
			key := p.Ref + "@" + p.Digest
			if !r.printed[key] {
				r.printed[key] = true
				fmt.Fprintln(stdout, packageLine(p))
			}
		}
	}
	for _, d := range diags {
		line, col := m.Pos(d.Span.Start)
		r.problems = append(r.problems, fmt.Sprintf("%s:%d:%d: %s: %s [%s]", printable(m.Path), line, col, d.Severity, printable(d.Message), d.Code))
		if d.Severity == severity.Error {
			r.failed++
		} else {
			r.warnings++
		}
	}
}

// finish prints the problems and the summary line.
func (r *pullReport) finish(stdout io.Writer, metas int) {
	for _, p := range r.problems {
		fmt.Fprintln(stdout, p)
	}
	n := len(r.printed)
	fmt.Fprintf(stdout, "%d %s in %d %s: %d %s, %d %s\n", n, plural(n, "package", "packages"),
		metas, plural(metas, "crossplane.yaml", "crossplane.yaml files"),
		r.failed, plural(r.failed, "error", "errors"), r.warnings, plural(r.warnings, "warning", "warnings"))
}

// packageLine: "ref version digest12 definitions (cache|registry)".
func packageLine(p *packages.Package) string {
	var defs []string
	for _, k := range []struct{ kind, one, many string }{
		{"CustomResourceDefinition", "CRD", "CRDs"},
		{"CompositeResourceDefinition", "XRD", "XRDs"},
		{"ManagedResourceDefinition", "MRD", "MRDs"},
		{"Composition", "Composition", "Compositions"},
	} {
		if n := p.Count(k.kind); n > 0 {
			defs = append(defs, fmt.Sprintf("%d %s", n, plural(n, k.one, k.many)))
		}
	}
	if len(defs) == 0 {
		defs = []string{"no definitions"}
	}
	from := "registry"
	if p.FromCache {
		from = "cache"
	}
	d := p.Digest
	if _, h, ok := strings.Cut(d, ":"); ok && len(h) > 12 {
		d = h[:12]
	}
	return fmt.Sprintf("%s %s %s %s %s (%s)", p.Ref, p.Version, d, p.Kind, strings.Join(defs, ", "), from)
}
