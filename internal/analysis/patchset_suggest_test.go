package analysis

import (
	"strings"
	"testing"
)

// A misspelt PatchSet name stands for the PatchSet it most likely means by
// the one "did you mean" rule (suggest.Closest, as for unknown fields): the
// required fields that PatchSet writes are not reported missing on top of
// the missing PatchSet. "regn" is two edits from "region", which the
// PatchSet lookup's own, stricter rule (fewer edits than half the name)
// did not take for it.
func TestMisspeltPatchSetByTheOneRule(t *testing.T) {
	withSet := func(name string) string {
		c := renderComposition("crossplane-system", "        - type: PatchSet\n          patchSetName: "+name+"\n")
		return strings.Replace(c, "      resources:\n", "      patchSets:\n      - name: region\n        patches:\n        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      resources:\n", 1)
	}
	expectFindings(t, renderFindings(t, withSet("regn"), renderEnv(t, "")))
	expectFindings(t, renderFindings(t, withSet("Regoin"), renderEnv(t, "")))
	// Too far from any PatchSet's name: the missing field is reported.
	expectFindings(t, renderFindings(t, withSet("rgn"), renderEnv(t, "")),
		"error render-required spec.forProvider.region is required by Bucket, but neither the base nor any patch sets it")
}
