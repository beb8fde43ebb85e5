// This file is what crd-lsp knows of function-auto-ready, proven by its
// recorded answers (testdata/conformance).

package autoready

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-auto-ready's record. Its releases before v0.7.0
// read no input at all; v0.7.0 decodes one (a TTL, and CEL health checks
// that act only behind the CELHealthcheckCustomizations feature gate).
var Function = functions.Known{
	Name:            "function-auto-ready",
	Repository:      "https://github.com/crossplane-contrib/function-auto-ready",
	Inputs:          []functions.InputKind{{Group: "autoready.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
	LeavesNoData:    true,
	Releases:        []string{"v0.7.0", "v0.5.1"},
	Decodings: []functions.Decoding{
		{
			Since: "v0.7.0", Reads: functions.ReadsTyped, AnyKind: true,
			Unknown: functions.Fails, WrongType: functions.Fails,
			Does:      `fails the step ("cannot get Function input"): it cannot decode its input (unknown fields and values of the wrong type are refused)`,
			Source:    "fn.go:40-45",
			Proof:     []string{"v0.7.0/unknown-top-level-field", "v0.7.0/unknown-field-wrong-case", "v0.7.0/ttl-number", "v0.7.0/other-function-input"},
			KindProof: []string{"v0.7.0/other-kind-and-group", "v0.7.0/no-apiversion-and-kind", "v0.7.0/readme-cel-example-v1alpha1"},
		},
		{
			Since: "v0.5.1", Reads: functions.ReadsNothing, Unknown: functions.Ignores, WrongType: functions.Ignores,
			Does:   "releases before v0.7.0 read no input: whatever it holds is ignored",
			Source: "fn.go:40-95",
			Proof:  []string{"v0.5.1/input-unknown-field-ignored", "v0.5.1/input-ttl-ignored", "v0.5.1/input-cel-ignored", "v0.5.1/input-other-kind"},
		},
	},
	Rules: []functions.Rule{
		{Path: "ttl", When: functions.Invalid, Check: functions.CheckDuration, Effect: functions.Fails, Since: "v0.7.0",
			Does: `fails the step ("cannot set ttl")`, Source: "fn.go:47-54",
			Proof: []string{"v0.7.0/ttl-invalid", "v0.7.0/ttl-days", "v0.7.0/ttl-no-unit"}},
	},
}
