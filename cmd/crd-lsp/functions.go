// This file holds check's and render's function flags (--functions,
// --function-exe, ...) and builds the functions.Registry a run uses.

package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/spf13/pflag"
)

// functionOptions say which composition functions check and render run,
// as crossplane render --functions does, and as the language server's
// crdLsp.functions setting does. Nothing runs or is contacted that they do
// not name.
type functionOptions struct {
	files       stringList // functions.yaml files (or folders of them)
	exes        stringList // name=path
	allowRemote bool
	docker      bool
	realPT      bool
	timeout     time.Duration
}

func (o *functionOptions) register(fs *pflag.FlagSet) {
	fs.Var(&o.files, "functions", "a file (or folder) of Function objects, as crossplane render --functions takes: those annotated render.crossplane.io/runtime: Development run at their runtime-development-target (repeatable)")
	fs.Var(&o.exes, "function-exe", "NAME=PATH: run the function NAME (a functionRef name) from a local executable, started with the function SDK's flags on loopback (repeatable)")
	fs.BoolVar(&o.allowRemote, "allow-remote-functions", false, "allow Development function targets outside loopback")
	fs.BoolVar(&o.docker, "functions-docker", false, "run Functions of --functions without a Development annotation in Docker (their package image)")
	fs.BoolVar(&o.realPT, "real-patch-and-transform", false, "run function-patch-and-transform steps through the real function when it is configured, instead of crd-lsp's own renderer")
	fs.DurationVar(&o.timeout, "function-timeout", functions.DefaultTimeout, "how long one function call may take")
}

// configured says whether any function was named.
func (o *functionOptions) configured() bool {
	return len(o.files) > 0 || len(o.exes) > 0
}

// pipeline builds the Registry the run uses (nil when no function is
// configured); the caller closes it when done.
func (o *functionOptions) pipeline(log *slog.Logger, stderr io.Writer) (*functions.Pipeline, *functions.Registry, error) {
	if !o.configured() {
		if o.docker || o.realPT || o.allowRemote {
			return nil, nil, errors.New("--functions-docker, --real-patch-and-transform and --allow-remote-functions need --functions or --function-exe")
		}
		return nil, nil, nil
	}
	if o.timeout <= 0 {
		return nil, nil, fmt.Errorf("--function-timeout must be positive, not %s", o.timeout)
	}
	cfg := functions.Config{AllowRemote: o.allowRemote, Docker: o.docker, CallTimeout: o.timeout, Executables: map[string]functions.Executable{}}
	if log != nil {
		cfg.Logf = func(format string, args ...any) { log.Debug(fmt.Sprintf(format, args...)) }
	}
	for _, p := range o.files {
		fns, err := loader.ReadFunctions(p)
		if err != nil {
			return nil, nil, fmt.Errorf("--functions %s: %w", p, err)
		}
		cfg.Functions = append(cfg.Functions, fns...)
	}
	for _, e := range o.exes {
		name, path, ok := strings.Cut(e, "=")
		if !ok || name == "" || path == "" {
			return nil, nil, fmt.Errorf("--function-exe %q: want NAME=PATH", e)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, nil, fmt.Errorf("--function-exe %s: %w", e, err)
		}
		if st, err := os.Stat(abs); err != nil || st.IsDir() {
			return nil, nil, fmt.Errorf("--function-exe %s: %s is not an executable file", e, path)
		}
		cfg.Executables[name] = functions.Executable{Path: abs}
	}
	reg := functions.New(cfg)
	for _, line := range reg.ProblemLines() {
		fmt.Fprintf(stderr, "crd-lsp: %s\n", line)
	}
	return &functions.Pipeline{Registry: reg, PreferReal: o.realPT, Timeout: o.timeout}, reg, nil
}
