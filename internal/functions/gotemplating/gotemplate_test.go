package gotemplating

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// step is a function-go-templating step of a Composition file: its
// template, and the node of the string it came from.
type step struct {
	file  *document.File
	tpl   Template
	paths []fieldpath.Path // of each Part's string, in the file
}

// templateSteps reads every go-templating step with an inline template of
// a file's Compositions.
func templateSteps(t *testing.T, name string, text []byte) []step {
	t.Helper()
	f := document.Parse(name, 0, text)
	var out []step
	for _, d := range f.Docs {
		v, err := d.Object()
		m, _ := v.(map[string]any)
		if err != nil || m["kind"] != "Composition" {
			continue
		}
		spec, _ := m["spec"].(map[string]any)
		pipeline, _ := spec["pipeline"].([]any)
		for i, s := range pipeline {
			sm, _ := s.(map[string]any)
			in, _ := sm["input"].(map[string]any)
			tpl, ok := FromInput(in)
			if !ok {
				continue
			}
			base := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline"), fieldpath.Index(i), fieldpath.Field("input"), fieldpath.Field("inline")}
			st := step{file: f, tpl: tpl}
			for _, p := range tpl.Parts {
				if p.Index < 0 {
					st.paths = append(st.paths, base.Child(fieldpath.Field("template")))
				} else {
					st.paths = append(st.paths, base.Child(fieldpath.Field("templates"), fieldpath.Index(p.Index)))
				}
			}
			out = append(out, st)
		}
	}
	return out
}

// position maps an offset of the template to "line:col" in the file,
// through the template part's string and its YAML node.
func (s step) position(t *testing.T, off int) (string, int) {
	t.Helper()
	part, in, ok := s.tpl.Locate(off)
	if !ok {
		t.Fatalf("offset %d is not in a part", off)
	}
	i := 0
	for j, p := range s.tpl.Parts {
		if p == part {
			i = j
		}
	}
	for _, d := range s.file.Docs {
		if _, n, ok := d.Lookup(s.paths[i]); ok {
			m, ok := s.file.ValueOffsets(n)
			if !ok {
				t.Fatalf("the template's scalar does not map")
			}
			o := m.Offset(in)
			line, col := s.file.Mapper.LineCol(o)
			return fmt.Sprintf("%d:%d", line, col), o
		}
	}
	t.Fatalf("no node at %s", s.paths[i])
	return "", 0
}

func goTemplatingFiles(t *testing.T) []string {
	dir := corpus.Dir(t)
	var files []string
	for _, root := range []string{filepath.Join(dir, "workspaces", "function-go-templating"), filepath.Join(dir, "compositions")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "gotemplating.fn.crossplane.io/") {
					files = append(files, p)
				}
			}
			return err
		})
	}
	return files
}

// TestCorpusTemplates: every inline template of the corpus parses as the
// function parses it (with custom delimiters where set), and its plain
// documents are found.
func TestCorpusTemplates(t *testing.T) {
	files := goTemplatingFiles(t)
	templates, docs, plain := 0, 0, 0
	for _, p := range files {
		text, _ := os.ReadFile(p)
		for _, s := range templateSteps(t, p, text) {
			templates++
			if probs := Check(s.tpl); len(probs) > 0 {
				t.Errorf("%s: %+v", p, probs)
			}
			for _, d := range Documents(s.tpl) {
				docs++
				if d.Plain {
					plain++
					if strings.Contains(d.Text, s.tpl.Left) {
						t.Errorf("%s: plain document holds an action: %q", p, d.Text)
					}
				}
			}
		}
	}
	if templates < 20 {
		t.Errorf("only %d inline templates in the corpus", templates)
	}
	t.Logf("%d inline templates in %d files: %d documents, %d plain", templates, len(files), docs, plain)
}

// TestInjectedErrors breaks real corpus templates and checks that the
// error lands on the text that broke them, at its line and column in the
// Composition file (through document.ValueOffsets).
func TestInjectedErrors(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "workspaces", "function-go-templating", "example")
	for _, tc := range []struct {
		file       string
		old, new   string // the edit
		at         string // the text the error must cover, in the edited file
		occurrence int    // which occurrence of at (0: the first after the edit's start)
		msg        string
	}{
		// An unknown function.
		{"custom-delims/composition.yaml", `randomChoice "foo"`, `randomChoise "foo"`, "randomChoise", 0, `function "randomChoise" not defined`},
		// A block without its end: reported at EOF, shown on the opener.
		{"custom-delims/composition.yaml", "            [[- end ]]\n", "", "[[- range $i := until ( .observed.composite.resource.spec.count | int ) ]]", 0, "unexpected EOF"},
		// A stray end.
		{"inline/composition.yaml", "            {{- range $i", "            {{ end }}\n            {{- range $i", "{{ end }}", 0, "unexpected {{end}}"},
		// An unterminated string.
		{"functions/include/composition.yaml", `include "labels" $vals | nindent 4}}`, `include "labels $vals | nindent 4}}`, `"labels $vals | nindent 4}}`, 0, "unterminated quoted string"},
		// A bad character.
		{"recursive/composition-wrapper.yaml", `(add $i 1)`, `(add $i @ 1)`, "@", 0, `unexpected "@" in operand`},
		// An undefined variable.
		{"recursive/composition-wrapper.yaml", `(print "test-xr-" $i)`, `(print "test-xr-" $j)`, "$j", 0, `undefined variable "$j"`},
		// An unclosed parenthesis.
		{"recursive/composition-wrapper.yaml", `(add $i 1)`, `(add $i 1`, "(", 0, "unclosed left paren"},
		// With custom delimiters, {{ }} is text: only [[ ]] counts.
		{"custom-delims/composition.yaml", `dummy: cool-status`, `dummy: "{{ nope }}" [[ nope ]]`, "nope", 1, `function "nope" not defined`},
	} {
		t.Run(tc.file+" "+tc.msg, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			i := strings.Index(text, tc.old)
			if i < 0 {
				t.Fatalf("%q not in %s", tc.old, tc.file)
			}
			edited := text[:i] + tc.new + text[i+len(tc.old):]
			want := -1
			from := 0
			if tc.old != "" && tc.new != "" {
				from = i
			}
			if strings.HasSuffix(tc.msg, "EOF") {
				from = 0
			}
			for k, rest := 0, from; k <= tc.occurrence; k++ {
				j := strings.Index(edited[rest:], tc.at)
				if j < 0 {
					t.Fatalf("%q not in the edited file", tc.at)
				}
				want = rest + j
				rest = want + 1
			}
			steps := templateSteps(t, tc.file, []byte(edited))
			var got []string
			for _, s := range steps {
				for _, p := range Check(s.tpl) {
					pos, off := s.position(t, p.Start)
					_, end := s.position(t, p.End)
					got = append(got, fmt.Sprintf("%s %q %q", pos, edited[off:end], p.Message))
					if off == want && edited[off:end] == tc.at && p.Message == tc.msg {
						return
					}
				}
			}
			f := document.Parse("", 0, []byte(edited))
			line, col := f.Mapper.LineCol(want)
			t.Errorf("want %d:%d %q %q, got %v", line, col, tc.at, tc.msg, got)
		})
	}
}

func TestFromInput(t *testing.T) {
	in := func(extra map[string]any) map[string]any {
		m := map[string]any{"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline",
			"inline": map[string]any{"templates": []any{"a: {{ 1 }}", "b: 2"}}}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tpl, ok := FromInput(in(nil))
	if !ok || tpl.Text != "a: {{ 1 }}\n---\nb: 2" || tpl.Left != "{{" || len(tpl.Parts) != 2 {
		t.Fatalf("%+v", tpl)
	}
	if p, o, ok := tpl.Locate(strings.Index(tpl.Text, "b: 2") + 3); !ok || p.Index != 1 || o != 3 {
		t.Errorf("Locate = %+v %d %v", p, o, ok)
	}
	if _, _, ok := tpl.Locate(strings.Index(tpl.Text, "---")); ok {
		t.Errorf("the joining --- belongs to no part")
	}
	// One delimiter alone is ignored by the function.
	if tpl, _ := FromInput(in(map[string]any{"delims": map[string]any{"left": "[["}})); tpl.Left != "{{" || tpl.Right != "}}" {
		t.Errorf("left alone: %q %q", tpl.Left, tpl.Right)
	}
	if tpl, _ := FromInput(in(map[string]any{"delims": map[string]any{"left": "[[", "right": "]]"}})); tpl.Left != "[[" || tpl.Right != "]]" {
		t.Errorf("both: %q %q", tpl.Left, tpl.Right)
	}
	for _, other := range []map[string]any{
		in(map[string]any{"source": "FileSystem"}),
		in(map[string]any{"kind": "Resources"}),
		{"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline"},
	} {
		if _, ok := FromInput(other); ok {
			t.Errorf("read as an inline template: %v", other)
		}
	}
}

// TestDocuments splits at --- lines outside actions and tells plain
// documents, names and meta documents apart.
func TestDocuments(t *testing.T) {
	text := `{{- range $i := until 2 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: cm-{{ $i }}
{{- end }}
--- # a comment after the marker
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: "bucket"
spec:
  forProvider:
    region: us-east-2
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: Context
data: {a: b}
---
{{ define "snippet" }}
---
labels:
  a: b
---
{{ end }}
---
{{ $x := ` + "`" + `
---
not a document
` + "`" + ` }}
kind: Secret
metadata:
  annotations:
    {{ setResourceNameAnnotation "secret" }}
---

# nothing
`
	docs := Documents(Template{Text: text, Left: "{{", Right: "}}"})
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%d plain=%v %s/%s name=%q meta=%v", d.Index, d.Plain, d.APIVersion, d.Kind, d.ResourceName, d.Meta))
		if text[d.Start:d.End] != d.Text {
			t.Errorf("document %d: offsets do not give its text", d.Index)
		}
	}
	want := []string{
		`0 plain=false / name="" meta=false`,
		`1 plain=false v1/ConfigMap name="" meta=false`,
		`2 plain=true s3.aws.upbound.io/v1beta1/Bucket name="bucket" meta=false`,
		`3 plain=true meta.gotemplating.fn.crossplane.io/v1alpha1/Context name="" meta=true`,
		`4 plain=false / name="" meta=false`,
		`5 plain=false / name="" meta=false`,
		`6 plain=false / name="" meta=false`,
		`7 plain=false /Secret name="secret" meta=false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("documents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(docs[2].Text, "apiVersion: s3.aws.upbound.io/v1beta1\n") {
		t.Errorf("plain document text: %q", docs[2].Text)
	}
}

// TestCheckPositions: each kind of parse error text/template reports (by
// line only) is put on the text it is about.
func TestCheckPositions(t *testing.T) {
	for _, tc := range []struct{ text, msg, at string }{
		{"a: {{ foo .x }}\n", `function "foo" not defined`, "foo"},
		{"a: b\n{{ if .x }}\na: b\n", "unexpected EOF", "{{ if .x }}"},
		{"a: b\n{{ end }}\n", "unexpected {{end}}", "{{ end }}"},
		{"a: {{ else }}", "unexpected {{else}}", "{{ else }}"},
		{"a: {{ \"unterminated }}\n", "unterminated quoted string", "\"unterminated }}"},
		{"a: {{ `raw", "unterminated raw quoted string", "`raw"},
		{"a:\n  {{ .x\n", "unclosed action started at line 2", "{{ .x"},
		{"a: {{ $y }}\n", `undefined variable "$y"`, "$y"},
		{"a: {{ 12x }}\n", `bad number syntax: "12x"`, "12x"},
		{"a: {{ .x @ }}\n", `unexpected "@" in operand`, "@"},
		{"a: {{/* c */ }}\n", "comment ends before closing delimiter", "/* c */"},
		{"a: {{/* c \n", "unclosed comment", "/* c \n"},
		{"a: {{ (index .x 1 }}\n", "unclosed left paren", "("},
		{"a: {{ index .x 1) }}\n", "unexpected right paren", ")"},
		{"{{ range $i, $j, $k := .x }}{{ end }}", "too many declarations in range", "{{ range $i, $j, $k := .x }}"},
		{"a: {{ if }}{{ end }}", "missing value for if", "{{ if }}"},
		{"a: {{ \"s\".b }}", `unexpected . after term "\"s\""`, "."},
		{"a: {{ 'ab' }}", "malformed character constant: 'ab'", "'ab'"},
		{"x\n{{ define \"x\" }}\na: b\n", "unexpected EOF", `{{ define "x" }}`},
		{"a: {{- .x | printf \"%s\" | nope -}}\n", `function "nope" not defined`, "nope"},
	} {
		probs := Check(Template{Text: tc.text, Left: "{{", Right: "}}"})
		if len(probs) != 1 {
			t.Errorf("%q: %+v", tc.text, probs)
			continue
		}
		p := probs[0]
		if p.Message != tc.msg || tc.text[p.Start:p.End] != tc.at {
			t.Errorf("%q: %q at %q, want %q at %q", tc.text, p.Message, tc.text[p.Start:p.End], tc.msg, tc.at)
		}
	}
	if probs := Check(Template{Text: "a: {{ .x | printf \"%s\" | quote | b64enc | include \"x\" }}{{ getCompositeResource . }}", Left: "{{", Right: "}}"}); probs != nil {
		t.Errorf("sprig and the function's own functions: %+v", probs)
	}
	if probs := Check(Template{Text: "a: {{ env \"HOME\" }}", Left: "{{", Right: "}}"}); len(probs) != 1 || probs[0].Message != `function "env" not defined` {
		t.Errorf("env is removed by the function: %+v", probs)
	}
}

// TestBlanked: actions become spaces at the same offsets, line breaks and
// the YAML around them stay, so literal keys keep their place.
func TestBlanked(t *testing.T) {
	tpl := Template{Text: "a: 1\n{{- range $i := .x }}\nb: {{ $i | quote\n}}-x\nc: {{ .y", Left: "{{", Right: "}}"}
	got := tpl.Blanked(0, len(tpl.Text))
	want := "a: 1\n" + strings.Repeat(" ", 21) + "\nb:" + strings.Repeat(" ", 14) + "\n  -x\nc:      "
	if got != want {
		t.Errorf("Blanked = %q, want %q", got, want)
	}
	if got := tpl.Blanked(5, 12); got != "       " {
		t.Errorf("Blanked(5, 12) = %q", got)
	}
}

// TestSprigPush: push and mustPush are sprig v3.3.0's (aliases of append
// and mustAppend), so the function parses templates calling them.
func TestSprigPush(t *testing.T) {
	if probs := Check(Template{Text: `{{ push (list 1) 2 }}{{ mustPush (list 1) 2 }}`, Left: "{{", Right: "}}"}); len(probs) > 0 {
		t.Errorf("%+v", probs)
	}
}
