package gotemplating

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// readsText writes each read as "path@written use [text of its last key]",
// "*" for an element, the key's text in brackets (— when not written).
func readsText(t Template, reads []Read) []string {
	var out []string
	for _, r := range reads {
		keys := make([]string, len(r.Path))
		for i, k := range r.Path {
			keys[i] = k.Name
			if k.Elem {
				keys[i] = "*"
			}
		}
		last := r.Path[len(r.Path)-1]
		at := "—"
		if last.Start >= 0 {
			at = t.Text[last.Start:last.End]
		}
		use := []string{"printed", "condition", "with", "range", "argument", "assigned", "value"}[r.Use]
		if r.Func != "" {
			use += ":" + r.Func
		}
		if r.Var != "" {
			use += ":" + r.Var
		}
		out = append(out, fmt.Sprintf("%s@%d %s [%s]", strings.Join(keys, "."), r.Written, use, at))
	}
	return out
}

// TestReads: what a template reads, from the request's root, through
// dot, variables, with, range, index and the function's getters; what
// it cannot know (a define's data, a variable assigned in a branch, a
// computed key) it leaves out.
func TestReads(t *testing.T) {
	for _, tc := range []struct {
		name, tpl string
		want      []string
	}{
		{"printed", `{{ .observed.composite.resource.spec.region }}`,
			[]string{"observed.composite.resource.spec.region@0 printed [region]"}},
		{"root variable", `{{ $.observed.composite.resource.spec.region }}`,
			[]string{"observed.composite.resource.spec.region@0 printed [region]"}},
		{"condition and with", `{{ if .a.b }}{{ end }}{{ with .observed.composite.resource }}{{ .spec.x }}{{ end }}`,
			[]string{"a.b@0 condition [b]", "observed.composite.resource@0 with [resource]", "observed.composite.resource.spec.x@3 printed [x]"}},
		{"variable", `{{ $xr := .observed.composite.resource }}{{ $xr.spec.x | quote }}`,
			[]string{"observed.composite.resource@0 assigned:$xr [resource]", "observed.composite.resource.spec.x@3 argument:quote [x]"}},
		{"variable assigned in a branch is unknown after it", `{{ $xr := .observed.composite.resource }}{{ if true }}{{ $xr = .other }}{{ end }}{{ $xr.spec.x }}`,
			[]string{"observed.composite.resource@0 assigned:$xr [resource]", "other@0 assigned:$xr [other]"}},
		{"variable of a block is gone after it", `{{ with .a }}{{ $v := .b }}{{ end }}{{ $v := 1 }}{{ $v.c }}`,
			[]string{"a@0 with [a]", "a.b@1 assigned:$v [b]"}},
		{"range element", `{{ range $i, $s := .observed.composite.resource.spec.subnets }}{{ $s.zone }}{{ .cidr }}{{ $i }}{{ end }}`,
			[]string{"observed.composite.resource.spec.subnets@0 range [subnets]", "observed.composite.resource.spec.subnets.*.zone@6 printed [zone]", "observed.composite.resource.spec.subnets.*.cidr@6 printed [cidr]"}},
		{"index with literal keys", `{{ $env := index .context "apiextensions.crossplane.io/environment" }}{{ $env.region }}{{ index .observed.composite.resource.spec "size" }}`,
			[]string{"context@0 value [context]", `context.apiextensions.crossplane.io/environment@1 assigned:$env ["apiextensions.crossplane.io/environment"]`,
				"context.apiextensions.crossplane.io/environment.region@2 printed [region]",
				"observed.composite.resource.spec@0 value [spec]", `observed.composite.resource.spec.size@4 printed ["size"]`}},
		{"index with a computed key", `{{ $k := "x" }}{{ index .observed.composite.resource.spec $k }}`,
			[]string{"observed.composite.resource.spec@0 value [spec]"}},
		{"getters", `{{ (getCompositeResource .).spec.x }}{{ $b := getComposedResource . "bucket" }}{{ $b.status.arn }}`,
			[]string{"observed.composite.resource.spec.x@3 printed [x]", `observed.resources.bucket.resource.status.arn@4 printed [arn]`}},
		{"define's data is not known", `{{ define "x" }}{{ .spec.a }}{{ $.b }}{{ end }}{{ include "x" . }}`, nil},
		{"piped and argument", `{{ .a.b | default "d" }}{{ default "d" .c }}{{ toYaml .e | nindent 2 }}`,
			[]string{"a.b@0 argument:default [b]", "c@0 argument:default [c]", "e@0 argument:toYaml [e]"}},
		{"delimiters", `[[ .observed.composite.resource.spec.x ]]`,
			[]string{"observed.composite.resource.spec.x@0 printed [x]"}},
		{"a template that does not parse", `{{ .a `, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := Template{Text: tc.tpl, Left: "{{", Right: "}}"}
			if strings.HasPrefix(tc.tpl, "[[") {
				tpl.Left, tpl.Right = "[[", "]]"
			}
			if d := cmp.Diff(tc.want, readsText(tpl, Reads(tpl))); d != "" {
				t.Errorf("reads (-want +got):\n%s", d)
			}
		})
	}
}

// TestChainAt: the value the chain being typed applies to, with the
// partial name after its last dot.
func TestChainAt(t *testing.T) {
	for _, tc := range []struct {
		name, tpl string
		want      string // "path|partial", "" for none
	}{
		{"composite spec", "a: {{ .observed.composite.resource.spec.re‸ }}", "observed.composite.resource.spec|re"},
		{"unclosed action", "a: {{ .observed.composite.resource.‸\nb: c\n", "observed.composite.resource|"},
		{"inside with", "{{ with .observed.composite.resource }}\na: {{ .spec.‸ }}\n{{ end }}", "observed.composite.resource.spec|"},
		{"variable", "{{ $xr := getCompositeResource . }}\n{{ if true }}\na: {{ $xr.metadata.na‸", "observed.composite.resource.metadata|na"},
		{"range element", "{{ range .observed.composite.resource.spec.subnets }}{{ .‸ }}{{ end }}", "observed.composite.resource.spec.subnets.*|"},
		{"root", "{{ .‸ }}", "|"},
		{"in a define", `{{ define "x" }}{{ .spec.‸ }}{{ end }}`, ""},
		{"outside an action", "a: .observed.‸", ""},
		{"after a parenthesis", `{{ (getCompositeResource .).spec.‸ }}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off := strings.Index(tc.tpl, "‸")
			text := strings.Replace(tc.tpl, "‸", "", 1)
			base, partial, from, ok := ChainAt(Template{Text: text, Left: "{{", Right: "}}"}, off)
			got := ""
			if ok {
				keys := Keys(base)
				for i, k := range base {
					if k.Elem {
						keys[i] = "*"
					}
				}
				got = strings.Join(keys, ".") + "|" + partial
				if from != off-len(partial) {
					t.Errorf("partial starts at %d, want %d", from, off-len(partial))
				}
			}
			if got != tc.want {
				t.Errorf("ChainAt = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoValue: a run records the actions that wrote "<no value>" (a
// missing key printed, through index too; not one quoted, defaulted or
// printed with printf), and writes what it wrote without the recording;
// Native tells a context's reporter.
func TestNoValue(t *testing.T) {
	tpl := `apiVersion: example.org/v1
kind: XR
status:
  a: "{{ .observed.composite.resource.spec.misspelt }}"
  b: "{{ index .observed.composite.resource.spec "nope" }}"
  c: {{ .observed.composite.resource.spec.misspelt | quote }}
  d: {{ .observed.composite.resource.spec.misspelt | default "d" }}
  e: "{{ printf "%v" .observed.composite.resource.spec.misspelt }}"
  f: {{ .observed.composite.resource.spec.region }}
  {{- range $i := until 2 }}
  g{{ $i }}: "{{ $.nothing }}"
  {{- end }}
`
	r := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
	if r.Fatal != "" {
		t.Fatal(r.Fatal)
	}
	want := "apiVersion: example.org/v1\nkind: XR\nstatus:\n  a: \"<no value>\"\n  b: \"<no value>\"\n  c: \n  d: d\n  e: \"<nil>\"\n  f: eu\n  g0: \"<no value>\"\n  g1: \"<no value>\"\n"
	if r.Output != want {
		t.Errorf("output:\n%s\nwant:\n%s", r.Output, want)
	}
	var got []string
	for _, nv := range r.NoValue {
		got = append(got, fmt.Sprintf("%s <%s>", tpl[nv.Offset:nv.Offset+8], nv.Pipe))
	}
	if d := cmp.Diff([]string{
		".observe <.observed.composite.resource.spec.misspelt>",
		`index .o <index .observed.composite.resource.spec "nope">`,
		"$.nothin <$.nothing>",
	}, got); d != "" {
		t.Errorf("places (-want +got):\n%s", d)
	}
	var reported []NoValue
	ctx := WithNoValue(context.Background(), func(_ functions.Step, _ Template, at []NoValue) { reported = at })
	run := Native(functions.NativeEnv{})
	data := xrData()
	if _, err := run(ctx, functions.Step{Input: inline(tpl)}, functions.NativeRequest{Input: inline(tpl), Data: func() (map[string]any, error) { return data, nil }}); err != nil {
		t.Fatal(err)
	}
	if len(reported) != 3 {
		t.Errorf("Native reported %v", reported)
	}
}
