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
	"strings"
	"syscall"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
)

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var logLevel string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--stdio" || a == "-stdio":
			// stdio is the only transport; accepted because VS Code appends it.
		case a == "--log-level" || a == "-log-level":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "crd-lsp: --log-level needs a value")
				return 2
			}
			i++
			logLevel = args[i]
		case strings.HasPrefix(a, "--log-level=") || strings.HasPrefix(a, "-log-level="):
			logLevel = a[strings.Index(a, "=")+1:]
		case strings.HasPrefix(a, "--clientProcessId") || strings.HasPrefix(a, "--node-ipc") || strings.HasPrefix(a, "--socket"):
			fmt.Fprintf(stderr, "crd-lsp: %s is not supported; use stdio\n", a)
			return 2
		default:
			fmt.Fprintf(stderr, "crd-lsp: unknown flag %q for serve\n\n%s", a, usage)
			return 2
		}
	}
	log, err := newLogger(stderr, logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "crd-lsp:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{Logger: log, Version: version})
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
