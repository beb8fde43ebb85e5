package fuzztest

import (
	"slices"
	"strings"
	"testing"
)

// TestSeedReplays: Mutate logs its seed, and the same seed given back in
// CRD_LSP_FUZZSEED makes the same inputs, so that a failure found with a
// random seed can be run again.
func TestSeedReplays(t *testing.T) {
	t.Setenv("CRD_LSP_FUZZTIME", "50ms")
	t.Setenv("CRD_LSP_FUZZSEED", "12345")
	run := func() []string {
		var inputs []string
		t.Run("mutate", func(t *testing.T) {
			Mutate(t, "FuzzReplay", func(_ *testing.T, s string) {
				if len(inputs) < 20 {
					inputs = append(inputs, s)
				}
			})
		})
		return inputs
	}
	a, b := run(), run()
	if len(a) < 20 || !slices.Equal(a, b) {
		t.Errorf("the same seed made different inputs:\n%q\n%q", a, b)
	}
	// A different seed makes others.
	t.Setenv("CRD_LSP_FUZZSEED", "54321")
	if c := run(); slices.Equal(a, c) {
		t.Errorf("seeds 12345 and 54321 made the same inputs: %q", strings.Join(c, " | "))
	}
}
