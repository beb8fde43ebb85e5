// This file holds Composition texts that tests of several packages build.

package lsptest

// GoTemplatingComposition is a Composition named "hostile" whose one
// function-go-templating step has the given inline template (one line, in
// a literal block scalar).
func GoTemplatingComposition(tpl string) string {
	return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: hostile
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
  - step: s0
    functionRef: {name: function-go-templating}
    input:
      apiVersion: gotemplating.fn.crossplane.io/v1beta1
      kind: GoTemplate
      source: Inline
      inline:
        template: |
          ` + tpl + "\n"
}
