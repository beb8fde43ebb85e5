// This file defines crd-lsp render: gather the Composition file and its
// workspace, render each Composition, print the YAML and the notes.

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
	"github.com/spf13/pflag"
)

const renderUsage = `Usage: crd-lsp render [flags] COMPOSITION.yaml

Renders what a Composition creates, like "crossplane render" but without
Docker or a cluster: function-patch-and-transform steps (and classic
mode: Resources Compositions) and function-go-templating steps (templates
inline, from the environment, or from a folder next to the Composition)
run in-process; other functions run when configured (--functions FILE
takes the same file as crossplane render: Functions with the
render.crossplane.io/runtime: Development annotation run at their target;
--function-exe NAME=PATH starts a local function;
--functions-from-packages pulls a Function's package, with the runtime
image it embeds, and runs the function's own program on this machine,
Linux only, no Docker; a configured function-go-templating runs for
real), else they pass the desired state through and are reported. Prints the
desired composite resource and the composed resources of the whole
pipeline as YAML; notes and function results go to stderr.

The composite comes from --xr, else it is synthesised from the XRD: its
required fields with placeholders, defaults applied, optional fields unset.
function-environment-configs steps run in-process too, from the
EnvironmentConfigs of --extra-resources, else the workspace's nearest the
Composition; --context KEY=FILE starts the pipeline's context.
Schemas: the built-ins, --schemas, the CRDs/XRDs under the folder of the
nearest crossplane.yaml (else the Composition's folder), and the packages
its crossplane.yaml files depend on, as far as the cache holds them (crd-lsp
pull fills it).

Flags:
`

type renderOptions struct {
	xr         string
	schemaDirs stringList
	crossplane string
	kubernetes string
	functions  functionOptions
	insecure   stringList
	logLevel   string
	cluster    clusterOptions // --extra-resources, --context (cluster.go)
}

func renderFlags(out io.Writer, opts *renderOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("render", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&opts.xr, "xr", "", "the composite resource (XR) to render with (default: synthesised from the XRD)")
	fs.Var(&opts.schemaDirs, "schemas", "folder or file of extra CRDs/XRDs (repeatable)")
	fs.StringVar(&opts.crossplane, "crossplane-version", "", "Crossplane version (v1 or v2) where no crossplane.yaml says (default v2)")
	kubernetesVersionFlag(fs, &opts.kubernetes)
	fs.StringVar(&opts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	opts.functions.register(fs)
	fs.Var(&opts.insecure, "insecure", "registry HOST:PORT to use over plain HTTP, for --functions-from-packages (repeatable)")
	opts.cluster.register(fs, true)
	return fs
}

// renderRun gathers the Composition file and the workspace it belongs to,
// renders each Composition in it, then prints the renderings (YAML on
// stdout, notes on stderr).
func renderRun(opts *renderOptions, args []string, stdout, stderr io.Writer, usage func()) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "crd-lsp render: want exactly one COMPOSITION.yaml")
		usage()
		return 2
	}
	if err := kubernetesVersion(opts.kubernetes); err != nil {
		fmt.Fprintln(stderr, "crd-lsp render:", err)
		return 2
	}
	ctx := context.Background()
	log, err := newLogger(stderr, opts.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp render:", err)
		return 2
	}
	// The package cache: packages crossplane.yaml depends on (read, never
	// pulled) and, with --functions-from-packages, the Functions' own.
	pkgs, perr := packages.New(packages.Options{Insecure: opts.insecure})
	if perr != nil {
		log.Debug("no package cache", "error", perr)
		pkgs = nil
	}
	pipeline, reg, err := opts.functions.pipeline(log, stderr, pkgs)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp render:", err)
		return 2
	}
	var fns analysis.Pipeline // nil, not a nil *functions.Pipeline, when no function is configured
	if reg != nil {
		defer reg.Close()
		fns = pipeline
	}
	job, err := gatherRender(ctx, opts, args[0], fns, pkgs)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp render:", err)
		return 2
	}
	if reg != nil && opts.functions.fromPkgs {
		// The Functions the Composition's steps run from their packages
		// are pulled before it renders, so that no call's time limit pays
		// for a pull.
		opts.functions.addWorkspace(reg, job.world)
		reg.Prepare(ctx, job.stepFunctions())
	}
	docs := job.analyse(ctx)
	for _, line := range packageRunLines(reg) {
		fmt.Fprintln(stderr, "crd-lsp render:", printable(line))
	}
	return printRender(job, docs, stdout, stderr)
}

// renderJob is what render gathered: the Composition file, its Env in the
// workspace, and the composite to render with (nil: synthesised).
type renderJob struct {
	path  string
	file  *document.File
	env   analysis.Env
	xr    map[string]any
	world *loader.World
}

// stepFunctions are the functions the file's Compositions' steps name.
func (j renderJob) stepFunctions() []string {
	return stepsOf(j.file.Docs)
}

// gatherRender reads the Composition file and loads its workspace: the
// folder of the nearest crossplane.yaml (else the Composition's),
// --schemas, the Composition itself and cached packages; then --xr.
func gatherRender(ctx context.Context, opts *renderOptions, path string, pipeline analysis.Pipeline, pkgs *packages.Client) (renderJob, error) {
	text, err := workspace.ReadFile(path, workspace.DefaultMaxFileSize)
	if err != nil {
		return renderJob{}, err
	}
	root := filepath.Dir(path)
	if dir, ok := loader.PackageRoot(path); ok {
		root = dir
	}
	cfg := loader.Config{Roots: []string{root}, SchemaDirs: opts.schemaDirs, CrossplaneVersion: opts.crossplane, KubernetesVersion: opts.kubernetes,
		Files: []workspace.File{{Path: path, Content: text}}}
	cfg.Analysis.Pipeline = pipeline
	if cfg.Analysis.Cluster, err = opts.cluster.read(); err != nil {
		return renderJob{}, err
	}
	if pkgs != nil {
		cfg.Packages = pkgs
	}
	world, _, _, err := loader.Load(ctx, cfg)
	if err != nil {
		return renderJob{}, err
	}
	job := renderJob{path: path, file: document.Parse(path, 0, text), env: world.Env(path), world: world}
	if opts.xr != "" {
		b, err := workspace.ReadFile(opts.xr, workspace.DefaultMaxFileSize)
		if err != nil {
			return renderJob{}, fmt.Errorf("--xr: %w", err)
		}
		if job.xr = analysis.CompositeIn(opts.xr, b); job.xr == nil {
			return renderJob{}, fmt.Errorf("--xr %s holds no resource that parses (apiVersion, kind, valid YAML)", printable(opts.xr))
		}
	}
	return job, nil
}

// analyse renders each Composition of the file (analysis.RenderFile).
func (j renderJob) analyse(ctx context.Context) []analysis.DocRendering {
	return analysis.RenderFile(ctx, j.file, j.xr, j.env)
}

// printRender prints each rendering's YAML on stdout and its notes on
// stderr, and returns the exit status: 1 when a document failed or a note
// is an error, 2 when the file holds no Composition.
func printRender(j renderJob, docs []analysis.DocRendering, stdout, stderr io.Writer) int {
	path := printable(j.path)
	rendered, failed := 0, false
	for _, r := range docs {
		switch {
		case r.Err != nil:
			fmt.Fprintf(stderr, "%s: %s\n", path, printable(r.Err.Error()))
			failed = true
			continue
		case r.NoXRD:
			ref := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("compositeTypeRef")}
			line, col := r.Doc.LineColOf(ref)
			fmt.Fprintf(stderr, "%s:%d:%d: error: no XRD for the compositeTypeRef: pass its folder with --schemas\n", path, line, col)
			failed = true
			continue
		}
		rendered++
		if r.Rendering.Synthesized {
			fmt.Fprintf(stderr, "%s: rendering with a composite synthesised from the XRD (required fields only; pass --xr for your own)\n", path)
		}
		for _, n := range r.Rendering.Notes {
			line, col := r.Doc.LineColOf(n.Path)
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s [%s]\n", path, line, col, n.Severity, printable(n.Message), n.Code)
			failed = failed || n.Severity == severity.Error
		}
		b, err := r.Rendering.YAML("")
		if err != nil {
			fmt.Fprintln(stderr, "crd-lsp render:", err)
			return 1
		}
		stdout.Write(b)
	}
	if rendered == 0 && !failed {
		fmt.Fprintf(stderr, "crd-lsp render: %s holds no Composition\n", path)
		return 2
	}
	if failed {
		return 1
	}
	return 0
}
