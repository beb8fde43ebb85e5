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
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

const checkUsage = `Usage: crd-lsp check [flags] PATH...

Validates every YAML file among PATH (files, folders searched recursively, or
"-" for stdin) the way the API server and Crossplane would. CRDs and XRDs
found in the folders given, in --schemas folders, and the built-in Kubernetes,
Crossplane and function schemas are all used.

Output: one line per problem, file:line:col: severity: message [code]
(1-based line and byte column), then a summary. Exit status: 0 when no error
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
	crossplane  string
	logLevel    string
}

var checkOpts checkOptions

func checkFlags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(out)
	checkOpts = checkOptions{}
	fs.Var(&checkOpts.schemaDirs, "schemas", "folder or file of extra CRDs/XRDs (repeatable)")
	fs.StringVar(&checkOpts.output, "output", "text", "output format: text or json")
	fs.StringVar(&checkOpts.unknownKind, "unknown-kind", "warning", "severity for kinds no schema defines: error, warning, info or ignore")
	fs.StringVar(&checkOpts.crossplane, "crossplane-version", "", "targeted Crossplane version (v1 or v2) when no crossplane.yaml says")
	fs.StringVar(&checkOpts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
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

	major, from := workspace.CrossplaneMajor(append(append([]string{}, schemaRoots...), parentDirs(inputs2paths(inputs, func(i input) string { return i.path }))...), opts.crossplane)
	log.Info("targeting Crossplane", "major", major, "from", from)
	store, err := workspace.Builtins(major)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp check:", err)
		return 2
	}
	for _, dir := range opts.schemaDirs {
		info, err := os.Stat(dir)
		if err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: --schemas: %v\n", err)
			return 2
		}
		if !info.IsDir() {
			b, err := os.ReadFile(dir)
			if err != nil {
				fmt.Fprintf(stderr, "crd-lsp check: --schemas: %v\n", err)
				return 2
			}
			store = store.WithFile(workspace.Source(dir), dir, b)
			continue
		}
		files, _, err := workspace.Scan(ctx, dir, workspace.Options{}, func(_ string, c []byte) bool { return workspace.MayDefineSchemas(c) })
		if err != nil {
			fmt.Fprintf(stderr, "crd-lsp check: --schemas: %v\n", err)
			return 2
		}
		store = addFiles(store, files)
	}
	// Every input file may define schemas the others use.
	var batch []schemas.FileInput
	for _, in := range inputs {
		if workspace.MayDefineSchemas(in.content) {
			batch = append(batch, schemas.FileInput{Source: workspace.Source(in.path), Path: in.path, Content: in.content})
		}
	}
	store = store.WithFiles(batch)

	env := analysis.Env{Schemas: store, UnknownKind: unknown}
	var results []checkedFile
	var sum summary
	for _, in := range inputs {
		f := document.Parse(in.path, 0, in.content)
		diags := analysis.Diagnose(ctx, f, env)
		cf := checkedFile{Path: in.path, Diagnostics: []jsonDiagnostic{}}
		for _, d := range diags {
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

func addFiles(st *schemas.Store, files []workspace.File) *schemas.Store {
	batch := make([]schemas.FileInput, 0, len(files))
	for _, f := range files {
		batch = append(batch, schemas.FileInput{Source: workspace.Source(f.Path), Path: f.Path, Content: f.Content})
	}
	return st.WithFiles(batch)
}

func inputs2paths[T any](xs []T, f func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// parentDirs returns the folders of the given files, for finding the
// crossplane.yaml that governs them.
func parentDirs(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if p == "<stdin>" {
			continue
		}
		d := filepath.Dir(p)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
