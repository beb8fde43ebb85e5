// This file holds the serve subcommand: the only code of the command that
// imports internal/lsp (the other subcommands read the workspace through
// internal/loader).

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/spf13/pflag"
)

// serveOptions are serve's flags (also the root command's: no command
// means serve).
type serveOptions struct {
	logLevel string
	stdio    bool
	// Transports editors may ask for that crd-lsp does not speak: named
	// so that they get a clear message instead of "unknown flag".
	clientProcessID, socket, pipe string
	nodeIPC                       bool
}

func serveFlags(opts *serveOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.BoolVar(&opts.stdio, "stdio", false, "speak LSP on stdin/stdout (the only transport; accepted because VS Code appends it)")
	fs.StringVar(&opts.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	fs.StringVar(&opts.clientProcessID, "clientProcessId", "", "not supported")
	fs.StringVar(&opts.socket, "socket", "", "not supported")
	fs.StringVar(&opts.pipe, "pipe", "", "not supported")
	fs.BoolVar(&opts.nodeIPC, "node-ipc", false, "not supported")
	for _, n := range []string{"clientProcessId", "socket", "pipe", "node-ipc"} {
		_ = fs.MarkHidden(n)
	}
	return fs
}

func serve(opts *serveOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, f := range []struct {
		name string
		set  bool
	}{{"--clientProcessId", opts.clientProcessID != ""}, {"--node-ipc", opts.nodeIPC}, {"--socket", opts.socket != ""}, {"--pipe", opts.pipe != ""}} {
		if f.set {
			fmt.Fprintf(stderr, "crd-lsp: %s is not supported; use stdio\n", f.name)
			return 2
		}
	}
	logLevel := opts.logLevel
	log, err := newLogger(stderr, logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{Logger: log, Version: stamp().Version})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		return 1
	case errors.Is(err, io.EOF):
		log.Info("client closed the connection")
		return 1
	default:
		log.Error("server stopped", "error", err)
		return 1
	}
}

// stdio joins stdin and stdout into the stream Serve wants.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	if c, ok := s.in.(io.Closer); ok {
		_ = c.Close()
	}
	return nil
}
