package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

const checkUsage = `Usage: crd-lsp check [flags] PATH...

Validates every YAML file among PATH (files, folders searched recursively, or
"-" for stdin) the way the API server and Crossplane would. CRDs and XRDs
found in the folders given, in --schemas folders, the packages crossplane.yaml
files in those folders depend on (from the cache "crd-lsp pull" fills; check
itself never goes to the network), and the built-in Kubernetes, Crossplane
and function schemas are all used. Compositions are checked, rendered (with
example XRs or claims found among the files, else the smallest XR their XRD
accepts) and what they create is validated too.

Output: one line per problem, file:line:col: severity: message [code]
(1-based line and byte column), then a summary. Hints (such as a
deprecated but still supported form) are shown in the editor only. Exit status: 0 when no error
was found, 1 when any error was found, 2 for usage errors.

Flags:
`

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type checkOptions struct {
	schemaDirs  stringList
	output      string
	unknownKind string
	compMode    string
	cacheDir    string
	crossplane  string
	logLevel    string
	clientKinds stringList
}

var checkOpts checkOptions

func checkFlags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(out)
	checkOpts = checkOptions{}
	fs.Var(&checkOpts.schemaDirs, "schemas", "folder or file of extra CRDs/XRDs (repeatable)")
	fs.StringVar(&checkOpts.output, "output", "text", "output format: text or json")
	fs.StringVar(&checkOpts.unknownKind, "unknown-kind", "warning", "severity for kinds no schema defines: error, warning, info or ignore")
	fs.StringVar(&checkOpts.cacheDir, "cache-dir", "", "package cache filled by crd-lsp pull (default: the user cache folder)")
	fs.StringVar(&checkOpts.compMode, "composition-mode", "warn", "schema-aware Composition validation mode where no annotation says: warn, loose or strict")
	fs.StringVar(&checkOpts.crossplane, "crossplane-version", "", "Crossplane version (v1 or v2) targeted where no crossplane.yaml says (default v2)")
	fs.StringVar(&checkOpts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	fs.Var(&checkOpts.clientKinds, "client-kind", "a client-side configuration kind not to validate, besides the built-in ones (Kustomization and the like): an API group, or Kind.group (repeatable)")
	return fs
}

type checkedFile struct {
	Path        string           `json:"path"`
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
}

type summary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

func check(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := checkFlags(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, checkUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := checkOpts
	if opts.output != "text" && opts.output != "json" {
		fmt.Fprintf(stderr, "crd-lsp check: --output must be text or json, not %q\n", opts.output)
		return 2
	}
	unknown, ok := analysis.ParseSeverity(opts.unknownKind)
	if !ok && opts.unknownKind != "ignore" && opts.unknownKind != "off" && opts.unknownKind != "none" {
		fmt.Fprintf(stderr, "crd-lsp check: --unknown-kind must be error, warning, info or ignore, not %q\n", opts.unknownKind)
		return 2
	}
	if m := opts.compMode; m != "warn" && m != "loose" && m != "strict" {
		fmt.Fprintf(stderr, "crd-lsp check: --composition-mode must be warn, loose or strict, not %q\n", m)
		return 2
	}
	paths := fs.Args()
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "crd-lsp check: no PATH given")
		fs.Usage()
		return 2
	}
	log, err := newLogger(stderr, opts.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	ctx := context.Background()

	// Which files to check, and which folders provide schemas.
	type input struct {
		path    string
		content []byte
	}
	var inputs []input
	var schemaRoots []string
	usedStdin := false
	for _, p := range paths {
		if p == "-" {
			if usedStdin {
				continue
			}
			usedStdin = true
			b, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintln(stderr, "crd-lsp check: reading stdin:", err)
				return 2
			}
			inputs = append(inputs, input{"<stdin>", b})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: %v\n", err)
			return 2
		}
		if !info.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				fmt.Fprintf(stderr, "crd-lsp check: %v\n", err)
				return 2
			}
			inputs = append(inputs, input{p, b})
			continue
		}
		schemaRoots = append(schemaRoots, p)
		files, skipped, err := workspace.Scan(ctx, p, workspace.Options{MaxFileSize: 10 << 20}, nil)
		if err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: %v\n", err)
			return 2
		}
		for _, s := range skipped {
			log.Warn("skipped", "file", s.Path, "reason", s.Reason)
		}
		for _, f := range files {
			inputs = append(inputs, input{f.Path, f.Content})
		}
	}

	// Schemas shared by every input: --schemas folders and the CRDs/XRDs
	// among the inputs. Built-ins are added per Crossplane version below.
	shared, err := schemaFiles(ctx, opts.schemaDirs)
	if err != nil {
		fmt.Fprintf(stderr, "crd-lsp check: --schemas: %v\n", err)
		return 2
	}
	// The packages crossplane.yaml files in the checked folders depend on,
	// as far as the cache has them (crd-lsp pull fills it; check itself
	// stays offline).
	pkgFiles, pkgResults := cachedPackages(schemaRoots, opts.cacheDir, stderr)
	shared = append(shared, pkgFiles...)
	for _, in := range inputs {
		if workspace.MayDefineSchemas(in.content) {
			shared = append(shared, schemas.FileInput{Source: workspace.Source(in.path), Path: in.path, Content: in.content})
		}
	}
	defaultMajor, _ := workspace.CrossplaneMajor(nil, opts.crossplane)
	stores := map[int]*schemas.Store{}
	storeFor := func(major int) (*schemas.Store, error) {
		if st, ok := stores[major]; ok {
			return st, nil
		}
		st, err := workspace.Builtins(major)
		if err != nil {
			return nil, err
		}
		st = st.WithFiles(shared)
		stores[major] = st
		return st, nil
	}

	// Example composites among the inputs: Compositions are rendered with
	// them, as in the editor.
	objects := map[string][]workspace.Header{}
	texts := map[string][]byte{}
	parsed := map[string][]analysis.Example{} // each example file parsed once
	for _, in := range inputs {
		if h := workspace.Headers(in.content); len(h) > 0 {
			objects[in.path] = h
			texts[in.path] = in.content
		}
	}
	examples := func(store *schemas.Store) func(schemas.GVK) []analysis.Example {
		return func(gvk schemas.GVK) []analysis.Example {
			kinds := workspace.ExampleKinds(store, gvk)
			var out []analysis.Example
			for _, p := range workspace.ExamplePaths(objects, kinds) {
				if parsed[p] == nil {
					parsed[p] = analysis.ObjectsIn(p, texts[p])
				}
				if ex, ok := analysis.FirstExample(parsed[p], func(av, k string) bool { return kinds[workspace.Header{APIVersion: av, Kind: k}] }); ok {
					out = append(out, ex)
				}
			}
			return out
		}
	}

	var results []checkedFile
	var sum summary
	for _, in := range inputs {
		// Each file targets the Crossplane version of the crossplane.yaml
		// that governs it, else the flag, else v2.
		major := defaultMajor
		if m, from, ok := workspace.MajorFor(in.path); ok {
			major = m
			log.Debug("targeting Crossplane", "file", in.path, "major", m, "from", from)
		}
		store, err := storeFor(major)
		if err != nil {
			fmt.Fprintln(stderr, "crd-lsp check:", err)
			return 2
		}
		env := analysis.Env{Schemas: store, UnknownKind: unknown, CrossplaneMajor: major, CompositionMode: opts.compMode, Examples: examples(store), ClientKinds: opts.clientKinds}
		f := document.Parse(in.path, 0, in.content)
		diags := analysis.Diagnose(ctx, f, env)
		if filepath.Base(in.path) == "crossplane.yaml" {
			// Package metadata and dependency problems, as the editor
			// shows them (what the cache cannot answer is noted on stderr).
			diags = append(diags, lsp.PackageProblems(packages.ParseMeta(in.path, in.content), pkgResults[in.path], false)...)
			sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
		}
		cf := checkedFile{Path: in.path, Diagnostics: []jsonDiagnostic{}}
		for _, d := range diags {
			if d.Severity == analysis.SeverityHint {
				continue // suggestions (deprecated but supported forms) are for the editor
			}
			line, col := f.Mapper.LineCol(d.Span.Start)
			eline, ecol := f.Mapper.LineCol(d.Span.End)
			cf.Diagnostics = append(cf.Diagnostics, jsonDiagnostic{Line: line, Column: col, EndLine: eline, EndColumn: ecol, Severity: d.Severity.String(), Code: d.Code, Message: d.Message})
			switch d.Severity {
			case analysis.SeverityError:
				sum.Errors++
			case analysis.SeverityWarning:
				sum.Warnings++
			default:
				sum.Infos++
			}
		}
		results = append(results, cf)
	}
	sum.Files = len(results)
	sort.SliceStable(results, func(i, j int) bool { return results[i].Path < results[j].Path })

	if opts.output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Files   []checkedFile `json:"files"`
			Summary summary       `json:"summary"`
		}{results, sum})
	} else {
		for _, r := range results {
			for _, d := range r.Diagnostics {
				code := ""
				if d.Code != "" {
					code = " [" + d.Code + "]"
				}
				fmt.Fprintf(stdout, "%s:%d:%d: %s: %s%s\n", r.Path, d.Line, d.Column, d.Severity, d.Message, code)
			}
		}
		fmt.Fprintf(stdout, "%d %s checked: %d %s, %d %s, %d info\n", sum.Files, plural(sum.Files, "file", "files"),
			sum.Errors, plural(sum.Errors, "error", "errors"), sum.Warnings, plural(sum.Warnings, "warning", "warnings"), sum.Infos)
	}
	if sum.Errors > 0 {
		return 1
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// schemaFiles reads the CRDs/XRDs/MRDs of --schemas folders and files.
func schemaFiles(ctx context.Context, dirs []string) ([]schemas.FileInput, error) {
	var shared []schemas.FileInput
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			b, err := os.ReadFile(dir)
			if err != nil {
				return nil, err
			}
			shared = append(shared, schemas.FileInput{Source: workspace.Source(dir), Path: dir, Content: b})
			continue
		}
		files, _, err := workspace.Scan(ctx, dir, workspace.Options{}, func(_ string, c []byte) bool { return workspace.MayDefineSchemas(c) })
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			shared = append(shared, schemas.FileInput{Source: workspace.Source(f.Path), Path: f.Path, Content: f.Content})
		}
	}
	return shared, nil
}

// cachedPackages returns the schema files of the cached packages that the
// crossplane.yaml files under roots depend on, and the outcome for each
// dependency by crossplane.yaml path; it says on stderr which are missing.
func cachedPackages(roots []string, cacheDir string, stderr io.Writer) ([]schemas.FileInput, map[string][]packages.Result) {
	var metas []*packages.Meta
	for _, root := range roots {
		paths, _ := packages.FindMeta(root)
		for _, p := range paths {
			if m, err := packages.ReadMeta(p); err == nil && len(m.Deps) > 0 {
				metas = append(metas, m)
			}
		}
	}
	results := map[string][]packages.Result{}
	if len(metas) == 0 {
		return nil, results
	}
	c, err := packages.New(packages.Options{CacheDir: cacheDir})
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check: package cache:", err)
		return nil, results
	}
	var out []schemas.FileInput
	seen := map[string]bool{}
	for _, m := range metas {
		rs := c.Cached(m.Deps)
		results[m.Path] = rs
		for _, r := range rs {
			if r.Package == nil && packages.KindOf(r.Err) == packages.KindNotCached {
				fmt.Fprintf(stderr, "%s: %s is not in the package cache (run crd-lsp pull): its kinds are unknown\n", m.Path, r.Dep.String())
				continue
			}
			if r.Package == nil || seen[r.Package.Path] {
				continue
			}
			seen[r.Package.Path] = true
			out = append(out, schemas.FileInput{Source: schemas.Source{Kind: schemas.SourcePackage, Name: r.Package.Ref, Version: r.Package.Version}, Path: r.Package.Path, Content: r.Package.YAML})
		}
	}
	return out, results
}
