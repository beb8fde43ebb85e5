// This file runs the marker-based golden tests: expectations written in YAML
// comments, checked against a real session.

package lsptest

import (
	"errors"
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

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// update is the -update flag of every test binary that links lsptest. Test
// packages that import lsptest must not define their own -update flag; read
// it through Update.
var update = func() *bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				v := b
				return &v
			}
		}
	}
	return flag.Bool("update", false, "rewrite lsptest .golden files from the server's current answers")
}()

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Marker is one expectation written in a YAML comment line.
type Marker struct {
	Line, Col int    // 0-based target line and byte column in the file
	Verb      string // diag, nodiag, hover, complete or fix
	Severity  string // diag: error, warning, info or hint
	Code      string // diag: the code, "-" for any
	Pattern   *regexp.Regexp
	Labels    []string // complete
	Source    int      // 0-based line of the marker comment itself
}

func (m Marker) pos() string { return fmt.Sprintf("%d:%d", m.Line+1, m.Col+1) }

var markerRE = regexp.MustCompile(`^([ \t]*#[ \t]*)\^(\d*)(?:[ \t]+(.*))?$`)

// ParseMarkers extracts the markers of a file. A marker line is a comment
// whose first non-blank character after '#' is '^'. The caret's byte column
// in its line (or the number written right after it: "^0") is the target
// column on the nearest preceding line that is not a marker line.
func ParseMarkers(text string) ([]Marker, error) {
	var out []Marker
	var errs []error
	target := -1
	for i, raw := range strings.Split(text, "\n") {
		m := markerRE.FindStringSubmatch(strings.TrimSuffix(raw, "\r"))
		if m == nil {
			target = i
			continue
		}
		mk, err := parseMarker(m, target, i)
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", i+1, err))
			continue
		}
		out = append(out, mk)
	}
	return out, errors.Join(errs...)
}

func parseMarker(m []string, target, src int) (Marker, error) {
	if target < 0 {
		return Marker{}, errors.New("marker before any content line")
	}
	col := len(m[1])
	if m[2] != "" {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return Marker{}, err
		}
		col = n
	}
	args, err := splitArgs(m[3])
	if err != nil {
		return Marker{}, err
	}
	if len(args) == 0 {
		return Marker{}, errors.New("marker without a verb")
	}
	mk := Marker{Line: target, Col: col, Verb: args[0], Source: src}
	args = args[1:]
	switch mk.Verb {
	case "diag":
		if len(args) != 3 {
			return mk, errors.New(`want: diag <error|warning|info|hint> <code|-> "<regexp>"`)
		}
		mk.Severity, mk.Code = args[0], args[1]
		switch mk.Severity {
		case "error", "warning", "info", "hint":
		default:
			return mk, fmt.Errorf("unknown severity %q (want error, warning, info or hint)", mk.Severity)
		}
		if mk.Pattern, err = regexp.Compile(args[2]); err != nil {
			return mk, err
		}
	case "hover":
		if len(args) != 1 {
			return mk, errors.New(`want: hover "<regexp>"`)
		}
		if mk.Pattern, err = regexp.Compile(args[0]); err != nil {
			return mk, err
		}
	case "complete":
		if len(args) == 0 {
			return mk, errors.New(`want: complete "<label>"...`)
		}
		mk.Labels = args
	case "fix":
		if len(args) != 1 {
			return mk, errors.New(`want: fix "<regexp of the code action's title>"`)
		}
		if mk.Pattern, err = regexp.Compile(args[0]); err != nil {
			return mk, err
		}
	case "nodiag":
		if len(args) != 0 {
			return mk, errors.New("nodiag takes no arguments")
		}
	default:
		return mk, fmt.Errorf("unknown marker verb %q (want diag, nodiag, hover, complete or fix)", mk.Verb)
	}
	return mk, nil
}

// splitArgs splits words and "quoted strings" (Go escapes inside quotes).
func splitArgs(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string at %q", s)
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

// splitLines splits text into lines without their line breaks.
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// byteCol converts a server position's character to a byte column.
func byteCol(lines []string, p protocol.Position, enc string) int {
	line := ""
	if int(p.Line) < len(lines) {
		line = lines[p.Line]
	}
	return ByteColumn(line, int(p.Character), enc)
}

// charCol converts a marker's byte column to a character in enc.
func charCol(lines []string, line, col int, enc string) int {
	s := ""
	if line < len(lines) {
		s = lines[line]
	}
	return CharColumn(s, col, enc)
}

// CheckDiagnostics matches diags (as published for text, positions in enc)
// against the diag and nodiag markers and returns the problems found: a
// marker without its diagnostic, a diagnostic without its marker, a
// diagnostic on a nodiag line. name prefixes each problem.
func CheckDiagnostics(name, text, enc string, markers []Marker, diags []protocol.Diagnostic) []string {
	lines := splitLines(text)
	var problems []string
	matched := make([]bool, len(diags))
	for _, mk := range markers {
		switch mk.Verb {
		case "diag":
			found := false
			for i, d := range diags {
				if int(d.Range.Start.Line) == mk.Line && byteCol(lines, d.Range.Start, enc) == mk.Col &&
					SeverityName(d.Severity) == mk.Severity && (mk.Code == "-" || Code(d) == mk.Code) &&
					mk.Pattern.MatchString(Message(d)) {
					matched[i], found = true, true
				}
			}
			if !found {
				problems = append(problems, fmt.Sprintf("%s:%s: no %s [%s] diagnostic matching %q starts here (marker on line %d); published:\n%s",
					name, mk.pos(), mk.Severity, mk.Code, mk.Pattern, mk.Source+1, indent(FormatDiagnostics(text, enc, diags), "  ")))
			}
		case "nodiag":
			for _, d := range diags {
				if int(d.Range.Start.Line) == mk.Line {
					problems = append(problems, fmt.Sprintf("%s:%d: diagnostic on a nodiag line (marker on line %d): %s",
						name, mk.Line+1, mk.Source+1, strings.TrimSuffix(FormatDiagnostics(text, enc, []protocol.Diagnostic{d}), "\n")))
				}
			}
		}
	}
	for i, d := range diags {
		if !matched[i] {
			problems = append(problems, fmt.Sprintf("%s: unexpected diagnostic (no diag marker): %s",
				name, strings.TrimSuffix(FormatDiagnostics(text, enc, []protocol.Diagnostic{d}), "\n")))
		}
	}
	return problems
}

// FormatDiagnostics renders diags as the golden files list them, sorted:
// "line:col severity [code] message", 1-based, columns in bytes.
func FormatDiagnostics(text, enc string, diags []protocol.Diagnostic) string {
	lines := splitLines(text)
	type row struct {
		line, col int
		s         string
	}
	rows := make([]row, 0, len(diags))
	for _, d := range diags {
		l, c := int(d.Range.Start.Line), byteCol(lines, d.Range.Start, enc)
		msg := strings.ReplaceAll(Message(d), "\n", `\n`)
		rows = append(rows, row{l, c, fmt.Sprintf("%d:%d %s [%s] %s\n", l+1, c+1, SeverityName(d.Severity), Code(d), msg)})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].line != rows[j].line {
			return rows[i].line < rows[j].line
		}
		if rows[i].col != rows[j].col {
			return rows[i].col < rows[j].col
		}
		return rows[i].s < rows[j].s
	})
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.s)
	}
	return b.String()
}

// RunGolden runs the marker tests of dir: it starts one in-process editor
// whose workspace root is dir, opens every *.yaml and *.yml file under dir
// (recursively), waits for their diagnostics, and checks each file's
// markers and its .golden file in a subtest named after the file.
func RunGolden(t *testing.T, dir string) {
	t.Helper()
	RunGoldenConfig(t, Config{Dir: dir})
}

// RunGoldenConfig is RunGolden with a Config of one's own (settings, extra
// folders, encodings); cfg.Dir is the folder of the inputs.
func RunGoldenConfig(t *testing.T, cfg Config) {
	t.Helper()
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = dir
	files, err := goldenInputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := StartInProcess(t, cfg)
	e.AwaitSchemas(60 * time.Second)
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
		e.AwaitDiagnostics(f, 1, 30*time.Second)
	}
	// Opening one file may change what another one means (a CRD): wait
	// until the server has nothing left to do.
	e.AwaitIdle(30 * time.Second)
	for _, f := range files {
		rel, _ := filepath.Rel(cfg.Dir, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			problems, golden := e.CheckFile(f, texts[f])
			for _, p := range problems {
				t.Error(p)
			}
			compareGolden(t, GoldenPath(f), golden)
		})
	}
}

// goldenInputs lists the YAML files under dir, sorted.
func goldenInputs(dir string) ([]string, error) {
	var files []string
	seen := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			g := GoldenPath(abs)
			if other, dup := seen[g]; dup {
				return fmt.Errorf("%s and %s would share the golden file %s", other, abs, g)
			}
			seen[g] = abs
			files = append(files, abs)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing golden inputs under %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.yaml or *.yml golden inputs under %s", dir)
	}
	sort.Strings(files)
	return files, nil
}

// GoldenPath is the golden file of an input: its name with .golden in
// place of .yaml or .yml, in the same folder.
func GoldenPath(input string) string {
	return strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (go test -update writes it)", err)
		return
	}
	if string(have) != got {
		t.Errorf("%s differs from the server's answers (go test -update rewrites it):\n--- %s\n%s--- server\n%s",
			filepath.Base(path), filepath.Base(path), have, got)
	}
}

// CheckFile checks the markers of text, open in the editor as path, against
// the latest published diagnostics and fresh hover and completion answers.
// It returns the problems found and the golden text: every diagnostic, then
// every hover and completion answer in marker order. RunGolden calls it
// after the diagnostics have settled.
func (e *Editor) CheckFile(path, text string) (problems []string, golden string) {
	e.t.Helper()
	name := filepath.Base(path)
	markers, err := ParseMarkers(text)
	if err != nil {
		return []string{fmt.Sprintf("%s: bad markers: %v", name, err)}, ""
	}
	enc := e.Encoding()
	lines := splitLines(text)
	diags := e.Diagnostics(path)
	problems = CheckDiagnostics(name, text, enc, markers, diags)
	var b strings.Builder
	b.WriteString(FormatDiagnostics(text, enc, diags))
	for _, mk := range markers {
		char := charCol(lines, mk.Line, mk.Col, enc)
		switch mk.Verb {
		case "hover":
			h, err := e.hover(path, mk.Line, char)
			got := ""
			switch {
			case err != nil:
				got = "error: " + err.Error()
				problems = append(problems, fmt.Sprintf("%s:%s: hover: %v", name, mk.pos(), err))
			case h == nil:
				got = "(no hover)"
			default:
				got = HoverText(h)
			}
			fmt.Fprintf(&b, "hover %s:\n%s\n", mk.pos(), indent(got, "  "))
			if err == nil && !mk.Pattern.MatchString(got) {
				problems = append(problems, fmt.Sprintf("%s:%s: hover does not match %q:\n%s", name, mk.pos(), mk.Pattern, indent(got, "  ")))
			}
		case "fix":
			actions, err := e.CodeActions(path, mk.Line, char)
			fmt.Fprintf(&b, "fix %s:\n", mk.pos())
			if err != nil {
				fmt.Fprintf(&b, "  error: %v\n", err)
				problems = append(problems, fmt.Sprintf("%s:%s: code action: %v", name, mk.pos(), err))
				continue
			}
			found := false
			for _, a := range actions {
				found = found || mk.Pattern.MatchString(a.Title)
				b.WriteString(indent(formatAction(text, enc, a), "  ") + "\n")
			}
			if !found {
				var titles []string
				for _, a := range actions {
					titles = append(titles, a.Title)
				}
				problems = append(problems, fmt.Sprintf("%s:%s: no code action titled like %q; offered %q", name, mk.pos(), mk.Pattern, titles))
			}
		case "complete":
			items, err := e.completion(path, mk.Line, char)
			fmt.Fprintf(&b, "complete %s:\n", mk.pos())
			if err != nil {
				fmt.Fprintf(&b, "  error: %v\n", err)
				problems = append(problems, fmt.Sprintf("%s:%s: completion: %v", name, mk.pos(), err))
				continue
			}
			var labels []string
			for _, it := range items {
				labels = append(labels, it.Label)
				b.WriteString("  " + formatItem(it) + "\n")
			}
			for _, want := range mk.Labels {
				if !contains(labels, want) {
					problems = append(problems, fmt.Sprintf("%s:%s: completion lacks %q; offered %q", name, mk.pos(), want, labels))
				}
			}
		}
	}
	return problems, b.String()
}

// formatAction renders a code action: its title, the diagnostics it fixes
// and its edits ("line:col-line:col → text", 1-based, byte columns).
func formatAction(text, enc string, a protocol.CodeAction) string {
	lines := splitLines(text)
	var b strings.Builder
	b.WriteString(a.Title)
	if a.IsPreferred != nil && *a.IsPreferred {
		b.WriteString(" (preferred)")
	}
	for _, d := range a.Diagnostics {
		fmt.Fprintf(&b, "\n  fixes %s", strings.TrimSuffix(FormatDiagnostics(text, enc, []protocol.Diagnostic{d}), "\n"))
	}
	if a.Edit != nil {
		var uris []string
		for u := range a.Edit.Changes {
			uris = append(uris, string(u))
		}
		sort.Strings(uris)
		for _, u := range uris {
			for _, te := range a.Edit.Changes[uri.URI(u)] {
				r := te.Range
				fmt.Fprintf(&b, "\n  edit %d:%d-%d:%d → %s", r.Start.Line+1, byteCol(lines, r.Start, enc)+1, r.End.Line+1, byteCol(lines, r.End, enc)+1, strconv.Quote(te.NewText))
			}
		}
	}
	return b.String()
}

func formatItem(it protocol.CompletionItem) string {
	s := it.Label
	if it.Kind != 0 {
		s += fmt.Sprintf(" kind=%d", it.Kind)
	}
	if d, ok := it.Detail.Get(); ok && d != "" {
		s += " detail=" + strconv.Quote(d)
	}
	if ins, ok := it.InsertText.Get(); ok && ins != it.Label {
		s += " insert=" + strconv.Quote(ins)
	}
	switch te := it.TextEdit.(type) {
	case *protocol.TextEdit:
		s += " edit=" + strconv.Quote(te.NewText)
	case *protocol.InsertReplaceEdit:
		s += " edit=" + strconv.Quote(te.NewText)
	}
	return s
}

// SeverityName is "error", "warning", "info", "hint", or "none" (unset).
func SeverityName(s protocol.DiagnosticSeverity) string {
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

// Message returns a diagnostic's message text.
func Message(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	case nil:
		return ""
	}
	return fmt.Sprint(d.Message)
}

// Code returns a diagnostic's code ("" when it has none).
func Code(d protocol.Diagnostic) string {
	switch c := d.Code.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return strconv.Itoa(int(c))
	case nil:
		return ""
	}
	return fmt.Sprint(d.Code)
}

// HoverText flattens a hover's contents to text (markdown as sent).
func HoverText(h *protocol.Hover) string {
	if h == nil {
		return ""
	}
	switch c := h.Contents.(type) {
	case protocol.String:
		return string(c)
	case *protocol.MarkupContent:
		return c.Value
	case *protocol.MarkedStringWithLanguage:
		return "```" + c.Language + "\n" + c.Value + "\n```"
	case protocol.MarkedStringSlice:
		var parts []string
		for _, m := range c {
			switch m := m.(type) {
			case protocol.String:
				parts = append(parts, string(m))
			case *protocol.MarkedStringWithLanguage:
				parts = append(parts, "```"+m.Language+"\n"+m.Value+"\n```")
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return fmt.Sprint(h.Contents)
}

func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return prefix + "(empty)"
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
