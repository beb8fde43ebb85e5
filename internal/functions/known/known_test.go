// This file tests the registry's helpers.

package known

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// TestMatchRule: rule paths match fields exactly, "[*]" any index, a
// leading "*." any prefix.
func TestMatchRule(t *testing.T) {
	p := func(s string) fieldpath.Path {
		fp, err := fieldpath.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"spec.environmentConfigs[*].type", "spec.environmentConfigs[2].type", true},
		{"spec.environmentConfigs[*].type", "spec.environmentConfigs.type", false},
		{"*.patches[*].type", "resources[0].patches[3].type", true},
		{"*.patches[*].type", "environment.patches[0].type", true},
		{"*.patches[*].type", "patches[0].type", true},
		{"source", "inline.source", false},
		{"spec.target", "spec.target", true},
	} {
		if got := matchRule(c.pattern, p(c.path)); got != c.want {
			t.Errorf("matchRule(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
}
