// Package mcp serves crd-lsp's engine to AI agents over the Model Context
// Protocol (github.com/modelcontextprotocol/go-sdk): tools that validate a
// file, a folder or a text (findings with positions and field paths),
// render a Composition (with an XR and functions, as `crd-lsp render`
// takes them), explain a field of a kind (what hover says) and list the
// kinds a workspace knows. Every tool loads the workspace afresh through
// internal/loader, exactly as `crd-lsp check` and `render` do, so an
// agent's edits between calls are seen.
//
// Nothing is written to the user's files. Functions run only when a
// render call names their functions file (Development targets on
// loopback, as `crd-lsp render --functions` runs them; never Docker);
// package schemas come from the cache `crd-lsp pull` fills, never the
// network.
package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Options configure the server.
type Options struct {
	// Root is the workspace folder; tool paths are relative to it.
	Root string
	// SchemaDirs are extra folders or files of CRDs/XRDs (--schemas).
	SchemaDirs []string
	// CrossplaneVersion is used where no crossplane.yaml says (v1, v2).
	CrossplaneVersion string
	// KubernetesVersion is the Kubernetes minor whose built-in schemas
	// apply ("" : the newest; --kubernetes-version).
	KubernetesVersion string
	// Packages serves the cached schemas of crossplane.yaml dependencies
	// (nil: none).
	Packages *packages.Client
	// Version is the server version the initialize answer carries.
	Version string
	Logger  *slog.Logger
}

// MaxFindings bounds the findings one validate answer carries (the
// summary still counts them all).
const MaxFindings = 500

// MaxKinds bounds the kinds one kinds answer lists.
const MaxKinds = 1000

// Server holds the options; each tool call loads the workspace.
type Server struct {
	opts Options
	root string
}

// New builds the MCP server with its tools.
func New(opts Options) (*sdk.Server, error) {
	if opts.Root == "" {
		opts.Root = "."
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a folder", opts.Root)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, root: root}
	srv := sdk.NewServer(&sdk.Implementation{Name: "crd-lsp", Title: "crd-lsp: Kubernetes CRD and Crossplane YAML checker", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	sem := make(chan struct{}, Evaluating())
	sdk.AddTool(srv, &sdk.Tool{Name: "validate", Description: validateDoc}, limit(sem, s.validate))
	sdk.AddTool(srv, &sdk.Tool{Name: "render", Description: renderDoc}, limit(sem, s.render))
	sdk.AddTool(srv, &sdk.Tool{Name: "explain", Description: explainDoc}, limit(sem, s.explain))
	sdk.AddTool(srv, &sdk.Tool{Name: "kinds", Description: kindsDoc}, limit(sem, s.kinds))
	return srv, nil
}

// Evaluating is how many tool calls one server evaluates at once: one per
// CPU the Go runtime uses (GOMAXPROCS). Each call loads the workspace;
// the others wait their turn (at most MaxPending calls are taken).
func Evaluating() int { return max(1, runtime.GOMAXPROCS(0)) }

// limit runs h once a place in sem is free; a call cancelled while it
// waits is answered with the cancellation.
func limit[In, Out any](sem chan struct{}, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			var zero Out
			return nil, zero, ctx.Err()
		}
		defer func() { <-sem }()
		return h(ctx, req, in)
	}
}

// Serve speaks MCP on in/out (newline-delimited JSON-RPC, as MCP's stdio
// transport) until the client goes away or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	srv, err := New(opts)
	if err != nil {
		return err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	w := &lockedWriter{w: out, gate: newGate(func(pending, bytes int) {
		log.Debug("input paused: the client has not read the answers of the calls pending", "pending", pending, "bytes", bytes)
	})}
	f := newFilter(in, w)
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(ctx, &sdk.IOTransport{Reader: f.Reader(), Writer: nopWriteCloser{w}, MaxLineLength: MaxMessage + 1})
	}()
	select {
	case err := <-done:
		return err
	case <-f.ended:
	}
	// The client's input ended: calls still running get endGrace to
	// answer; one blocked writing to a client that never reads does not
	// keep the server.
	t := time.NewTimer(endGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return nil
	}
}

// endGrace is how long Serve waits, once the client's input has ended,
// for the calls still running.
const endGrace = time.Second

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

const instructions = `crd-lsp validates Kubernetes and Crossplane YAML as the API server and Crossplane would (schemas from the workspace's CRDs/XRDs, cached packages and built-in Kubernetes/Crossplane schemas), renders Compositions without a cluster, and explains fields. Validate after every edit of a manifest or Composition; paths are relative to the workspace root.`

// abs resolves a tool path against the root.
func (s *Server) abs(p string) string {
	if p == "" {
		return s.root
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(s.root, p)
}

// rel is a path as the answers show it: relative to the root when inside.
func (s *Server) rel(p string) string {
	if r, err := filepath.Rel(s.root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return p
}

// config is the loader configuration every tool starts from: the root
// scanned as check scans a folder.
func (s *Server) config() loader.Config {
	return loader.Config{
		Roots:             []string{s.root},
		SchemaDirs:        s.opts.SchemaDirs,
		CrossplaneVersion: s.opts.CrossplaneVersion,
		KubernetesVersion: s.opts.KubernetesVersion,
		Packages:          s.opts.Packages,
		Options:           workspace.Options{MaxFileSize: 10 << 20},
		Analysis:          loader.AnalysisSettings{UnknownKind: severity.Warning, CompositionMode: composition.ModeWarn},
	}
}

// Finding is one problem, positioned (1-based line and byte column, end
// exclusive) and placed on its field.
type Finding struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity" jsonschema:"error, warning or info"`
	Code      string `json:"code,omitempty" jsonschema:"the stable code of the finding (unknown-field, type, required, cel, …)"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty" jsonschema:"the field the finding is on, as the API server names it (spec.listeners[2].port); empty for a whole document"`
}

// findings diagnoses one file as check does (hints left out), with the
// package problems of a crossplane.yaml.
func findings(ctx context.Context, world *loader.World, path string, text []byte) []Finding {
	f := document.Parse(path, 0, text)
	diags := analysis.Diagnose(ctx, f, world.Env(path))
	if m, ok := world.Meta(path); ok {
		diags = append(diags, loader.PackageProblems(m, world.Results(path), false)...)
		sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	}
	out := make([]Finding, 0, len(diags))
	for _, d := range diags {
		if d.Severity == severity.Hint {
			continue
		}
		out = append(out, finding(f, d))
	}
	return out
}

func finding(f *document.File, d analysis.Diagnostic) Finding {
	line, col := f.Mapper.LineCol(d.Span.Start)
	eline, ecol := f.Mapper.LineCol(d.Span.End)
	fd := Finding{Line: line, Column: col, EndLine: eline, EndColumn: ecol, Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Field: d.Path}
	return fd
}
