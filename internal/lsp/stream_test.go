package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

type rwc struct {
	io.Reader
	out bytes.Buffer
}

func (r *rwc) Write(p []byte) (int, error) { return r.out.Write(p) }
func (r *rwc) Close() error                { return nil }

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func TestResilientStreamSkipsGarbage(t *testing.T) {
	valid := `{"jsonrpc":"2.0","id":7,"method":"shutdown"}`
	input := strings.Join([]string{
		"this is not a header\r\n\r\n",
		"Content-Length: twelve\r\n\r\n",
		frame(`{not json`),
		frame(`[1,2,3]`),
		frame(`{"hello":"world"}`),
		"\r\n",
		frame(valid),
	}, "")
	var logs bytes.Buffer
	s := newResilientStream(&rwc{Reader: strings.NewReader(input)}, slog.New(slog.NewTextHandler(&logs, nil)))
	msg, _, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v\nlog:\n%s", err, logs.String())
	}
	call, ok := msg.(*jsonrpc2.Call)
	if !ok || call.Method() != "shutdown" {
		t.Fatalf("got %#v, want the shutdown call", msg)
	}
	for _, want := range []string{"header line without ':'", "invalid Content-Length", "not a JSON-RPC message"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	if _, _, err := s.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("at end of input: err = %v, want io.EOF", err)
	}
}

func TestResilientStreamTruncatedBody(t *testing.T) {
	s := newResilientStream(&rwc{Reader: strings.NewReader("Content-Length: 100\r\n\r\n{\"jsonrpc\"")}, slog.New(slog.DiscardHandler))
	if _, _, err := s.Read(context.Background()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestParseSettings(t *testing.T) {
	s, err := parseSettings([]byte(`{"crdLsp":{"crossplaneVersion":"v1","validation":{"unknownKind":"error"},"schemas":{"exclude":["charts/**"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.CrossplaneVersion != "v1" || s.Validation.UnknownKind != "error" || len(s.Schemas.Exclude) != 1 || s.Validation.CompositionMode != "warn" {
		t.Errorf("wrapped settings parsed as %+v", s)
	}
	s, err = parseSettings([]byte(`{"validation":{"unknownKind":"ignore"}}`))
	if err != nil || s.Validation.UnknownKind != "ignore" || s.Schemas.MaxFileSize != 10<<20 {
		t.Errorf("bare settings parsed as %+v, %v", s, err)
	}
	if _, err := parseSettings([]byte(`[1]`)); err == nil {
		t.Error("an array was accepted as settings")
	}
	s, err = parseSettings(nil)
	if err != nil || s.Validation.UnknownKind != "warning" {
		t.Errorf("defaults = %+v, %v", s, err)
	}
}
