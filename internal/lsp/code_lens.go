// This file defines textDocument/codeLens and workspace/executeCommand.

package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// commandRender renders the Composition at [uri, line] (0-based line,
// optionally a third argument: the path of an XR file to render with) and
// returns the YAML. Code lenses carry it; VS Code's extension turns it into
// a read-only preview.
const commandRender = "crdLsp.render"

// commandPull resolves and pulls every package dependency now and returns
// a summary; the result also refreshes diagnostics.
const commandPull = "crdLsp.pull"

// serverCommands are the commands workspace/executeCommand runs.
var serverCommands = []string{commandRender, commandPull}

func (s *server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	sn := s.snapshot(params.TextDocument.URI)
	f, enc := sn.file, sn.enc
	out := []protocol.CodeLens{}
	if f == nil {
		return out, nil
	}
	for _, l := range analysis.CodeLenses(f, sn.env()) {
		u, _ := json.Marshal(string(params.TextDocument.URI))
		line, _ := json.Marshal(l.Line)
		args := []protocol.LSPAny{u, line}
		if l.XR != "" {
			xr, _ := json.Marshal(l.XR)
			args = append(args, xr)
		}
		out = append(out, protocol.CodeLens{
			Range:   toProtocolRange(f, l.Span, enc),
			Command: protocol.Command{Title: printable(l.Title), Command: commandRender, Arguments: args},
		})
	}
	return out, nil
}

func (s *server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case commandPull:
		return s.pullCommand(ctx)
	case commandRender:
		var u string
		var line int
		var xrPath string
		args := params.Arguments
		if len(args) < 2 || json.Unmarshal(args[0], &u) != nil || json.Unmarshal(args[1], &line) != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: commandRender + " takes [uri, line] and optionally an XR file path"}
		}
		if len(args) > 2 {
			_ = json.Unmarshal(args[2], &xrPath)
		}
		yaml, err := s.renderAt(ctx, uri.URI(u), line, xrPath)
		if err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: printable(err.Error())}
		}
		b, _ := json.Marshal(yaml)
		return protocol.LSPAny(b), nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: printable(fmt.Sprintf("unknown command %q", params.Command))}
}

func (s *server) renderAt(ctx context.Context, u uri.URI, line int, xrPath string) (string, error) {
	// The preview runs the pipeline's functions too (each call bounded by
	// crdLsp.functionTimeout, and cancelled with the request).
	sn, release := s.snapshotWithFunctions(u)
	defer release()
	f, env := sn.file, sn.env()
	if f == nil {
		b, err := workspace.ReadFile(filePath(u), sn.settings.MaxFileSize)
		if err != nil {
			return "", fmt.Errorf("%s is neither open nor readable: %v%s", u, err, limitHint(err, "maxFileSize"))
		}
		f, env = document.Parse(filePath(u), 0, b), sn.envFor(filePath(u))
	}
	if line < 0 || line > f.Mapper.LineOf(len(f.Text)) {
		return "", fmt.Errorf("line %d is outside the file", line)
	}
	var xr map[string]any
	if xrPath != "" {
		b, err := sn.readFile(xrPath)
		if err != nil {
			return "", fmt.Errorf("XR file: %v%s", err, limitHint(err, "maxFileSize"))
		}
		if xr = analysis.CompositeIn(xrPath, b); xr == nil {
			return "", fmt.Errorf("XR file %s holds no resource that parses", xrPath)
		}
	}
	off := f.Mapper.LineStart(line)
	// Start at the first non-blank character, inside the line's node.
	for off < len(f.Text) && (f.Text[off] == ' ' || f.Text[off] == '-') {
		off++
	}
	return analysis.RenderAt(ctx, f, off, xr, xrPath, env)
}
