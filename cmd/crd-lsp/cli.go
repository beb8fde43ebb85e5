// This file holds the command line: one cobra command per subcommand, each
// with its own flag set (the *Flags functions of its file), flags allowed
// anywhere after the command, help, shell completions and --version. The
// subcommands' work is in their own files (check.go, render.go, pull.go,
// serve.go, mcp.go); they return the exit status.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

const rootLong = `crd-lsp — a language server and checker for Kubernetes CRD and Crossplane YAML.

With no command (or "serve") it speaks LSP on stdin/stdout: editors start
"crd-lsp" (VS Code appends --stdio). Settings are read from the crdLsp
section of workspace/configuration and from initializationOptions.

Flags go anywhere after the command (crd-lsp check . --output json).
Logs go to stderr only. The level comes from --log-level or the CRD_LSP_LOG
environment variable: debug, info, warn (default) or error.`

// exitStatus is a command's non-zero exit status, carried through cobra
// as an error whose message the command has already printed.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// status turns a command's exit status into what cobra's RunE returns.
func status(code int) error {
	if code == 0 {
		return nil
	}
	return exitStatus(code)
}

// execute runs the command line args: 0 on success, the command's own
// status, or 2 for a usage error (unknown command or flag, a flag's bad
// value), whose message goes to stderr.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(longFlags(root, args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var code exitStatus
	if errors.As(err, &code) {
		return int(code)
	}
	name := "crd-lsp"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", name, err, name)
	return 2
}

// newRoot builds the command tree afresh (tests run several command lines
// in one process).
func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var serveOpts serveOptions
	b := stamp()
	root := &cobra.Command{
		Use:   "crd-lsp",
		Short: "A language server and checker for Kubernetes CRD and Crossplane YAML",
		Long:  rootLong,
		// No command: serve LSP, as editors start it.
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(serve(&serveOpts, stdin, stdout, stderr))
		},
		Version:       b.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate(strings.ReplaceAll(b.String(), "{{", "{{`{{`}}"))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Flags().AddFlagSet(serveFlags(&serveOpts))
	enumFlag(root, "log-level", logLevels...)

	root.AddCommand(serveCmd(stdin, stdout, stderr), checkCmd(stdin, stdout, stderr), renderCmd(stdout, stderr),
		pullCmd(stdout, stderr), mcpCmd(stdin, stdout, stderr), versionCmd(stdout))
	return root
}

var logLevels = []string{"debug", "info", "warn", "error"}

func serveCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--stdio] [--log-level LEVEL]",
		Short: "Speak LSP on stdin/stdout (the default)",
		Long:  "Speaks the Language Server Protocol on stdin/stdout, the only transport (--stdio is accepted because VS Code appends it).",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(serve(&opts, stdin, stdout, stderr))
		},
	}
	cmd.Flags().AddFlagSet(serveFlags(&opts))
	enumFlag(cmd, "log-level", logLevels...)
	return cmd
}

func checkCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use:   "check [flags] PATH...",
		Short: `Validate files or folders ("-" reads stdin)`,
		Long:  longOf(checkUsage),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("output") && os.Getenv("GITHUB_ACTIONS") == "true" {
				opts.output = "github" // annotations on the pull request's lines
			}
			return status(check(&opts, args, stdin, stdout, stderr, usageTo(cmd, stderr)))
		},
		ValidArgsFunction: yamlFilesOrDirs,
	}
	cmd.Flags().AddFlagSet(checkFlags(stderr, &opts))
	enumFlag(cmd, "output", outputFormats...)
	enumFlag(cmd, "unknown-kind", "error", "warning", "info", "ignore")
	enumFlag(cmd, "composition-mode", "warn", "loose", "strict")
	enumFlag(cmd, "crossplane-version", "v1", "v2")
	enumFlag(cmd, "kubernetes-version", workspace.KubernetesMinors()...)
	enumFlag(cmd, "log-level", logLevels...)
	dirFlag(cmd, "cache-dir")
	return cmd
}

func renderCmd(stdout, stderr io.Writer) *cobra.Command {
	var opts renderOptions
	cmd := &cobra.Command{
		Use:   "render [flags] COMPOSITION.yaml",
		Short: "Print what a Composition creates (no cluster, no Docker)",
		Long:  longOf(renderUsage),
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(renderRun(&opts, args, stdout, stderr, usageTo(cmd, stderr)))
		},
		ValidArgsFunction: yamlFilesOrDirs,
	}
	cmd.Flags().AddFlagSet(renderFlags(stderr, &opts))
	enumFlag(cmd, "crossplane-version", "v1", "v2")
	enumFlag(cmd, "kubernetes-version", workspace.KubernetesMinors()...)
	enumFlag(cmd, "log-level", logLevels...)
	yamlFlag(cmd, "xr")
	return cmd
}

func pullCmd(stdout, stderr io.Writer) *cobra.Command {
	var opts pullOptions
	cmd := &cobra.Command{
		Use:   "pull [flags] [DIR]",
		Short: "Pull the packages crossplane.yaml files depend on into the cache",
		Long:  longOf(pullUsage),
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(pull(&opts, args, stdout, stderr, usageTo(cmd, stderr)))
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
	}
	cmd.Flags().AddFlagSet(pullFlags(stderr, &opts))
	enumFlag(cmd, "log-level", logLevels...)
	dirFlag(cmd, "cache-dir")
	return cmd
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Long:  "Prints the version, the commit and its date, and the Go version: a release's -ldflags values, else what Go embedded in the binary from the module version and the VCS (a build from a clone).",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(stdout, stamp().String())
			return nil
		},
	}
}

// longOf is a command's description from its usage text: without the
// "Usage:" line (cobra writes it) and the trailing "Flags:".
func longOf(usage string) string {
	s := usage
	if strings.HasPrefix(s, "Usage:") {
		if i := strings.Index(s, "\n\n"); i >= 0 {
			s = s[i+2:]
		}
	}
	s = strings.TrimRight(s, "\n")
	s = strings.TrimSuffix(s, "Flags:")
	return strings.TrimRight(s, "\n")
}

// usageTo prints the command's usage to w (after a usage error the
// command reports itself).
func usageTo(cmd *cobra.Command, w io.Writer) func() {
	return func() { fmt.Fprint(w, cmd.UsageString()) }
}

// enumFlag completes a flag's value from a fixed list.
func enumFlag(cmd *cobra.Command, name string, values ...string) {
	if cmd.Flags().Lookup(name) == nil {
		return
	}
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// dirFlag completes a flag's value with folders.
func dirFlag(cmd *cobra.Command, name string) {
	if cmd.Flags().Lookup(name) != nil {
		_ = cmd.MarkFlagDirname(name)
	}
}

// yamlFlag completes a flag's value with YAML files.
func yamlFlag(cmd *cobra.Command, name string) {
	if cmd.Flags().Lookup(name) != nil {
		_ = cmd.MarkFlagFilename(name, "yaml", "yml")
	}
}

// yamlFilesOrDirs completes arguments with YAML files and folders.
func yamlFilesOrDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// longFlags keeps the single-dash long flags Go's flag package accepted
// (-output json, -schemas=DIR) working: an argument "-name" or
// "-name=value" whose name is a long flag of some command becomes
// "--name…". Single-letter shorthands, "-" (stdin) and everything after
// "--" are left alone.
func longFlags(root *cobra.Command, args []string) []string {
	names := map[string]bool{"help": true, "version": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && names[name] {
			out[i] = "-" + a
		}
	}
	return out
}
