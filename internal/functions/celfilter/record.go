// This file is what crd-lsp knows of function-cel-filter, proven by its
// recorded answers (testdata/conformance).

package celfilter

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-cel-filter's record.
var Function = functions.Known{
	Name:            "function-cel-filter",
	Repository:      "https://github.com/crossplane-contrib/function-cel-filter",
	Inputs:          []functions.InputKind{{Group: "cel.fn.crossplane.io", Kind: "Filters", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
	Releases:        []string{"v0.2.0"},
	Decodings: []functions.Decoding{{
		Since: "v0.2.0", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      `fails the step ("cannot get filters"): it cannot decode its input (unknown fields and values of the wrong type are refused)`,
		Source:    "fn.go:43-47",
		Proof:     []string{"v0.2.0/unknown-top-level-field", "v0.2.0/unknown-filter-field", "v0.2.0/wrong-type-expression", "v0.2.0/wrong-type-filters"},
		KindProof: []string{"v0.2.0/other-kind-and-group", "v0.2.0/no-apiversion-and-kind"},
	}},
	Rules: []functions.Rule{
		{Path: "filters[*].name", When: functions.Invalid, Check: functions.CheckAnchoredRegexp, Effect: functions.Fails,
			Does: `fails the step ("cannot compile regular expression")`, Source: "fn.go:54-59",
			Proof: []string{"v0.2.0/name-invalid-regex"}},
		{Path: "filters[*].expression", When: functions.Invalid, Check: functions.CheckCELSyntax, Effect: functions.Fails,
			Does: `fails the step ("cannot evaluate CEL expression"), whether or not the filter's name matches a resource`, Source: "fn.go:99-135",
			Proof: []string{"v0.2.0/expression-syntax-error", "v0.2.0/name-matches-nothing-expression-fails"}},
		{Path: "filters[*].expression", When: functions.Empty, Effect: functions.Fails,
			Does: `fails the step ("cannot evaluate CEL expression"): an empty expression does not parse`, Source: "fn.go:99-135",
			Proof: []string{"v0.2.0/expression-empty", "v0.2.0/expression-missing"}},
		{Path: "filters[*].expression", When: functions.Missing, Effect: functions.Fails,
			Does: `fails the step ("cannot evaluate CEL expression"): a missing expression does not parse`, Source: "fn.go:99-135",
			Proof: []string{"v0.2.0/expression-missing"}},
		{Path: "filters[*].name", When: functions.Empty, Effect: functions.Ignores,
			Does: "matches no resource with an empty or missing name: the filter removes nothing", Source: "fn.go:54-59",
			Proof: []string{"v0.2.0/name-empty", "v0.2.0/name-missing"}},
		{Path: "filters[*].name", When: functions.Missing, Effect: functions.Ignores,
			Does: "matches no resource with a missing name: the filter removes nothing", Source: "fn.go:54-59",
			Proof: []string{"v0.2.0/name-missing"}},
	},
}
