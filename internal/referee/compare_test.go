package referee

import "testing"

// TestRelated holds the path comparison without a server: the server's
// field.Path and crd-lsp's fieldpath name the same field differently.
func TestRelated(t *testing.T) {
	for _, c := range []struct {
		server, lsp string
		want        bool
	}{
		{"spec.forProvider[tags]", "spec.forProvider.tags", true},
		{"metadata.labels", "metadata.labels.app", true},
		{"spec.versions[0].schema.openAPIV3Schema.properties[spec].default", "spec.validation.openAPIV3Schema.properties.spec.default", true},
		// A list default's item: kube-openapi names it [0], the server
		// appends that as a child.
		{"spec.validation.openAPIV3Schema.properties[spec].properties[managementPolicies].default.[0]",
			"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.managementPolicies.default[0]", true},
		{"spec.validation.openAPIV3Schema.properties[spec].default.[0]", "spec.versions[0].schema.openAPIV3Schema.properties.spec.default[1]", false},
		{"spec.forProvider.region", "spec.forProvider.regions", false},
		{"spec.items[1]", "spec.items[0]", false},
	} {
		if got := related(c.server, c.lsp); got != c.want {
			t.Errorf("related(%q, %q) = %v, want %v (norm: %q, %q)", c.server, c.lsp, got, c.want, norm(c.server), norm(c.lsp))
		}
	}
}
