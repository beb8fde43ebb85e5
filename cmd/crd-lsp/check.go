// This file defines crd-lsp check: its flags, its JSON output types, and the
// gather step (gatherCheck) before check_stream.go analyses and prints.

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/overlays"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
	"github.com/spf13/pflag"
)

const checkUsage = `Usage: crd-lsp check [flags] PATH...

Validates every YAML file among PATH (files, folders searched recursively, or
"-" for stdin) the way the API server and Crossplane would. CRDs and XRDs
found in the folders given, in --schemas folders, the packages crossplane.yaml
files in those folders depend on (from the cache "crd-lsp pull" fills; check
itself never goes to the network for them), and the built-in Kubernetes, Crossplane
and function schemas are all used. Compositions are checked, rendered (with
example XRs or claims found among the files, else the smallest XR their XRD
accepts) and what they create is validated too. Pipeline steps run
crd-lsp's own function-patch-and-transform; other functions run only when
configured, as crossplane render runs them (--functions, --function-exe;
--functions-from-packages runs a Function's own program from the runtime
image its package embeds, pulled into the package cache: Linux, no
Docker), else they pass the desired state through, noted.

Output: one line per problem, file:line:col: severity: message [code]
(1-based line and byte column), then a summary. Hints (such as a
deprecated but still supported form) are shown in the editor only. Exit status: 0 when no error
was found, 1 when any error was found, 2 for usage errors.

Flags:
`

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
func (l *stringList) Type() string       { return "string" }

type checkOptions struct {
	schemaDirs  stringList
	output      string
	unknownKind string
	compMode    string
	cacheDir    string
	crossplane  string
	kubernetes  string
	logLevel    string
	clientKinds stringList
	uptest      bool
	functions   functionOptions
	catalogs    catalogOptions
	cluster     clusterSourceOptions // --cluster, --context, --kubeconfig (cluster_source.go)
	crds        stringList
	insecure    stringList
	pipeline    clusterOptions // --extra-resources, --context-files (cluster.go), as render takes them
	// kustomize builds the kustomizations (--kustomize, default on);
	// kustomizations names more to build (--kustomization).
	kustomize      bool
	kustomizations stringList
	// kustomizeRemote fetches remote bases with the user's git
	// (--kustomize-remote); kustomizeHelm inflates helmCharts with
	// helmCommand (--kustomize-helm, --helm-command). Both off unless
	// asked.
	kustomizeRemote bool
	kustomizeHelm   bool
	helmCommand     string
}

// overlaySettings are the flags' kustomize settings.
func (o checkOptions) overlaySettings(named []string) overlays.Settings {
	s := overlays.Settings{Named: named, AllowRemote: o.kustomizeRemote}
	if o.kustomizeHelm {
		s.Helm = o.helmCommand
		if s.Helm == "" {
			s.Helm = "helm"
		}
	}
	return s
}

func checkFlags(out io.Writer, opts *checkOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.Var(&opts.schemaDirs, "schemas", "folder or file of extra CRDs/XRDs (repeatable)")
	fs.StringVar(&opts.output, "output", "text", "output format: text, json, sarif (SARIF 2.1.0, for code scanning) or github (workflow annotations; the default when GITHUB_ACTIONS=true)")
	fs.StringVar(&opts.unknownKind, "unknown-kind", "warning", "severity for kinds no schema defines: error, warning, info or ignore")
	fs.StringVar(&opts.cacheDir, "cache-dir", "", "package cache filled by crd-lsp pull (default: the user cache folder)")
	fs.StringVar(&opts.compMode, "composition-mode", "warn", "schema-aware Composition validation mode where no annotation says: warn, loose or strict")
	fs.StringVar(&opts.crossplane, "crossplane-version", "", "Crossplane version (v1 or v2) targeted where no crossplane.yaml says (default v2)")
	kubernetesVersionFlag(fs, &opts.kubernetes)
	fs.StringVar(&opts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	fs.Var(&opts.clientKinds, "client-kind", "a client-side configuration kind not to validate, besides the built-in ones (Kustomization and the like): an API group, or Kind.group (repeatable)")
	fs.BoolVar(&opts.uptest, "uptest-placeholders", false, "validate uptest's template variables (${Rand.RFC1123Subdomain}, ${data.…}) as the values uptest substitutes")
	opts.functions.register(fs)
	opts.catalogs.register(fs)
	opts.cluster.register(fs)
	opts.pipeline.register(fs, false)
	fs.Var(&opts.crds, "crds", "CRDs to use from a URL (a release's *.crds.yaml) or a Helm chart in an OCI registry (oci://HOST/REPO/CHART:VERSION: its crds/ folder and plain CRD templates); read and cached by digest, the cached copy used when unreachable (repeatable)")
	fs.Var(&opts.insecure, "insecure", "registry HOST:PORT to use over plain HTTP, for --crds and --functions-from-packages (repeatable)")
	fs.BoolVar(&opts.kustomize, "kustomize", true, "build each kustomization that no other uses as a base (and those --kustomization names) with kustomize's library, and validate what it builds, each finding on the line that wrote it (remote bases and Helm charts are not built unless --kustomize-remote, --kustomize-helm; plugins never); --kustomize=false checks files only as written")
	fs.Var(&opts.kustomizations, "kustomization", "a kustomization (its file or folder) to build besides those no other kustomization uses as a base (repeatable)")
	fs.BoolVar(&opts.kustomizeRemote, "kustomize-remote", false, "build kustomizations with remote bases: clone them with your git (within 30 s, into a temporary folder removed after the build)")
	fs.BoolVar(&opts.kustomizeHelm, "kustomize-helm", false, "build kustomizations with helmCharts: inflate them with your helm (--helm-command), the charts already in their chartHome")
	fs.StringVar(&opts.helmCommand, "helm-command", "helm", "the helm program --kustomize-helm runs (a path, or a name on PATH)")
	return fs
}

type checkedFile struct {
	Path string `json:"path"`
	// PathEscaped: Path is not UTF-8 and is written escaped (jsonPath).
	PathEscaped bool             `json:"pathEscaped,omitempty"`
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
}

type jsonDiagnostic struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity"`
	Code      string `json:"code,omitempty"`
	Message   string `json:"message"`
	// Field is the field path the finding concerns, as the API server
	// names it (spec.listeners[2].port); absent for findings about no field.
	Field string `json:"field,omitempty"`
}

type summary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// unpulled counts the findings that name dependencies not in the
	// package cache (a kind or function they may define).
	unpulled int
}

// check gathers the files and the workspace they belong to, then analyses
// the files on all cores, writing each one's findings as it is done, in
// path order (see streamCheck).
func check(opts *checkOptions, paths []string, stdin io.Reader, stdout, stderr io.Writer, usage func()) int {
	cfg, err := opts.config()
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "crd-lsp check: no PATH given")
		usage()
		return 2
	}
	log, err := newLogger(stderr, opts.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	pipeline, reg, err := opts.functions.pipeline(log, stderr, cfg.Packages)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	if reg != nil {
		defer reg.Close()
		cfg.Analysis.Pipeline = pipeline
	}
	// The built-in schemas of the Crossplane major the setting targets are
	// loaded (once per process) while the files are read: the World needs
	// them next.
	major, ok := workspace.ParseMajor(cfg.CrossplaneVersion)
	if !ok {
		major = workspace.DefaultCrossplaneMajor
	}
	go func() {
		_, _ = workspace.BuiltinsFor(major, workspace.ChooseKubernetes(cfg.KubernetesVersion, "").Minor)
	}()
	named, err := namedKustomizations(opts.kustomizations)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	world, files, err := gatherCheck(context.Background(), cfg, append(paths, named...), stdin, log, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	kubernetesNote(world, "check", stderr)
	if reg != nil && opts.functions.fromPkgs {
		// The Functions the files' Compositions run from their packages
		// are pulled before the analyses, so that no call's time limit
		// pays for a pull.
		opts.functions.addWorkspace(reg, world)
		reg.Prepare(context.Background(), stepFunctions(files))
	}
	var built *overlays.Result
	if opts.kustomize {
		var folders []string // (the folders among the paths, as gatherCheck scans them)
		for _, p := range paths {
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				folders = append(folders, p)
			}
		}
		built = buildOverlays(context.Background(), world, files, folders, opts.overlaySettings(named))
	}
	sum := streamCheck(context.Background(), world, files, built, log, stdout, opts.output, func() []jsonPackageRun { return jsonPackageRuns(reg) })
	for _, line := range packageRunLines(reg) {
		fmt.Fprintln(stderr, "crd-lsp check:", printable(line))
	}
	notCachedNotice(world, sum, stderr)
	if sum.Errors > 0 {
		return 1
	}
	return 0
}

// namedKustomizations are the kustomization files --kustomization names
// (a file, or the folder holding one): checked and built with the rest.
func namedKustomizations(named []string) ([]string, error) {
	var out []string
	for _, n := range named {
		info, err := os.Stat(n)
		if err != nil {
			return nil, fmt.Errorf("--kustomization: %w", err)
		}
		if !info.IsDir() {
			if !workspace.IsKustomization(n) {
				return nil, fmt.Errorf("--kustomization %s: not a kustomization.yaml, kustomization.yml or Kustomization", n)
			}
			out = append(out, n)
			continue
		}
		found := ""
		for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if _, err := os.Stat(filepath.Join(n, name)); err == nil && found == "" {
				found = filepath.Join(n, name)
			}
		}
		if found == "" {
			return nil, fmt.Errorf("--kustomization %s: the folder holds no kustomization.yaml, kustomization.yml or Kustomization", n)
		}
		out = append(out, found)
	}
	return out, nil
}

// buildOverlays builds the workspace's kustomizations (those no other
// uses as a base, and the named ones) and validates what they build
// (internal/overlays), reading the files as check read them; findings on
// files check does not print are shown on the kustomization's entry.
// Overlays are named by their folder relative to the folder given that
// holds them.
func buildOverlays(ctx context.Context, world *loader.World, files loader.Files, roots []string, settings overlays.Settings) *overlays.Result {
	texts := make(map[string][]byte, len(files))
	for _, f := range files {
		texts[f.Path] = f.Content
	}
	name := func(k string) string {
		dir := filepath.Dir(k)
		for _, r := range roots {
			if rel, err := filepath.Rel(r, dir); err == nil && workspace.IsUnder(r, dir) {
				if rel == "." {
					return r
				}
				return filepath.ToSlash(rel)
			}
		}
		return dir
	}
	res, _ := overlays.NewBuilder().Run(ctx, overlays.Request{
		World: world, Texts: texts, MaxFileSize: workspace.DefaultMaxFileSize,
		Settings: settings,
		Env:      world.Env, EnvKey: world, Name: name,
		Shown: func(p string) bool { _, ok := texts[p]; return ok },
	}, "")
	return res
}

// config validates the flags and turns them into a loader configuration.
func (o checkOptions) config() (loader.Config, error) {
	var cfg loader.Config
	if !validOutput(o.output) {
		return cfg, fmt.Errorf("--output must be %s, not %q", strings.Join(outputFormats, ", "), o.output)
	}
	unknown, ok := severity.Parse(o.unknownKind)
	if !ok && o.unknownKind != "ignore" && o.unknownKind != "off" && o.unknownKind != "none" {
		return cfg, fmt.Errorf("--unknown-kind must be error, warning, info or ignore, not %q", o.unknownKind)
	}
	mode, ok := composition.ParseMode(o.compMode)
	if !ok {
		return cfg, fmt.Errorf("--composition-mode must be warn, loose or strict, not %q", o.compMode)
	}
	if err := kubernetesVersion(o.kubernetes); err != nil {
		return cfg, err
	}
	cfg.SchemaDirs = o.schemaDirs
	cfg.CrossplaneVersion = o.crossplane
	cfg.KubernetesVersion = o.kubernetes
	cfg.KeepAll = true
	cfg.Options = workspace.Options{MaxFileSize: 10 << 20}
	cfg.Analysis = loader.AnalysisSettings{UnknownKind: unknown, CompositionMode: mode, ClientKinds: o.clientKinds, UptestPlaceholders: o.uptest}
	cluster, err := o.pipeline.read()
	if err != nil {
		return cfg, err
	}
	cfg.Analysis.Cluster = cluster
	c, err := packages.New(packages.Options{CacheDir: o.cacheDir, Insecure: o.insecure})
	if err != nil {
		return cfg, fmt.Errorf("package cache: %w", err)
	}
	cfg.Packages = c
	cfg.CRDSources = o.crds
	if cfg.Catalog, err = o.catalogs.catalog(); err != nil {
		return cfg, err
	}
	if cfg.ClusterSource, err = o.cluster.source(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// gatherCheck loads the workspace: folders are scanned (their CRDs/XRDs,
// crossplane.yaml dependencies from the package cache, example
// composites), named files and stdin are read. It returns the World and
// every file to check, sorted by path.
func gatherCheck(ctx context.Context, cfg loader.Config, paths []string, stdin io.Reader, log *slog.Logger, stderr io.Writer) (*loader.World, loader.Files, error) {
	usedStdin := false
	for _, p := range paths {
		if p == "-" {
			if usedStdin {
				continue
			}
			usedStdin = true
			b, err := io.ReadAll(io.LimitReader(stdin, workspace.DefaultMaxFileSize+1))
			if err == nil && len(b) > workspace.DefaultMaxFileSize {
				err = fmt.Errorf("more than the %s limit", workspace.Size(workspace.DefaultMaxFileSize))
			}
			if err != nil {
				return nil, nil, fmt.Errorf("reading stdin: %w", err)
			}
			cfg.Files = append(cfg.Files, workspace.File{Path: "<stdin>", Content: b})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if info.IsDir() {
			cfg.Roots = append(cfg.Roots, p)
			continue
		}
		b, err := workspace.ReadFile(p, workspace.DefaultMaxFileSize)
		if err != nil {
			return nil, nil, err
		}
		cfg.Files = append(cfg.Files, workspace.File{Path: p, Content: b})
	}
	world, files, skipped, err := loader.Load(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range skipped {
		log.Warn("skipped", "file", s.Path, "reason", s.Reason)
	}
	// The sources check fetches (--crds, --cluster, --catalog), in rank
	// order; a source that cannot be read serves its cached copy.
	world = loader.FetchForCheck(ctx, world, func(problem string) { fmt.Fprintf(stderr, "crd-lsp check: %s\n", problem) })
	return world, files, nil
}

// notCachedNotice says, in one line, that dependencies the package cache
// lacks left findings open (check itself stays offline): nothing when
// every kind the files use came from the workspace or --schemas.
func notCachedNotice(world *loader.World, sum summary, stderr io.Writer) {
	if sum.unpulled == 0 {
		return
	}
	var deps []string
	for _, m := range world.Metas() {
		for _, r := range world.Results(m.Path) {
			if r.Package == nil && packages.KindOf(r.Err) == packages.KindNotCached {
				deps = append(deps, printable(r.Dep.Name))
			}
		}
	}
	if len(deps) == 0 {
		return
	}
	list := strings.Join(deps[:min(len(deps), 3)], ", ")
	if len(deps) > 3 {
		list += fmt.Sprintf(" and %d more", len(deps)-3)
	}
	fmt.Fprintf(stderr, "crd-lsp check: %d %s not in the package cache (%s): %d %s may come from them; run crd-lsp pull\n",
		len(deps), plural(len(deps), "dependency is", "dependencies are"), list, sum.unpulled, plural(sum.unpulled, "finding names a kind that", "findings name kinds that"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
