// This file holds check's and render's function flags (--functions,
// --function-exe, ...) and builds the functions.Registry a run uses.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
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
	fromPkgs    bool
	realPT      bool
	timeout     time.Duration
}

func (o *functionOptions) register(fs *pflag.FlagSet) {
	fs.Var(&o.files, "functions", "a file (or folder) of Function objects, as crossplane render --functions takes: those annotated render.crossplane.io/runtime: Development run at their runtime-development-target (repeatable)")
	fs.Var(&o.exes, "function-exe", "NAME=PATH: run the function NAME (a functionRef name) from a local executable, started with the function SDK's flags on loopback (repeatable)")
	fs.BoolVar(&o.allowRemote, "allow-remote-functions", false, "allow Development function targets outside loopback")
	fs.BoolVar(&o.docker, "functions-docker", false, "run Functions of --functions without a Development annotation in Docker (their package image)")
	fs.BoolVar(&o.fromPkgs, "functions-from-packages", false, "run Functions (of --functions, of the workspace, and crossplane.yaml's function dependencies) from the runtime image their package embeds: pulled into the package cache and unpacked, the function's own program runs on this machine (Linux), no Docker")
	fs.BoolVar(&o.realPT, "real-patch-and-transform", false, "run function-patch-and-transform steps through the real function when it is configured, instead of crd-lsp's own renderer")
	fs.DurationVar(&o.timeout, "function-timeout", functions.DefaultTimeout, "how long one function call may take")
}

// configured says whether any function was named (or may be found: the
// workspace's, run from their packages).
func (o *functionOptions) configured() bool {
	return len(o.files) > 0 || len(o.exes) > 0 || o.fromPkgs
}

// pipeline builds the Registry the run uses (nil when no function is
// configured); the caller closes it when done.
//
// With --functions-from-packages, pkgs is the package client that pulls
// the packages; the caller adds the workspace's Functions once it is
// loaded (addWorkspace).
func (o *functionOptions) pipeline(log *slog.Logger, stderr io.Writer, pkgs *packages.Client) (*functions.Pipeline, *functions.Registry, error) {
	if !o.configured() {
		if o.docker || o.realPT || o.allowRemote {
			return nil, nil, errors.New("--functions-docker, --real-patch-and-transform and --allow-remote-functions need --functions, --function-exe or --functions-from-packages")
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
	if o.fromPkgs {
		if pkgs == nil {
			return nil, nil, errors.New("--functions-from-packages: no package cache")
		}
		cfg.FromPackages = true
		cfg.PullRuntime = loader.RuntimePuller(pkgs)
		// Said at the end, one line per function (packageRunLines), not
		// while the run writes.
		cfg.Notify = func(functions.PackageRun) {}
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

// addWorkspace gives the Registry the Functions a loaded workspace may run
// from their packages (its Function objects, its crossplane.yaml's
// function dependencies), after --functions' own.
func (o *functionOptions) addWorkspace(reg *functions.Registry, world *loader.World) {
	if reg != nil && o.fromPkgs && world != nil {
		reg.AddFunctions(world.PackageFunctions())
	}
}

// packageRunLines words how each Function run from its package fared,
// one line per function, by name: the digest that ran, or why it could
// not.
func packageRunLines(reg *functions.Registry) []string {
	if reg == nil {
		return nil
	}
	var out []string
	for _, run := range reg.PackageRuns() {
		out = append(out, run.Message())
	}
	return out
}

// jsonPackageRun is one Function run from its package, in check's JSON
// output ("functions").
type jsonPackageRun struct {
	Function string `json:"function"`
	Package  string `json:"package"`
	// Ref is the reference with the digest that ran; Digest what the
	// reference resolved to, Image the image manifest unpacked.
	Ref         string   `json:"ref,omitempty"`
	Digest      string   `json:"digest,omitempty"`
	Image       string   `json:"image,omitempty"`
	Platform    string   `json:"platform,omitempty"`
	Entrypoint  []string `json:"entrypoint,omitempty"`
	FromCache   bool     `json:"fromCache"`
	Runs        bool     `json:"runs"`
	NotRunnable string   `json:"notRunnable,omitempty"`
	Error       string   `json:"error,omitempty"`
}

func jsonPackageRuns(reg *functions.Registry) []jsonPackageRun {
	if reg == nil {
		return nil
	}
	var out []jsonPackageRun
	for _, run := range reg.PackageRuns() {
		j := jsonPackageRun{Function: run.Function, Package: run.Package, Runs: run.Runs, NotRunnable: run.NotRunnable}
		if run.Err != nil {
			j.Error = run.Err.Error()
		}
		if rt := run.Runtime; rt != nil {
			j.Ref, j.Digest, j.Image, j.Platform, j.Entrypoint, j.FromCache = rt.Name, rt.Digest, rt.Image, rt.Platform, rt.Entrypoint, rt.FromCache
		}
		out = append(out, j)
	}
	return out
}

// stepFunctions are the functions the pipeline steps of the Compositions
// in files name (files that do not mention a Composition are not parsed).
func stepFunctions(files loader.Files) []string {
	var out []string
	for _, f := range files {
		if !bytes.Contains(f.Content, []byte("Composition")) {
			continue
		}
		out = append(out, stepsOf(document.Parse(f.Path, 0, f.Content).Docs)...)
	}
	return out
}

// stepsOf are the functions the pipeline steps of the Compositions among
// docs name.
func stepsOf(docs []*document.Doc) []string {
	var out []string
	for _, d := range docs {
		obj, err := d.Object()
		if m, ok := obj.(map[string]any); err == nil && ok && m["kind"] == "Composition" {
			for _, st := range functions.Steps(m) {
				out = append(out, st.Function)
			}
		}
	}
	return out
}
