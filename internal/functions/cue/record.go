// This file is what crd-lsp knows of function-cue, proven by its recorded
// answers (testdata/conformance).

package cue

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-cue's record. Every failure of the function is a
// gRPC error (its deferred Fatal result is never sent: internal/fn/fn.go:165-174
// at v0.4.1), so the step fails either way.
var Function = functions.Known{
	Name:       "function-cue",
	Repository: "https://github.com/crossplane-contrib/function-cue",
	// The input type is CueInput (input/v1beta1/input.go:44); its README
	// says apiVersion and kind can be anything.
	Inputs:   []functions.InputKind{{Group: "cue.fn.crossplane.io", Kind: "CueInput", Versions: []string{"v1beta1"}}},
	Releases: []string{"v0.4.1"},
	Decodings: []functions.Decoding{{
		Since: "v0.4.1", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      `fails the step ("unable to get input: cannot get function input"): it decodes its input rejecting unknown fields and values of the wrong type`,
		Source:    "internal/fn/fn.go:199-200",
		Proof:     []string{"v0.4.1/unknown-top-level-field", "v0.4.1/unknown-field-in-metadata", "v0.4.1/field-name-wrong-case", "v0.4.1/script-wrong-type"},
		KindProof: []string{"v0.4.1/kind-CUEInput", "v0.4.1/other-group-and-kind", "v0.4.1/no-apiversion-no-kind"},
	}},
	Rules: []functions.Rule{
		{Path: "script", When: functions.Empty, Effect: functions.Fails, Does: `fails the step ("input script was not specified")`,
			Source: "internal/fn/fn.go:202-203", Proof: []string{"v0.4.1/script-empty"}},
		{Path: "script", When: functions.Missing, Effect: functions.Fails, Does: `fails the step ("input script was not specified")`,
			Source: "internal/fn/fn.go:202-203", Proof: []string{"v0.4.1/script-missing", "v0.4.1/no-input"}},
		{Path: "source", When: functions.Unknown, Known: []string{"Inline"}, Effect: functions.Ignores,
			Does: "never reads source: it runs the inline script whatever source says", Source: "internal/fn/fn.go:199-223",
			Proof: []string{"v0.4.1/source-misspelt", "v0.4.1/source-unknown"}},
		{Path: "source", When: functions.Empty, Effect: functions.Defaults,
			Does: "never reads source: it runs the inline script", Source: "internal/fn/fn.go:199-223",
			Proof: []string{"v0.4.1/source-empty"}},
		{Path: "source", When: functions.Missing, Effect: functions.Defaults,
			Does: "never reads source: it runs the inline script", Source: "internal/fn/fn.go:199-223",
			Proof: []string{"v0.4.1/source-missing"}},
	},
}
