// This file is what crd-lsp knows of function-extra-resources, proven by its recorded
// answers (testdata/conformance).

package extraresources

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-extra-resources's record. Its answers also show
// what no rule here can say yet, as it hangs on the other entries: an
// entry that asks for nothing (a type it does not know, a selector whose
// labels are all Optional and absent, or of types it does not know) is
// harmless alone, and fails the step ("cannot find expected extra
// resource") once another entry asks for something
// (v0.3.0/unknown-type-beside-another).
var Function = functions.Known{
	Name:            "function-extra-resources",
	Repository:      "https://github.com/crossplane-contrib/function-extra-resources",
	Inputs:          []functions.InputKind{{Group: "extra-resources.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
	Releases:        []string{"v0.3.0"},
	Decodings: []functions.Decoding{{
		// request.GetInput (function-sdk-go v0.5.0) decodes with
		// json.RejectUnknownMembers and never reads apiVersion or kind.
		Since: "v0.3.0", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      "fails the step: it cannot decode its input (unknown fields and values of the wrong type are refused)",
		Source:    "fn.go:43-47",
		Proof:     []string{"v0.3.0/unknown-field"},
		KindProof: []string{"v0.3.0/other-kind"},
	}},
}
