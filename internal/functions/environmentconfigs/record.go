// This file is what crd-lsp knows of function-environment-configs, proven
// by its recorded answers (testdata/conformance).

package environmentconfigs

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-environment-configs' record. Its in-process runner
// needs the workspace's EnvironmentConfigs, which analysis hands
// ResolveFunction itself; TestResolveFunctionAnswersAsRecorded holds
// ResolveFunction to every recorded answer.
var Function = functions.Known{
	Name:            "function-environment-configs",
	Repository:      "https://github.com/crossplane-contrib/function-environment-configs",
	Inputs:          []functions.InputKind{{Group: "environmentconfigs.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
	Releases:        []string{"v0.7.1"},
	Decodings: []functions.Decoding{{
		// request.GetInput (function-sdk-go v0.6.2) decodes with
		// json.RejectUnknownMembers and never reads apiVersion or kind.
		Since: "v0.7.1", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Fails, WrongType: functions.Fails,
		Does:      "fails the step: it cannot decode its input (unknown fields and values of the wrong type are refused)",
		Source:    "fn.go:47-51",
		Proof:     []string{"v0.7.1/unknown-field"},
		KindProof: []string{"v0.7.1/other-kind"},
	}},
	Rules: []functions.Rule{
		{Path: "spec.environmentConfigs[*].type", When: functions.Unknown, Known: []string{"Reference", "Selector"}, Effect: functions.Ignores,
			Does: "asks for nothing for an entry of a type it does not know, and skips the entry", Source: "fn.go:317-358",
			Proof: []string{"v0.7.1/unknown-type"}},
		{Path: "spec.environmentConfigs[*].type", When: functions.Missing, Effect: functions.Defaults,
			Does: "reads a missing type as Reference", Source: "fn.go:320",
			Proof: []string{"v0.7.1/reference-type-omitted"}},
		{Path: "spec.environmentConfigs[*].selector.mode", When: functions.Unknown, Known: []string{"Single", "Multiple"}, Effect: functions.Fails,
			Does: `fails the step ("unknown selector mode")`, Source: "fn.go:197-200",
			Proof: []string{"v0.7.1/unknown-mode"}},
		{Path: "spec.environmentConfigs[*].selector.matchLabels[*].type", When: functions.Unknown, Known: []string{"FromCompositeFieldPath", "Value"}, Effect: functions.Ignores,
			Does: "adds no label for a matcher of a type it does not know (a selector left with none is skipped)", Source: "fn.go:331-349",
			Proof: []string{"v0.7.1/selector-label-type-unknown"}},
		// The input CRD v0.7.1 ships does not define toFieldPath
		// (package/input/environmentconfigs.fn.crossplane.io_inputs.yaml);
		// the input type does (input/v1beta1/composition_environment.go).
		{Path: "spec.environmentConfigs[*].toFieldPath", When: functions.Present, Effect: functions.Accepts,
			Does: "reads toFieldPath, which its input CRD lacks", Source: "fn.go:366-371",
			Proof: []string{"v0.7.1/to-field-path"}},
	},
}
