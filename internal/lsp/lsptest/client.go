package lsptest

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"
)

// client is the editor's side of server→client traffic. Its methods run
// on the connection's read goroutine, in wire order.
type client struct {
	protocol.UnimplementedClient
	e *Editor
}

func (c *client) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	v, has := p.Version.Get()
	pub := publish{uri: p.URI, version: v, hasVer: has, diags: p.Diagnostics}
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.publishes = append(c.e.publishes, pub)
	c.e.diags[p.URI] = pub
	c.e.changed.Broadcast()
	return nil
}

func (c *client) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.logs = append(c.e.logs, p.Message)
	return nil
}

func (c *client) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.logs = append(c.e.logs, "showMessage: "+p.Message)
	return nil
}

func (c *client) LogTrace(ctx context.Context, p *protocol.LogTraceParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.logs = append(c.e.logs, "logTrace: "+p.Message)
	return nil
}

func (c *client) RegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.registrations = append(c.e.registrations, p.Registrations...)
	return nil
}

func (c *client) UnregisterCapability(ctx context.Context, p *protocol.UnregistrationParams) error {
	return nil
}

func (c *client) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	return nil
}

func (c *client) Progress(ctx context.Context, p *protocol.ProgressParams) error { return nil }

func (c *client) Configuration(ctx context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	c.e.mu.Lock()
	settings := c.e.settings
	c.e.mu.Unlock()
	out := make([]protocol.LSPAny, len(p.Items))
	for i, it := range p.Items {
		out[i] = protocol.LSPAny("null")
		if it.Section != nil && strings.HasPrefix(*it.Section, "crdLsp") && settings != nil {
			raw, err := json.Marshal(settings)
			if err != nil {
				return nil, err
			}
			out[i] = raw
		}
	}
	return out, nil
}

func (c *client) WorkspaceFolders(ctx context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}
