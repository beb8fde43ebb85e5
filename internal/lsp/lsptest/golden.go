package lsptest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

var update = flag.Bool("update", false, "rewrite .golden files from the server's current answers")

// Marker is one expectation written in a YAML comment.
type Marker struct {
	Line, Col int // 0-based line and byte column of the target in the file
	Verb      string
	Severity  string         // diag
	Code      string         // diag; "-" = any
	Pattern   *regexp.Regexp // diag, hover
	Labels    []string       // complete
	Source    int            // 0-based line of the marker itself
}

var markerRE = regexp.MustCompile(`^(\s*#\s*)\^(\d*)\s+(\w+)\s*(.*)$`)

// ParseMarkers extracts the markers of a file. A marker line is a comment
// whose first non-blank character after '#' is '^'; the caret's byte column
// (or the digits right after it, "^0") is the target column on the nearest
// preceding line that is not a marker.
func ParseMarkers(text string) ([]Marker, error) {
	lines := strings.Split(text, "\n")
	var out []Marker
	target := -1
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		m := markerRE.FindStringSubmatch(line)
		if m == nil {
			target = i
			continue
		}
		if target < 0 {
			return nil, fmt.Errorf("line %d: marker before any content line", i+1)
		}
		col := len(m[1])
		if m[2] != "" {
			col, _ = strconv.Atoi(m[2])
		}
		mk := Marker{Line: target, Col: col, Verb: m[3], Source: i}
		args, err := splitArgs(m[4])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		switch mk.Verb {
		case "diag":
			if len(args) != 3 {
				return nil, fmt.Errorf("line %d: want: diag <severity> <code|-> \"<regexp>\"", i+1)
			}
			mk.Severity, mk.Code = args[0], args[1]
			if mk.Pattern, err = regexp.Compile(args[2]); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
		case "hover":
			if len(args) != 1 {
				return nil, fmt.Errorf("line %d: want: hover \"<regexp>\"", i+1)
			}
			if mk.Pattern, err = regexp.Compile(args[0]); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
		case "complete":
			if len(args) == 0 {
				return nil, fmt.Errorf("line %d: want: complete \"<label>\"...", i+1)
			}
			mk.Labels = args
		case "nodiag":
		default:
			return nil, fmt.Errorf("line %d: unknown marker verb %q", i+1, mk.Verb)
		}
		out = append(out, mk)
	}
	return out, nil
}

// splitArgs splits words and "quoted strings" (Go escapes inside quotes).
func splitArgs(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string in %q", s)
			}
			v, _ := strconv.Unquote(q)
			out = append(out, v)
			s = strings.TrimSpace(s[len(q):])
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out = append(out, w)
		s = strings.TrimSpace(rest)
	}
	return out, nil
}

// RunGolden opens every YAML file under dir in one in-process editor whose
// workspace is dir, and checks each file's markers and .golden file.
func RunGolden(t *testing.T, dir string) {
	t.Helper()
	RunGoldenConfig(t, Config{Dir: dir})
}

// RunGoldenConfig is RunGolden with settings or encodings of one's own.
func RunGoldenConfig(t *testing.T, cfg Config) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(cfg.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs under %s (%v)", cfg.Dir, err)
	}
	sort.Strings(files)
	e := StartInProcess(t, cfg)
	e.AwaitSchemas(60 * time.Second)
	utf8Enc := e.InitializeResult().Capabilities.PositionEncoding == protocol.PositionEncodingKindUTF8
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
		e.Open(f, string(b))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(cfg.Dir, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			checkGoldenFile(t, e, f, texts[f], utf8Enc)
		})
	}
}

func checkGoldenFile(t *testing.T, e *Editor, path, text string, utf8Enc bool) {
	markers, err := ParseMarkers(text)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lines := strings.Split(text, "\n")
	// byteCol converts a protocol character to a byte column on a line.
	byteCol := func(line, char int) int {
		if utf8Enc || line >= len(lines) {
			return char
		}
		units, b := 0, 0
		for _, r := range lines[line] {
			if units >= char {
				break
			}
			units += utf16Len(r)
			b += utf8.RuneLen(r)
		}
		return b
	}
	diags := e.AwaitSettled(path, 30*time.Millisecond, 20*time.Second)
	var golden strings.Builder
	matched := make([]bool, len(diags))
	for _, mk := range markers {
		switch mk.Verb {
		case "diag":
			found := false
			for i, d := range diags {
				msg := messageText(d.Message)
				if int(d.Range.Start.Line) == mk.Line && byteCol(mk.Line, int(d.Range.Start.Character)) == mk.Col &&
					severityName(d.Severity) == mk.Severity && (mk.Code == "-" || codeText(d.Code) == mk.Code) && mk.Pattern.MatchString(msg) {
					matched[i], found = true, true
				}
			}
			if !found {
				t.Errorf("%s:%d:%d: no %s [%s] diagnostic matching %q (marker on line %d); got:\n%s",
					filepath.Base(path), mk.Line+1, mk.Col+1, mk.Severity, mk.Code, mk.Pattern, mk.Source+1, formatDiags(diags, byteCol))
			}
		case "nodiag":
			for _, d := range diags {
				if int(d.Range.Start.Line) == mk.Line {
					t.Errorf("%s:%d: unexpected diagnostic %q", filepath.Base(path), mk.Line+1, messageText(d.Message))
				}
			}
		case "hover":
			h, err := e.Hover(path, mk.Line, protocolCol(lines, mk.Line, mk.Col, utf8Enc))
			got := ""
			if err != nil {
				got = "error: " + err.Error()
			} else if h != nil {
				got = hoverText(h)
			}
			fmt.Fprintf(&golden, "hover %d:%d:\n%s\n", mk.Line+1, mk.Col+1, indent(got))
			if !mk.Pattern.MatchString(got) {
				t.Errorf("%s:%d:%d: hover %q does not match %q", filepath.Base(path), mk.Line+1, mk.Col+1, got, mk.Pattern)
			}
		case "complete":
			var res protocol.CompletionResult
			var labels []string
			params := &protocol.CompletionParams{TextDocumentPositionParams: e.pos(path, mk.Line, protocolCol(lines, mk.Line, mk.Col, utf8Enc))}
			if err := e.Call(protocol.MethodTextDocumentCompletion, params, &res); err != nil {
				t.Errorf("%s:%d:%d: completion: %v", filepath.Base(path), mk.Line+1, mk.Col+1, err)
			}
			switch r := res.(type) {
			case protocol.CompletionItemSlice:
				for _, it := range r {
					labels = append(labels, it.Label)
				}
			case *protocol.CompletionList:
				for _, it := range r.Items {
					labels = append(labels, it.Label)
				}
			}
			fmt.Fprintf(&golden, "complete %d:%d: %s\n", mk.Line+1, mk.Col+1, strings.Join(labels, ", "))
			for _, want := range mk.Labels {
				if !contains(labels, want) {
					t.Errorf("%s:%d:%d: completion lacks %q; got %v", filepath.Base(path), mk.Line+1, mk.Col+1, want, labels)
				}
			}
		}
	}
	for i, d := range diags {
		if !matched[i] {
			t.Errorf("%s: unexpected diagnostic %s", filepath.Base(path), formatDiags(diags[i:i+1], byteCol))
		}
		_ = d
	}
	want := formatDiags(diags, byteCol) + golden.String()
	goldenPath := path + ".golden"
	if *update {
		if err := os.WriteFile(goldenPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(have) != want {
		t.Errorf("%s differs from the server's answers (go test -update rewrites it):\n--- have\n%s--- want\n%s", filepath.Base(goldenPath), have, want)
	}
}

func formatDiags(diags []protocol.Diagnostic, byteCol func(line, char int) int) string {
	var b strings.Builder
	for _, d := range diags {
		l := int(d.Range.Start.Line)
		fmt.Fprintf(&b, "%d:%d %s [%s] %s\n", l+1, byteCol(l, int(d.Range.Start.Character))+1, severityName(d.Severity), codeText(d.Code), messageText(d.Message))
	}
	return b.String()
}

func protocolCol(lines []string, line, byteCol int, utf8Enc bool) int {
	if utf8Enc || line >= len(lines) {
		return byteCol
	}
	units := 0
	for i, r := range lines[line] {
		if i >= byteCol {
			break
		}
		units += utf16Len(r)
	}
	return units
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "none"
}

func codeText(c protocol.ProgressToken) string {
	switch c := c.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return strconv.Itoa(int(c))
	}
	return ""
}

func messageText(m protocol.InlayHintTooltip) string {
	switch m := m.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return ""
}

func hoverText(h *protocol.Hover) string {
	switch c := h.Contents.(type) {
	case protocol.String:
		return string(c)
	case *protocol.MarkupContent:
		return c.Value
	}
	return fmt.Sprint(h.Contents)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Message returns a diagnostic's message text.
func Message(d protocol.Diagnostic) string { return messageText(d.Message) }

// Code returns a diagnostic's code.
func Code(d protocol.Diagnostic) string { return codeText(d.Code) }
