// Command crd-lsp is a language server and checker for Kubernetes CRD and
// Crossplane YAML. See `crd-lsp help`.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

func main() {
	useDecodedCache()
	os.Exit(profiled(func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
}

// useDecodedCache keeps decoded schemas across processes in
// $CRD_LSP_SCHEMA_CACHE, else os.UserCacheDir()/crd-lsp/schemas; "off"
// keeps none. The binary does, not run: in-process tests stay hermetic.
func useDecodedCache() {
	dir := os.Getenv(schemas.DecodedCacheEnv)
	switch dir {
	case "off":
		return
	case "":
		var err error
		if dir, err = packages.UserCacheDir("schemas"); err != nil {
			return
		}
	}
	schemas.SetDecodedCache(dir, 0)
}

// profiled runs f, writing a CPU profile to the file CRD_LSP_CPUPROFILE
// names and an allocation profile to CRD_LSP_MEMPROFILE, if set (for go
// tool pprof; see bench/).
func profiled(f func() int) int {
	if p := os.Getenv("CRD_LSP_MEMPROFILE"); p != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			out, err := os.Create(p)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(out, 0)
				out.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "crd-lsp: CRD_LSP_MEMPROFILE:", err)
			}
		}()
	}
	p := os.Getenv("CRD_LSP_CPUPROFILE")
	if p == "" {
		return f()
	}
	out, err := os.Create(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crd-lsp: CRD_LSP_CPUPROFILE:", err)
		return f()
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintln(os.Stderr, "crd-lsp: CRD_LSP_CPUPROFILE:", err)
		return f()
	}
	defer pprof.StopCPUProfile()
	return f()
}

// run parses the command line (cli.go) and runs the command, returning
// the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(args, stdin, stdout, stderr)
}

// newLogger logs to stderr at the level from the flag, else CRD_LSP_LOG.
func newLogger(stderr io.Writer, flagLevel string) (*slog.Logger, error) {
	level := flagLevel
	if level == "" {
		level = os.Getenv("CRD_LSP_LOG")
	}
	var l slog.Level
	switch strings.ToLower(level) {
	case "", "warn", "warning":
		l = slog.LevelWarn
	case "debug", "trace":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "error":
		l = slog.LevelError
	default:
		return nil, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", level)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: l})), nil
}
