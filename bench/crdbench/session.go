package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/lspclient"
)

// publish is one textDocument/publishDiagnostics for a URI.
type publish struct {
	Version     *int         `json:"version"`
	Diagnostics []diagnostic `json:"diagnostics"`
	at          time.Time
}

type diagnostic struct {
	Range struct {
		Start struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source"`
}

func (d diagnostic) String() string {
	return fmt.Sprintf("%d:%d sev %d %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, d.Message)
}

// session is an editor session with one server: it routes each URI's
// publishes to a channel and watches window/logMessage.
type session struct {
	srv      *lspclient.Server
	settings map[string]any // workspace/configuration answers by section
	mu       sync.Mutex
	diags    map[string]chan publish
	logs     chan string
}

func fileURI(p string) string {
	abs, _ := filepath.Abs(p)
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// startSession starts argv in root, initializes it with root as the only
// workspace folder and sends initialized.
func startSession(argv []string, root string, settings map[string]any, initOptions any) (*session, error) {
	s := &session{settings: settings, diags: map[string]chan publish{}, logs: make(chan string, 1<<12)}
	var stderr io.Writer
	if os.Getenv("CRDBENCH_SERVER_STDERR") != "" {
		stderr = os.Stderr
	}
	srv, err := lspclient.Start(argv, root, stderr, s.answer)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	go s.route()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	u := fileURI(root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          u,
		"rootPath":         root,
		"workspaceFolders": []any{map[string]any{"uri": u, "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"dynamicRegistration": false, "didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": true},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			},
			"workspace": map[string]any{
				"configuration":          true,
				"workspaceFolders":       true,
				"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
		"initializationOptions": initOptions,
	}
	if err := srv.Call(ctx, "initialize", params, nil); err != nil {
		srv.Stop(5 * time.Second)
		return nil, err
	}
	if err := srv.Notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	return s, nil
}

// answer answers the server's requests as an editor configured with
// s.settings would.
func (s *session) answer(method string, params json.RawMessage) (any, error) {
	if os.Getenv("CRDBENCH_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "<- request %s %.300s\n", method, params)
	}
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = s.settings[it.Section]
		}
		return out, nil
	default: // client/registerCapability, window/workDoneProgress/create, ...
		return nil, nil
	}
}

func (s *session) route() {
	trace := os.Getenv("CRDBENCH_TRACE") != ""
	for n := range s.srv.Notifications() {
		if trace {
			fmt.Fprintf(os.Stderr, "<- %s %.300s\n", n.Method, n.Params)
		}
		switch n.Method {
		case "textDocument/publishDiagnostics":
			var p struct {
				URI string `json:"uri"`
				publish
			}
			if err := json.Unmarshal(n.Params, &p); err != nil {
				continue
			}
			p.publish.at = n.At
			s.channel(p.URI) <- p.publish
		case "window/logMessage", "window/showMessage":
			var p struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(n.Params, &p)
			select {
			case s.logs <- p.Message:
			default:
			}
		}
	}
	s.mu.Lock()
	for _, ch := range s.diags {
		close(ch)
	}
	s.diags = nil
	s.mu.Unlock()
}

func (s *session) channel(uri string) chan publish {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.diags[uri]
	if !ok {
		ch = make(chan publish, 1<<12)
		s.diags[uri] = ch
	}
	return ch
}

// awaitLog waits for a logMessage containing substr.
func (s *session) awaitLog(substr string, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case m := <-s.logs:
			if strings.Contains(m, substr) {
				return m, nil
			}
		case <-s.srv.Done():
			return "", fmt.Errorf("server ended waiting for %q: %v", substr, s.srv.Err())
		case <-t.C:
			return "", fmt.Errorf("no log %q within %s", substr, timeout)
		}
	}
}

func (s *session) open(uri, text string) error {
	return s.srv.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
}

func (s *session) stop() { s.srv.Stop(10 * time.Second) }
