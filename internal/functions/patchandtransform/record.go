// This file is what crd-lsp knows of function-patch-and-transform, proven
// by its recorded answers (testdata/conformance): v0.1.4 (commit 659dad3,
// the release README's first; the tag is not published), v0.2.1, v0.5.0,
// v0.8.2, v0.10.7 (also run live in the tests) and v0.10.8. Boundaries at
// releases between them (v0.4.0, v0.7.0) are read from the function's
// go.mod and validate.go at those tags.

package patchandtransform

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-patch-and-transform's record. What the function
// does with each patch, transform and policy is the Composition checks'
// (internal/composition) and this package's renderer; the record says how
// the input is decoded, which input-CRD values the function reads
// otherwise than its CRD, and what depends on the release.
var Function = functions.Known{
	Name:       "function-patch-and-transform",
	Repository: "https://github.com/crossplane-contrib/function-patch-and-transform",
	Inputs:     []functions.InputKind{{Group: "pt.fn.crossplane.io", Kind: "Resources", Versions: []string{"v1beta1"}}},
	Releases:   []string{"v0.10.8", "v0.10.7", "v0.8.2", "v0.5.0", "v0.2.1", "v0.1.4"},
	Decodings: []functions.Decoding{
		{
			// function-sdk-go v0.2.0 and later decode with
			// json.RejectUnknownMembers (go.mod at v0.4.0).
			Since: "v0.4.0", Reads: functions.ReadsTyped, AnyKind: true,
			Unknown: functions.Fails, WrongType: functions.Fails,
			Does:   `fails the step ("cannot get Function input"): it decodes its input rejecting unknown fields and values of the wrong type`,
			Source: "fn.go:43-45",
			Proof: []string{"v0.10.8/unknown-top-level-field", "v0.10.8/unknown-field-in-patch", "v0.10.8/field-name-wrong-case", "v0.10.8/wrong-type-multiply-string",
				"v0.8.2/unknown-field-in-patch", "v0.5.0/unknown-field-in-patch"},
			KindProof: []string{"v0.10.8/input-apiversion-pt-crossplane-io", "v0.10.8/input-other-kind", "v0.10.8/input-without-apiversion-and-kind", "v0.10.7/input-apiversion-pt-crossplane-io"},
		},
		{
			// function-sdk-go v0.1.0 (and v0.1.4's pseudo-version)
			// decode with encoding/json: unknown fields are dropped.
			Since: "v0.1.4", Reads: functions.ReadsTyped, AnyKind: true,
			Unknown: functions.Ignores, WrongType: functions.Fails,
			Does:      "ignores fields it does not know (releases before v0.4.0 decode with encoding/json)",
			Source:    "fn.go:38-41",
			Proof:     []string{"v0.2.1/unknown-top-level-field", "v0.2.1/unknown-field-in-patch", "v0.1.4/unknown-field-in-patch", "v0.2.1/wrong-type-multiply-string"},
			KindProof: []string{"v0.2.1/input-apiversion-pt-crossplane-io", "v0.1.4/input-other-kind"},
		},
	},
	Rules: []functions.Rule{
		{Path: "*.transforms[*].string.type", When: functions.Is, Known: []string{"Join", "Replace"}, Effect: functions.Accepts, Since: "v0.7.0",
			Does: "runs Join and Replace, which its input CRD's enum lacks", Source: "validate.go:356-393",
			Proof: []string{"v0.10.8/string-join", "v0.10.8/string-replace", "v0.8.2/string-join"}},
		{Path: "*.transforms[*].string.type", When: functions.Is, Known: []string{"Join", "Replace"}, Effect: functions.Fails, Until: "v0.7.0",
			Does: "fails the step: releases before v0.7.0 have no Join or Replace string transform", Source: "validate.go:356-393",
			Proof: []string{"v0.5.0/string-join", "v0.5.0/string-replace", "v0.2.1/string-join", "v0.1.4/string-replace"}},
		{Path: "*.transforms[*].string.convert", When: functions.Is, Known: []string{"ToAdler32"}, Effect: functions.Accepts,
			Does: "runs ToAdler32, which its input CRD's enum lacks", Source: "transforms.go:333",
			Proof: []string{"v0.10.8/string-convert-to-adler32", "v0.1.4/string-convert-to-adler32"}},
	},
}
