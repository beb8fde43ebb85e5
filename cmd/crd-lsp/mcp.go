// This file holds the mcp subcommand: the only code of the command that
// imports internal/mcp.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crd-lsp/crd-lsp/internal/mcp"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

const mcpUsage = `Usage: crd-lsp mcp [flags]

Serves the Model Context Protocol on stdin/stdout, for AI agents that write
Kubernetes manifests and Crossplane Compositions. Its tools run the engine
of check and render on the workspace under --root (default: the current
folder), loaded afresh on every call:

  validate  a file, a folder or a YAML text: findings with positions,
            severities, codes and field paths
  render    a Composition, with an XR and functions files as render takes
            them: the resources it creates, and positioned notes
  explain   a field of a kind (apiVersion, kind, field path): what hover says
  kinds     the kinds the workspace knows (CRDs, XRDs, packages, built-ins)

Nothing is written; package schemas come from the cache crd-lsp pull fills;
functions run only when a render call names their functions file.
Logs go to stderr.

Flags:
`

type mcpOptions struct {
	root       string
	schemaDirs stringList
	cacheDir   string
	crossplane string
	kubernetes string
	logLevel   string
}

func mcpFlags(out io.Writer, opts *mcpOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("mcp", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&opts.root, "root", ".", "the workspace folder the tools read (their paths are relative to it)")
	fs.Var(&opts.schemaDirs, "schemas", "folder or file of extra CRDs/XRDs (repeatable)")
	fs.StringVar(&opts.cacheDir, "cache-dir", "", "package cache filled by crd-lsp pull (default: the user cache folder)")
	fs.StringVar(&opts.crossplane, "crossplane-version", "", "Crossplane version (v1 or v2) targeted where no crossplane.yaml says (default v2)")
	kubernetesVersionFlag(fs, &opts.kubernetes)
	fs.StringVar(&opts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	return fs
}

func mcpCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var opts mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve the Model Context Protocol on stdin/stdout (tools for AI agents)",
		Long:  longOf(mcpUsage),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(mcpServe(&opts, stdin, stdout, stderr))
		},
	}
	cmd.Flags().AddFlagSet(mcpFlags(stderr, &opts))
	enumFlag(cmd, "crossplane-version", "v1", "v2")
	enumFlag(cmd, "kubernetes-version", workspace.KubernetesMinors()...)
	enumFlag(cmd, "log-level", logLevels...)
	dirFlag(cmd, "root")
	dirFlag(cmd, "cache-dir")
	return cmd
}

func mcpServe(opts *mcpOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	log, err := newLogger(stderr, opts.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp mcp:", err)
		return 2
	}
	if err := kubernetesVersion(opts.kubernetes); err != nil {
		fmt.Fprintln(stderr, "crd-lsp mcp:", err)
		return 2
	}
	pkgs, err := packages.New(packages.Options{CacheDir: opts.cacheDir})
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp mcp: package cache:", err)
		return 2
	}
	srv := mcp.Options{Root: opts.root, SchemaDirs: opts.schemaDirs, CrossplaneVersion: opts.crossplane, KubernetesVersion: opts.kubernetes, Packages: pkgs, Version: stamp().Version, Logger: log}
	if _, err := mcp.New(srv); err != nil {
		fmt.Fprintln(stderr, "crd-lsp mcp:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcp.Serve(ctx, stdin, stdout, srv); err != nil && ctx.Err() == nil {
		log.Error("mcp server stopped", "error", err)
		return 1
	}
	return 0
}
