package lsptest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
)

// fakeServer answers hover, completion and definition with fixed results
// and publishes one warning per opened document, so that the editor's
// request helpers and CheckFile's hover/complete paths are tested without
// depending on what crd-lsp implements so far.
type fakeServer struct {
	protocol.UnimplementedServer
	conn   jsonrpc2.Conn
	client protocol.Client
}

func serveFake(ctx context.Context, rwc io.ReadWriteCloser, _ *slog.Logger) error {
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc), jsonrpc2.WithCodec(lsp.Codec{}))
	f := &fakeServer{conn: conn, client: protocol.ClientDispatcher(conn)}
	conn.Go(ctx, protocol.ServerHandler(f, jsonrpc2.MethodNotFoundHandler))
	<-conn.Done()
	return nil
}

func (f *fakeServer) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return &protocol.InitializeResult{Capabilities: protocol.ServerCapabilities{PositionEncoding: protocol.PositionEncodingKindUTF16}}, nil
}

func (f *fakeServer) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	return f.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI: p.TextDocument.URI, Version: protocol.NewOptional(p.TextDocument.Version),
		Diagnostics: []protocol.Diagnostic{{
			Range:    protocol.Range{Start: protocol.Position{Line: 0, Character: 0}, End: protocol.Position{Line: 0, Character: 1}},
			Severity: protocol.DiagnosticSeverityWarning,
			Message:  protocol.String("first line"),
		}},
	})
}

func (f *fakeServer) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	if p.Position.Line == 0 {
		return nil, nil
	}
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown,
		Value: "**field** at " + strings.Repeat("x", int(p.Position.Character)) + "\nsecond line"}}, nil
}

func (f *fakeServer) Completion(ctx context.Context, p *protocol.CompletionParams) (protocol.CompletionResult, error) {
	return &protocol.CompletionList{Items: []protocol.CompletionItem{
		{Label: "region", Kind: protocol.CompletionItemKindField, Detail: protocol.NewOptional("string")},
		{Label: "regionRef", InsertText: protocol.NewOptional("regionRef:")},
	}}, nil
}

func (f *fakeServer) Definition(ctx context.Context, p *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	return protocol.LocationSlice{{URI: p.TextDocument.URI, Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 2}}}}, nil
}

func (f *fakeServer) Shutdown(ctx context.Context) error { return nil }

func (f *fakeServer) Exit(ctx context.Context) error {
	go f.conn.Close() // Close waits for in-flight handlers, this one included
	return nil
}

func TestRequestsAndCheckFileWithFakeServer(t *testing.T) {
	e := startInProcess(t, Config{Dir: t.TempDir()}, serveFake)
	text := strings.Join([]string{
		"spec:",
		"# ^0 diag warning - \"^first line$\"",
		"  région: x", // é: the hover column differs in bytes and UTF-16
		"#        ^ hover \"field.*xxxxxxx\\n\"",
		"#        ^ complete \"region\" \"regionRef\"",
		"#        ^ complete \"zone\"",
		"#        ^ hover \"nope\"",
		"",
	}, "\n")
	e.Open("a.yaml", text)
	e.AwaitDiagnostics("a.yaml", 1, 5*time.Second)
	if h := e.Hover("a.yaml", 0, 0); h != nil {
		t.Errorf("hover on line 0 = %v, want nil", h)
	}
	if items := e.Completion("a.yaml", 2, 3); len(items) != 2 || items[1].Label != "regionRef" {
		t.Errorf("completion = %+v", items)
	}
	if locs := e.Definition("a.yaml", 2, 3); len(locs) != 1 || locs[0].Range.Start.Line != 1 || locs[0].URI != e.URI("a.yaml") {
		t.Errorf("definition = %+v", locs)
	}
	problems, golden := e.CheckFile("a.yaml", text)
	wantGolden := `1:1 warning [] first line
hover 3:10:
  **field** at xxxxxxxx
  second line
complete 3:10:
  region kind=5 detail="string"
  regionRef insert="regionRef:"
complete 3:10:
  region kind=5 detail="string"
  regionRef insert="regionRef:"
hover 3:10:
  **field** at xxxxxxxx
  second line
`
	if golden != wantGolden {
		t.Errorf("golden =\n%s\nwant\n%s", golden, wantGolden)
	}
	all := strings.Join(problems, "\n")
	if len(problems) != 2 || !strings.Contains(all, `a.yaml:3:10: completion lacks "zone"`) || !strings.Contains(all, `a.yaml:3:10: hover does not match "nope"`) {
		t.Errorf("problems:\n%s", all)
	}
	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	e.Exit()
	if err := e.ServeResult(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}
