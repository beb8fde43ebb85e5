package lsptest

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

func TestParseMarkers(t *testing.T) {
	text := strings.Join([]string{
		"spec:",             // 0
		"  engin: postgres", // 1
		"# ^ diag error unknown-field \"unknown field \\\"engin\\\"\"",
		"      replicas: three", // 3
		"#               ^ diag error type \"must be .*integer\"",
		"  forProvider:", // 5
		"# ^ hover \"Region is the region\"",
		"# ^ nodiag", // stacked: both refer to line 5
		"    reg",    // 8
		"#      ^ complete \"region\" \"regionRef\"",
		"  ünï😀: @x", // 10: ü, ï are 2 bytes, 😀 is 4
		"#            ^ diag warning - \"cannot start\"",
		"key: 1\r",                // 12 (CRLF)
		"#^0 diag hint x \"y\"\r", // explicit column 0
	}, "\n")
	ms, err := ParseMarkers(text)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line, col, src  int
		verb, sev, code string
		pattern         string
		labels          []string
	}
	wants := []want{
		{1, 2, 2, "diag", "error", "unknown-field", `unknown field "engin"`, nil},
		{3, 16, 4, "diag", "error", "type", "must be .*integer", nil},
		{5, 2, 6, "hover", "", "", "Region is the region", nil},
		{5, 2, 7, "nodiag", "", "", "", nil},
		{8, 7, 9, "complete", "", "", "", []string{"region", "regionRef"}},
		{10, 13, 11, "diag", "warning", "-", "cannot start", nil},
		{12, 0, 13, "diag", "hint", "x", "y", nil},
	}
	if len(ms) != len(wants) {
		t.Fatalf("got %d markers, want %d: %+v", len(ms), len(wants), ms)
	}
	lines := splitLines(text)
	for i, w := range wants {
		m := ms[i]
		pat := ""
		if m.Pattern != nil {
			pat = m.Pattern.String()
		}
		if m.Line != w.line || m.Col != w.col || m.Source != w.src || m.Verb != w.verb || m.Severity != w.sev ||
			m.Code != w.code || pat != w.pattern || strings.Join(m.Labels, ",") != strings.Join(w.labels, ",") {
			t.Errorf("marker %d = %+v (pattern %q), want %+v", i, m, pat, w)
		}
	}
	// The non-ASCII target: byte 13 is the '@', UTF-16 column 9.
	if got := lines[10][ms[5].Col]; got != '@' {
		t.Errorf("byte column %d of %q is %q, want '@'", ms[5].Col, lines[10], got)
	}
	if got := CharColumn(lines[10], ms[5].Col, UTF16); got != 9 {
		t.Errorf("UTF-16 column = %d, want 9", got)
	}
	if got := CharColumn(lines[10], ms[5].Col, UTF32); got != 8 {
		t.Errorf("UTF-32 column = %d, want 8", got)
	}
}

func TestParseMarkersErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"# ^ nodiag\n", "marker before any content line"},
		{"a: 1\n# ^\n", "marker without a verb"},
		{"a: 1\n# ^ dig\n", `unknown marker verb "dig"`},
		{"a: 1\n# ^ diag fatal x \"y\"\n", `unknown severity "fatal"`},
		{"a: 1\n# ^ diag error x\n", "want: diag"},
		{"a: 1\n# ^ diag error x \"(\"\n", "missing closing )"},
		{"a: 1\n# ^ hover \"unterminated\n", "bad quoted string"},
		{"a: 1\n# ^ complete\n", "want: complete"},
		{"a: 1\n# ^ nodiag please\n", "nodiag takes no arguments"},
	} {
		_, err := ParseMarkers(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.text, err, c.want)
		}
	}
	// Ordinary comments and carets elsewhere are not markers.
	ms, err := ParseMarkers("# a comment\na: ^x # ^ not at the start\n#x ^ nodiag\n")
	if err != nil || len(ms) != 0 {
		t.Errorf("got %v, %v; want no markers", ms, err)
	}
}

func TestColumns(t *testing.T) {
	line := "aé😀b\xffc" // a(1) é(2) 😀(4) b(1) invalid(1) c(1)
	for _, c := range []struct {
		byteCol, u16, u32 int
	}{
		{0, 0, 0}, {1, 1, 1}, {3, 2, 2}, {7, 4, 3}, {8, 5, 4}, {9, 6, 5}, {10, 7, 6}, {12, 9, 8},
	} {
		if got := CharColumn(line, c.byteCol, UTF16); got != c.u16 {
			t.Errorf("CharColumn(%d, utf-16) = %d, want %d", c.byteCol, got, c.u16)
		}
		if got := CharColumn(line, c.byteCol, UTF32); got != c.u32 {
			t.Errorf("CharColumn(%d, utf-32) = %d, want %d", c.byteCol, got, c.u32)
		}
		if got := ByteColumn(line, c.u16, UTF16); got != c.byteCol {
			t.Errorf("ByteColumn(%d, utf-16) = %d, want %d", c.u16, got, c.byteCol)
		}
		if got := ByteColumn(line, c.u32, UTF32); got != c.byteCol {
			t.Errorf("ByteColumn(%d, utf-32) = %d, want %d", c.u32, got, c.byteCol)
		}
		if got := CharColumn(line, c.byteCol, UTF8); got != c.byteCol {
			t.Errorf("CharColumn(%d, utf-8) = %d", c.byteCol, got)
		}
	}
	// Inside a surrogate pair: the emoji's start.
	if got := ByteColumn(line, 3, UTF16); got != 3 {
		t.Errorf("ByteColumn(inside pair) = %d, want 3", got)
	}
	// Inside a multi-byte character: counts from its start.
	if got := CharColumn(line, 2, UTF16); got != 1 {
		t.Errorf("CharColumn(inside é) = %d, want 1", got)
	}
}

func diag(line, char uint32, sev protocol.DiagnosticSeverity, code, msg string) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    protocol.Range{Start: protocol.Position{Line: line, Character: char}, End: protocol.Position{Line: line, Character: char + 1}},
		Severity: sev,
		Code:     protocol.String(code),
		Message:  protocol.String(msg),
	}
}

// TestCheckDiagnostics exercises the matcher without a server, on a
// non-ASCII line in both encodings.
func TestCheckDiagnostics(t *testing.T) {
	text := "a:\n  ünï😀: @x\n#            ^ diag error yaml-syntax \"cannot start\"\nb: 1\n# ^ nodiag\n"
	ms, err := ParseMarkers(text)
	if err != nil {
		t.Fatal(err)
	}
	const msg = "found character that cannot start any token"
	for _, c := range []struct {
		name, enc string
		diags     []protocol.Diagnostic
		want      []string
	}{
		{"utf-16 match", UTF16, []protocol.Diagnostic{diag(1, 9, protocol.DiagnosticSeverityError, "yaml-syntax", msg)}, nil},
		{"utf-8 match", UTF8, []protocol.Diagnostic{diag(1, 13, protocol.DiagnosticSeverityError, "yaml-syntax", msg)}, nil},
		{"byte column sent as utf-16", UTF16, []protocol.Diagnostic{diag(1, 13, protocol.DiagnosticSeverityError, "yaml-syntax", msg)},
			[]string{"t.yaml:2:14: no error [yaml-syntax]", "unexpected diagnostic (no diag marker): 2:18 error"}},
		{"missing", UTF16, nil, []string{"t.yaml:2:14: no error [yaml-syntax] diagnostic matching \"cannot start\""}},
		{"extra on nodiag line", UTF16, []protocol.Diagnostic{
			diag(1, 9, protocol.DiagnosticSeverityError, "yaml-syntax", msg),
			diag(3, 3, protocol.DiagnosticSeverityWarning, "enum", "bad"),
		}, []string{"t.yaml:4: diagnostic on a nodiag line", "unexpected diagnostic (no diag marker): 4:4 warning [enum] bad"}},
	} {
		problems := CheckDiagnostics("t.yaml", text, c.enc, ms, c.diags)
		all := strings.Join(problems, "\n")
		if len(c.want) == 0 && len(problems) != 0 {
			t.Errorf("%s: problems:\n%s", c.name, all)
		}
		if len(c.want) != 0 && len(problems) == 0 {
			t.Errorf("%s: no problems found", c.name)
		}
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no problem mentions %q:\n%s", c.name, w, all)
			}
		}
	}
	got := FormatDiagnostics(text, UTF16, []protocol.Diagnostic{
		diag(3, 0, protocol.DiagnosticSeverityHint, "", "line\nbreak"),
		diag(1, 9, protocol.DiagnosticSeverityError, "yaml-syntax", msg),
	})
	want := "2:14 error [yaml-syntax] " + msg + "\n4:1 hint [] line\\nbreak\n"
	if got != want {
		t.Errorf("FormatDiagnostics = %q, want %q", got, want)
	}
}

func TestGoldenPath(t *testing.T) {
	if got := GoldenPath("/x/a.yaml"); got != "/x/a.golden" {
		t.Error(got)
	}
	if got := GoldenPath("/x/b.yml"); got != "/x/b.golden" {
		t.Error(got)
	}
}

func TestConfigurationAnswers(t *testing.T) {
	e := &Editor{settings: map[string]any{"validation": map[string]any{"unknownKind": "error"}}, wake: make(chan struct{})}
	e.cfg.Dir = "/ws/a"
	e.cfg.Folders = []string{"/ws/b"}
	c := &client{e: e}
	sec := func(s string) *string { return &s }
	res, err := c.Configuration(context.Background(), &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{
		{Section: sec("crdLsp")}, {Section: sec("crdLsp.validation")}, {Section: sec("crdLsp.validation.unknownKind")},
		{}, {Section: sec("yaml")}, {Section: sec("crdLsp.nope.deeper")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"validation":{"unknownKind":"error"}}`, `{"unknownKind":"error"}`, `"error"`,
		`{"crdLsp":{"validation":{"unknownKind":"error"}}}`, `null`, `null`,
	}
	for i, w := range want {
		if string(res[i]) != w {
			t.Errorf("item %d = %s, want %s", i, res[i], w)
		}
	}
	folders, _ := c.WorkspaceFolders(context.Background())
	if len(folders) != 2 || folders[0].URI != "file:///ws/a" || folders[1].Name != "b" {
		t.Errorf("workspace folders = %+v", folders)
	}
	// Registrations are kept until unregistered.
	_ = c.RegisterCapability(context.Background(), &protocol.RegistrationParams{Registrations: []protocol.Registration{{ID: "1", Method: "m1"}, {ID: "2", Method: "m2"}}})
	_ = c.UnregisterCapability(context.Background(), &protocol.UnregistrationParams{Unregisterations: []protocol.Unregistration{{ID: "1", Method: "m1"}}})
	if r := e.Registrations(); len(r) != 1 || r[0].ID != "2" {
		t.Errorf("registrations = %+v", r)
	}
	raw, _ := json.Marshal(e.settings)
	if !json.Valid(raw) {
		t.Fatal("settings do not marshal")
	}
}

func TestPipeNeverBlocksWriters(t *testing.T) {
	p := newPipe()
	big := strings.Repeat("x", 1<<20)
	done := make(chan struct{})
	go func() {
		_, _ = p.Write([]byte(big)) // nobody reads yet
		_ = p.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("write blocked without a reader")
	}
	got, err := io.ReadAll(p)
	if err != nil || len(got) != len(big) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if _, err := p.Write([]byte("late")); err == nil {
		t.Error("write after close succeeded")
	}
}
