// This file is what crd-lsp knows of function-sequencer, proven by its
// recorded answers (testdata/conformance).

package sequencer

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-sequencer's record.
var Function = functions.Known{
	Name:            "function-sequencer",
	Repository:      "https://github.com/crossplane-contrib/function-sequencer",
	Inputs:          []functions.InputKind{{Group: "sequencer.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
	LeavesNoData:    true,
	Releases:        []string{"v0.6.0"},
	Native:          func(functions.NativeEnv) functions.NativeFunc { return Native },
	RenderOnly:      true,
	Decodings: []functions.Decoding{{
		Since: "v0.6.0", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      "fails the step: it cannot decode its input (unknown fields and values of the wrong type are refused)",
		Source:    "fn.go:106-110",
		Proof:     []string{"v0.6.0/unknown-top-level-field", "v0.6.0/unknown-rule-field", "v0.6.0/wrong-type-rules", "v0.6.0/wrong-type-cache-ttl"},
		KindProof: []string{"v0.6.0/other-kind-and-group", "v0.6.0/no-apiversion-and-kind"},
	}},
	Rules: []functions.Rule{
		{Path: "cacheTTL", When: functions.Invalid, Check: functions.CheckDuration, Effect: functions.Fails,
			Does: `fails the step ("cannot set cacheTTL")`, Source: "fn.go:111-118",
			Proof: []string{"v0.6.0/cache-ttl-invalid", "v0.6.0/cache-ttl-no-unit", "v0.6.0/cache-ttl-days"}},
		{Path: "rules[*].sequence[*]", When: functions.Invalid, Check: functions.CheckSequenceRegexp, Effect: functions.Fails,
			Does: `fails the step ("cannot compile regex") whenever it checks this entry, as it does before the resources it names are observed`, Source: "fn.go:187-216",
			Proof: []string{"v0.6.0/invalid-regex-predecessor", "v0.6.0/invalid-regex-successor"}},
		{Path: "rules[*].condition", When: functions.Invalid, Check: functions.CheckCELSyntax, Effect: functions.Fails,
			Does: `fails the step ("cannot evaluate condition")`, Source: "fn.go:140-151",
			Proof: []string{"v0.6.0/condition-syntax-error"}},
		{Path: "usageVersion", When: functions.Unknown, Known: []string{"v1", "v2"}, Effect: functions.Ignores,
			Does: "makes v2 Usages for any usageVersion but v1", Source: "fn.go:310-316",
			Proof: []string{"v0.6.0/deletion-sequencing-usage-version-unknown", "v0.6.0/deletion-sequencing-usage-version-upper-case"}},
	},
}
