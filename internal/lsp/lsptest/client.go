// This file is the fake editor's side of the connection: it records every
// message the server sends and answers its requests.

package lsptest

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/fileuri"
)

// Event is one message the server sent to the editor.
type Event struct {
	Time   time.Time
	Method string
	IsCall bool            // a request (the editor answered it)
	Params json.RawMessage // a private copy of the params
}

// idleMethod is the server's idle signal (internal/lsp/idle.go).
const idleMethod = "$/crd-lsp/idle"

// handler records every server→client message, then dispatches it to the
// typed client. It runs on the connection's read goroutine, in wire order,
// so "latest" really means the latest the server sent.
func (e *Editor) handler() jsonrpc2.Handler {
	typed := protocol.ClientHandler(&client{e: e}, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "lsptest: method %q not supported by the fake editor", req.Method())
		}
		return nil, nil // unknown notifications are ignored, as editors do
	})
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		ev := Event{Time: time.Now(), Method: strings.Clone(req.Method()), IsCall: req.IsCall(), Params: append(json.RawMessage(nil), req.Params()...)}
		e.mu.Lock()
		if ev.Method == idleMethod {
			var p struct {
				Received uint64 `json:"received"`
			}
			if json.Unmarshal(ev.Params, &p) == nil && p.Received > e.idleAt {
				e.idleAt = p.Received
			}
			e.wakeLocked()
			e.mu.Unlock()
			return nil, nil // not an Event: tests wait on it, they do not assert it
		}
		e.events = append(e.events, ev)
		e.wakeLocked()
		e.mu.Unlock()
		return typed(ctx, req)
	}
}

// client answers server→client traffic.
type client struct {
	protocol.UnimplementedClient
	e *Editor
}

func (c *client) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	v, has := p.Version.Get()
	pub := publish{uri: p.URI, version: v, hasVer: has, diags: p.Diagnostics, at: time.Now()}
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.publishes = append(c.e.publishes, pub)
	c.e.diags[p.URI] = pub
	c.e.wakeLocked()
	return nil
}

func (c *client) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	c.e.addLog(p.Message)
	return nil
}

func (c *client) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	c.e.addLog("showMessage: " + p.Message)
	return nil
}

func (c *client) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	c.e.addLog("showMessageRequest: " + p.Message)
	return nil, nil // the user dismissed it
}

func (c *client) LogTrace(ctx context.Context, p *protocol.LogTraceParams) error {
	c.e.addLog("logTrace: " + p.Message)
	return nil
}

func (c *client) RegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	for _, r := range p.Registrations {
		r.RegisterOptions = append(protocol.LSPAny(nil), r.RegisterOptions...)
		c.e.registrations = append(c.e.registrations, r)
	}
	c.e.wakeLocked()
	return nil
}

func (c *client) UnregisterCapability(ctx context.Context, p *protocol.UnregistrationParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	for _, u := range p.Unregisterations {
		kept := c.e.registrations[:0]
		for _, r := range c.e.registrations {
			if r.ID != u.ID {
				kept = append(kept, r)
			}
		}
		c.e.registrations = kept
	}
	c.e.wakeLocked()
	return nil
}

func (c *client) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	return nil // recorded as an Event
}

func (c *client) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	return nil // recorded as an Event
}

func (c *client) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	return &protocol.ShowDocumentResult{Success: false}, nil
}

func (c *client) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	reason := "lsptest does not apply workspace edits"
	return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
}

// Configuration answers section "crdLsp" (or "crdLsp.a.b", a part of it)
// with the current settings, no section with {"crdLsp": settings}, and
// anything else with null.
func (c *client) Configuration(ctx context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	c.e.mu.Lock()
	settings := c.e.settings
	c.e.mu.Unlock()
	out := make([]protocol.LSPAny, len(p.Items))
	for i, it := range p.Items {
		var v any
		section := ""
		if it.Section != nil {
			section = *it.Section
		}
		switch {
		case section == "":
			v = map[string]any{SettingsSection: settings}
		case section == SettingsSection:
			v = settings
		case strings.HasPrefix(section, SettingsSection+"."):
			v = lookup(settings, strings.Split(strings.TrimPrefix(section, SettingsSection+"."), "."))
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

// SettingsSection is the configuration section crd-lsp reads.
const SettingsSection = "crdLsp"

func lookup(m map[string]any, path []string) any {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func (c *client) WorkspaceFolders(ctx context.Context) ([]protocol.WorkspaceFolder, error) {
	return c.e.workspaceFolders(), nil
}

func (e *Editor) workspaceFolders() []protocol.WorkspaceFolder {
	var folders []protocol.WorkspaceFolder
	for _, d := range e.folderPaths() {
		folders = append(folders, protocol.WorkspaceFolder{URI: uri.URI(fileuri.URI(d)), Name: baseName(d)})
	}
	return folders
}
