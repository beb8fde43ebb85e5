package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestGoTemplatingFollowsThePinnedRelease: the in-process renderer does
// what the release the workspace pins does (each answer recorded in
// internal/functions/gotemplating/testdata/conformance): v0.11.9 has no
// getExtraResourcesFromContext and fails parsing a template that calls it
// (v0.11.9/get-extra-resources-from-context-not-defined), v0.12.2 renders
// it; no release has getComposedConnectionDetails yet
// (v0.12.2/function-not-in-release); with no release pinned, crd-lsp
// fails no template any release or the main branch would run.
func TestGoTemplatingFollowsThePinnedRelease(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	composition := func(call string) string {
		return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}
  mode: Pipeline
  pipeline:
  - step: render
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
          {{ $x := ` + call + ` }}
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: cm
            annotations:
              {{ setResourceNameAnnotation "cm" }}
`
	}
	xr := map[string]any{"apiVersion": "example.org/v1", "kind": "XR", "metadata": map[string]any{"name": "x", "namespace": "default"}}
	render := func(version, call string) (composed int, failure string) {
		env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}
		if version != "" {
			env.Workspace.FunctionOf = func(name string) (StepFunction, bool) {
				return StepFunction{Package: "xpkg.crossplane.io/crossplane-contrib/function-go-templating", Version: version, From: "functions.yaml"}, name == "function-go-templating"
			}
		}
		f := document.Parse("file:///w/c.yaml", 1, []byte(composition(call)))
		out := RenderFile(context.Background(), f, xr, env)
		if len(out) != 1 {
			t.Fatalf("%d renderings", len(out))
		}
		for _, n := range out[0].Rendering.Notes {
			if strings.Contains(n.Message, "not defined") {
				failure = n.Message
			}
		}
		return len(out[0].Rendering.Resources), failure
	}
	for _, c := range []struct {
		version, call string
		fails         bool
	}{
		{"v0.11.9", `getExtraResourcesFromContext . "x"`, true},
		{"v0.12.2", `getExtraResourcesFromContext . "x"`, false},
		{"v0.12.2", `getComposedConnectionDetails . "x"`, true},
		{"", `getComposedConnectionDetails . "x"`, false},
		{"", `getExtraResourcesFromContext . "x"`, false},
	} {
		n, failure := render(c.version, c.call)
		if c.fails && (failure == "" || n != 0) {
			t.Errorf("%s %s: %d composed, failure %q; want the template refused", c.version, c.call, n, failure)
		}
		if !c.fails && (failure != "" || n != 1) {
			t.Errorf("%s %s: %d composed, failure %q; want the ConfigMap", c.version, c.call, n, failure)
		}
	}
}
