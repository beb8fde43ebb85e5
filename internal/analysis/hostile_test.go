package analysis

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

var badXRD = testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: "XApp", Plural: "xapps", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: strin}
            x-kubernetes-validations:
            - rule: self.size >
`}.YAML()

// TestXRDSchemaMistakesArePositioned: an XRD's schema is validated as the
// CRD Crossplane derives from it; the findings sit where the XRD says it.
func TestXRDSchemaMistakesArePositioned(t *testing.T) {
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	// (The API server compiles no CEL rule of a schema with a bad type:
	// the broken rule is found in a second XRD whose types are right.)
	second := strings.NewReplacer("xapps", "xbpps", "XApp", "XBpp", "type: strin", "type: integer").Replace(badXRD)
	f := document.Parse("file:///w/xrd.yaml", 1, []byte(badXRD+"---\n"+second))
	diags := Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: store, CrossplaneMajor: 2}})
	var got []string
	for _, d := range diags {
		got = append(got, d.Code+" "+string(f.Text[d.Span.Start:d.Span.End]))
	}
	want := []string{"xrd strin", "xrd self.size >"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %q, want %q: %v", got, want, diags)
	}
}

// TestConflictingDefinitionsOnBoth: two CRDs defining one kind with
// different schemas are told about each other; an identical copy is not a
// conflict.
func TestConflictingDefinitionsOnBoth(t *testing.T) {
	crd := func(enum string) string {
		return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sinks.example.org
spec:
  group: example.org
  names: {kind: Sink, plural: sinks}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string, enum: [` + enum + `]}
`
	}
	files := map[string]string{"/w/a/crd.yaml": crd("a, b"), "/w/b/crd.yaml": crd("a, b, c"), "/w/copy/crd.yaml": "# a copy\n" + crd("a, b"),
		"/w/b/again.yaml": crd("d")}
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	for p, text := range files {
		store = store.WithFile(workspace.Source(p), p, []byte(text))
	}
	conflicts := func(p string) []string {
		f := document.Parse("file://"+p, 1, []byte(files[p]))
		var out []string
		for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: store, CrossplaneMajor: 2}}) {
			if d.Code == "conflicting-definition" && string(f.Text[d.Span.Start:d.Span.End]) == "Sink" {
				out = append(out, d.Severity.String()+": "+d.Message)
			} else {
				t.Errorf("%s: unexpected %v", p, d)
			}
		}
		return out
	}
	// In separate folders the nearest definition applies (information);
	// two in one folder is a warning.
	for p, want := range map[string]string{
		"/w/a/crd.yaml":    "info: kind Sink of example.org is also defined, differently, by /w/b/again.yaml (sinks.example.org), version v1; /w/b/crd.yaml (sinks.example.org), version v1: each document of this kind is validated against the definition nearest to it in the folder tree",
		"/w/copy/crd.yaml": "info: kind Sink of example.org is also defined, differently, by /w/b/again.yaml (sinks.example.org), version v1; /w/b/crd.yaml (sinks.example.org), version v1: each",
		"/w/b/crd.yaml":    "warning: kind Sink of example.org is also defined, differently, by /w/a/crd.yaml (sinks.example.org), version v1; /w/copy/crd.yaml (sinks.example.org), version v1; again.yaml (sinks.example.org), version v1: each document of this kind is validated against the definition nearest to it in the folder tree (in one folder, the file first by name wins)",
	} {
		if got := conflicts(p); len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("%s: %q, want one finding %q", p, got, want)
		}
	}
}

// TestCompleteDeepNesting: completion at the end of an 18 KB line of "- "
// (9,000 nested lists; yaml.v3 refuses 10,000) allocates a few megabytes,
// not the gigabyte that per-level path copies cost.
func TestCompleteDeepNesting(t *testing.T) {
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("- ", 9000) + "\n"
	f := document.Parse("file:///w/deep.yaml", 1, []byte(text))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Complete(context.Background(), f, len(text)-1, Env{Workspace: Workspace{Schemas: store}})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("completion allocated %d MB", got>>20)
	}
}

// TestMultiplyOverflowReportedOnce: a multiply beyond int64 in a P&T
// input was reported twice, once at a garbled "…input.<nil>" path; now
// once, on the value.
func TestMultiplyOverflowReportedOnce(t *testing.T) {
	store, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	comp := testfixtures.Composition{Name: "overflow", XRAPIVersion: "example.org/v1", XRKind: "XApp", FlowRef: true, Steps: `
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: r
        base: {apiVersion: v1, kind: ConfigMap}
        patches:
        - fromFieldPath: spec.n
          toFieldPath: data.n
          transforms:
          - type: math
            math: {type: Multiply, multiply: 9223372036854775808}
`}.YAML()
	f := document.Parse("file:///w/comp.yaml", 1, []byte(comp))
	var on []string
	for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: store, CrossplaneMajor: 2}}) {
		if strings.Contains(d.Message, "<nil>") {
			t.Errorf("garbled: %v", d)
		}
		if string(f.Text[d.Span.Start:d.Span.End]) == "9223372036854775808" {
			on = append(on, d.Code+": "+d.Message)
		}
	}
	if len(on) != 1 || !strings.Contains(on[0], "must be of type integer with format int64") {
		t.Errorf("findings on the multiply: %q, want one", on)
	}
}
