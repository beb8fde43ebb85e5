// Command crd-lsp is a language server and checker for Kubernetes CRD and
// Crossplane YAML. See `crd-lsp help`.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
)

// Set with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "0.1.0-dev"
	commit  = ""
)

const usage = `crd-lsp — a language server and checker for Kubernetes CRD and Crossplane YAML

Usage:
  crd-lsp [serve] [--stdio] [--log-level LEVEL]   speak LSP on stdin/stdout (the default)
  crd-lsp check [flags] PATH...                   validate files or folders ("-" reads stdin)
  crd-lsp render [flags] COMPOSITION.yaml         print what a Composition creates (no cluster, no Docker)
  crd-lsp pull [flags] [DIR]                      pull the packages crossplane.yaml files depend on into the cache
  crd-lsp version                                 print version, commit and Go version
  crd-lsp help [COMMAND]                          show this help, or a command's flags

Logs go to stderr only. The level comes from --log-level or the CRD_LSP_LOG
environment variable: debug, info, warn (default) or error.

Editors start "crd-lsp" (VS Code appends --stdio). Settings are read from the
crdLsp section of workspace/configuration and from initializationOptions.

`

func main() {
	os.Exit(profiled(func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
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

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "check":
		return check(args, stdin, stdout, stderr)
	case "render":
		return renderCmd(args, stdout, stderr)
	case "pull":
		return pullCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "crd-lsp %s\ncommit: %s\ngo: %s %s/%s\n", version, commitID(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	case "help", "-h", "--help":
		helps := map[string]func(){
			"check": func() { fs := checkFlags(stdout, &checkOptions{}); fmt.Fprint(stdout, checkUsage); fs.PrintDefaults() },
			"render": func() {
				fs := renderFlags(stdout, &renderOptions{})
				fmt.Fprint(stdout, renderUsage)
				fs.PrintDefaults()
			},
			"pull": func() { fs := pullFlags(stdout, &pullOptions{}); fmt.Fprint(stdout, pullUsage); fs.PrintDefaults() },
		}
		if len(args) > 0 && helps[args[0]] != nil {
			helps[args[0]]()
			return 0
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "crd-lsp: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}

func commitID() string {
	if commit != "" {
		return commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
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
