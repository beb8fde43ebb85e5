// This file is what crd-lsp knows of function-status-transformer, proven
// by its recorded answers (testdata/conformance).

package statustransformer

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-status-transformer's record. The function never
// fails the step: whatever goes wrong, it sets the composite's condition
// StatusTransformationSuccess False with a reason and carries on (or
// returns at once, for an input it cannot read). controller-gen marks
// most of its input's fields required; the function reads them as
// optional, with defaults.
var Function = functions.Known{
	Name:       "function-status-transformer",
	Repository: "https://github.com/crossplane-contrib/function-status-transformer",
	Inputs:     []functions.InputKind{{Group: "function-status-transformer.fn.crossplane.io", Kind: "StatusTransformation", Versions: []string{"v1beta1"}}},
	Releases:   []string{"v0.5.1"},
	Decodings: []functions.Decoding{{
		Since: "v0.5.1", Reads: functions.ReadsTyped, AnyKind: true,
		Unknown: functions.Reports, WrongType: functions.Reports,
		Does:      "cannot read its input: it sets the composite's StatusTransformationSuccess condition False (InputFailure) and transforms nothing",
		Source:    "fn.go:66-73",
		Proof:     []string{"v0.5.1/unknown-field", "v0.5.1/unknown-nested-field-in-set-condition", "v0.5.1/field-name-wrong-case", "v0.5.1/wrong-json-type-bool"},
		KindProof: []string{"v0.5.1/other-kind-and-group", "v0.5.1/no-apiversion-and-kind", "v0.5.1/metadata-is-accepted"},
	}},
	Rules: []functions.Rule{
		// The input CRD v0.5.1 ships was not regenerated after the field
		// was added to the input type (input/v1beta1/input.go).
		{Path: "*.matchers[*].includeExtraResources", When: functions.Present, Effect: functions.Accepts,
			Does: "reads includeExtraResources, which its input CRD lacks", Source: "fn.go:107-117",
			Proof: []string{"v0.5.1/include-extra-resources"}},
		{Path: "statusConditionHooks[*].matchers", When: functions.Missing, Effect: functions.Ignores,
			Does: "never fires a hook without matchers", Source: "fn.go:102-142",
			Proof: []string{"v0.5.1/readme-overriding-conditions-hooks-without-matchers"}},
		{Path: "statusConditionHooks[*].matchers[*].conditions", When: functions.Missing, Effect: functions.Ignores,
			Does: "never matches a matcher without conditions, so the hook never fires", Source: "fn.go:242-245",
			Proof: []string{"v0.5.1/matcher-without-conditions"}},
		{Path: "*.matchers[*].type", When: functions.Unknown,
			Known:  []string{"AnyResourceMatchesAnyCondition", "AnyResourceMatchesAllConditions", "AllResourcesMatchAnyCondition", "AllResourcesMatchAllConditions"},
			Effect: functions.Ignores, Does: "reads a matcher type it does not know (its CRD's MatchAny and MatchAll included) as AllResourcesMatchAllConditions", Source: "fn.go:247-258",
			Proof: []string{"v0.5.1/matcher-type-misspelled", "v0.5.1/matcher-type-wrong-case", "v0.5.1/matcher-type-crd-enum-match-any", "v0.5.1/matcher-type-crd-enum-match-all"}},
		{Path: "*.matchers[*].type", When: functions.Empty, Effect: functions.Defaults,
			Does: "reads an empty matcher type as AllResourcesMatchAllConditions", Source: "fn.go:247",
			Proof: []string{"v0.5.1/matcher-type-empty"}},
		{Path: "*.matchers[*].type", When: functions.Missing, Effect: functions.Defaults,
			Does: "reads a missing matcher type as AllResourcesMatchAllConditions", Source: "fn.go:247",
			Proof: []string{"v0.5.1/matcher-type-missing"}},
		{Path: "*.matchers[*].name", When: functions.Missing, Effect: functions.Defaults,
			Does: "uses a matcher's name only in its logs", Source: "fn.go:104",
			Proof: []string{"v0.5.1/matcher-name-is-only-for-logs"}},
		{Path: "*.target", When: functions.Unknown, Known: []string{"Composite", "CompositeAndClaim"}, Effect: functions.Ignores,
			Does: "sets the condition or event on the composite only for any target but CompositeAndClaim", Source: "fn.go:448-454",
			Proof: []string{"v0.5.1/set-condition-targets", "v0.5.1/event-targets"}},
		{Path: "*.target", When: functions.Missing, Effect: functions.Defaults,
			Does: "reads a missing target as Composite", Source: "fn.go:448-454",
			Proof: []string{"v0.5.1/set-condition-targets", "v0.5.1/event-targets"}},
		{Path: "*.setConditions[*].force", When: functions.Missing, Effect: functions.Defaults,
			Does: "reads a missing force as false (the first setter of a condition type wins)", Source: "fn.go:147",
			Proof: []string{"v0.5.1/force-and-first-setter-wins"}},
		{Path: "*.setConditions[*].condition.status", When: functions.Unknown, Known: []string{"True", "False", "Unknown"}, Effect: functions.Ignores,
			Does: "sets any status but True or False as Unknown", Source: "fn.go:405-414",
			Proof: []string{"v0.5.1/set-condition-statuses"}},
		{Path: "*.setConditions[*].condition.status", When: functions.Missing, Effect: functions.Defaults,
			Does: "sets a condition without a status as Unknown", Source: "fn.go:405-414",
			Proof: []string{"v0.5.1/set-condition-statuses"}},
		{Path: "*.matchers[*].conditions[*].status", When: functions.Unknown, Known: []string{"True", "False", "Unknown"}, Effect: functions.Ignores,
			Does: "compares a matcher's status literally, so this status never matches", Source: "fn.go:368",
			Proof: []string{"v0.5.1/condition-matcher-status-not-a-status"}},
		{Path: "*.event.type", When: functions.Unknown, Known: []string{"Normal", "Warning"}, Effect: functions.Reports,
			Does: `creates no event: it sets StatusTransformationSuccess False (SetConditionFailure, "invalid type")`, Source: "fn.go:431-437",
			Proof: []string{"v0.5.1/event-type-unknown", "v0.5.1/event-type-wrong-case"}},
		{Path: "*.event.type", When: functions.Empty, Effect: functions.Reports,
			Does: `creates no event for an empty type: it sets StatusTransformationSuccess False (SetConditionFailure, "invalid type")`, Source: "fn.go:431-437",
			Proof: []string{"v0.5.1/event-type-empty"}},
		{Path: "*.event.type", When: functions.Missing, Effect: functions.Defaults,
			Does: "reads a missing event type as Normal", Source: "fn.go:431",
			Proof: []string{"v0.5.1/event-type-normal-warning-missing"}},
	},
}
