// This file is what crd-lsp knows of function-go-templating, proven by its
// recorded answers (testdata/conformance).

package gotemplating

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-go-templating's record.
var Function = functions.Known{
	Name:       "function-go-templating",
	Repository: "https://github.com/crossplane-contrib/function-go-templating",
	Inputs:     []functions.InputKind{{Group: "gotemplating.fn.crossplane.io", Kind: "GoTemplate", Versions: []string{"v1beta1"}}},
	Releases:   []string{"v0.12.2", "v0.11.9"},
	Decodings: []functions.Decoding{{
		// request.GetInput (function-sdk-go v0.4.0 and v0.6.2) decodes
		// with json.RejectUnknownMembers, and never reads apiVersion or
		// kind.
		Since: "v0.11.9", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      "fails the step: it cannot decode its input (unknown fields and values of the wrong type are refused)",
		Source:    "fn.go:71-72",
		Proof:     []string{"v0.12.2/unknown-top-level-field", "v0.12.2/unknown-nested-field", "v0.12.2/source-wrong-type", "v0.11.9/unknown-top-level-field"},
		KindProof: []string{"v0.12.2/other-kind-and-group", "v0.12.2/no-apiversion-no-kind", "v0.11.9/other-kind-and-group"},
	}},
	Rules: []functions.Rule{
		{Path: "source", When: functions.Unknown, Known: []string{"Inline", "FileSystem", "Environment"}, Effect: functions.Fails,
			Does: `fails the step ("invalid function input: invalid source"); the match is case-sensitive`, Source: "template.go:24-35",
			Proof: []string{"v0.12.2/source-unknown", "v0.12.2/source-lowercase-inline", "v0.11.9/source-unknown"}},
		{Path: "source", When: functions.Empty, Effect: functions.Fails,
			Does: `fails the step ("invalid function input: source is required")`, Source: "fn.go:82-85",
			Proof: []string{"v0.12.2/source-missing", "v0.12.2/source-empty"}},
		{Path: "source", When: functions.Missing, Effect: functions.Fails,
			Does: `fails the step ("invalid function input: source is required")`, Source: "fn.go:82-85",
			Proof: []string{"v0.12.2/source-missing", "v0.12.2/no-input"}},
	},
	Native: Native,
}
