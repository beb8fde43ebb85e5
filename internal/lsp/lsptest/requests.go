// This file holds the requests the editor sends: hover, completion,
// definition, code actions, references, and raw calls.

package lsptest

import (
	"fmt"

	"go.lsp.dev/protocol"
)

func (e *Editor) pos(path string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: docID(e.URI(path)),
		Position:     protocol.Position{Line: uint32(line), Character: uint32(char)},
	}
}

// Hover requests textDocument/hover at line and char (negotiated
// encoding). A nil result means no hover; an error fails the test.
func (e *Editor) Hover(path string, line, char int) *protocol.Hover {
	e.t.Helper()
	h, err := e.hover(path, line, char)
	if err != nil {
		e.t.Fatalf("hover %s:%d:%d: %v", path, line, char, err)
	}
	return h
}

func (e *Editor) hover(path string, line, char int) (*protocol.Hover, error) {
	ctx, cancel := e.reqCtx()
	defer cancel()
	return e.server.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: e.pos(path, line, char)})
}

// Completion requests textDocument/completion and returns the items
// (from a list or a bare array). An error fails the test.
func (e *Editor) Completion(path string, line, char int) []protocol.CompletionItem {
	e.t.Helper()
	items, err := e.completion(path, line, char)
	if err != nil {
		e.t.Fatalf("completion %s:%d:%d: %v", path, line, char, err)
	}
	return items
}

func (e *Editor) completion(path string, line, char int) ([]protocol.CompletionItem, error) {
	ctx, cancel := e.reqCtx()
	defer cancel()
	res, err := e.server.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: e.pos(path, line, char)})
	if err != nil {
		return nil, err
	}
	switch r := res.(type) {
	case protocol.CompletionItemSlice:
		return r, nil
	case *protocol.CompletionList:
		if r == nil {
			return nil, nil
		}
		return r.Items, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected completion result %T", res)
}

// Definition requests textDocument/definition and returns the locations
// (links become their target selection ranges). An error fails the test.
func (e *Editor) Definition(path string, line, char int) []protocol.Location {
	e.t.Helper()
	ctx, cancel := e.reqCtx()
	defer cancel()
	res, err := e.server.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: e.pos(path, line, char)})
	if err != nil {
		e.t.Fatalf("definition %s:%d:%d: %v", path, line, char, err)
	}
	switch r := res.(type) {
	case *protocol.Location:
		if r == nil {
			return nil
		}
		return []protocol.Location{*r}
	case protocol.LocationSlice:
		return r
	case protocol.DefinitionLinkSlice:
		out := make([]protocol.Location, 0, len(r))
		for _, l := range r {
			out = append(out, protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		}
		return out
	case nil:
		return nil
	}
	e.t.Fatalf("definition: unexpected result %T", res)
	return nil
}

// CodeActions asks for the code actions at a position, sending as context
// the diagnostics last published there (what an editor sends for the
// cursor). An error is returned, not fatal.
func (e *Editor) CodeActions(path string, line, char int) ([]protocol.CodeAction, error) {
	e.t.Helper()
	var here []protocol.Diagnostic
	for _, d := range e.Diagnostics(path) {
		r := d.Range
		after := int(r.Start.Line) < line || (int(r.Start.Line) == line && int(r.Start.Character) <= char)
		before := int(r.End.Line) > line || (int(r.End.Line) == line && int(r.End.Character) >= char)
		if after && before {
			here = append(here, d)
		}
	}
	p := protocol.Position{Line: uint32(line), Character: uint32(char)}
	params := &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.URI(path)},
		Range:        protocol.Range{Start: p, End: p},
		Context:      protocol.CodeActionContext{Diagnostics: here},
	}
	var actions []protocol.CodeAction
	err := e.Call(protocol.MethodTextDocumentCodeAction, params, &actions)
	return actions, err
}

// References asks for the references at a position.
func (e *Editor) References(path string, line, char int, includeDecl bool) []protocol.Location {
	e.t.Helper()
	ctx, cancel := e.reqCtx()
	defer cancel()
	res, err := e.server.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: e.pos(path, line, char), Context: protocol.ReferenceContext{IncludeDeclaration: includeDecl}})
	if err != nil {
		e.t.Fatalf("references %s:%d:%d: %v", path, line, char, err)
	}
	return res
}

// Call sends any request; result is decoded with protocol's codec (pass
// nil to ignore it). Errors are returned, including the server's error
// responses (*jsonrpc2.Error).
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := e.reqCtx()
	defer cancel()
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

// Notify sends any notification.
func (e *Editor) Notify(method string, params any) error {
	ctx, cancel := e.reqCtx()
	defer cancel()
	return e.conn.Notify(ctx, method, params)
}
