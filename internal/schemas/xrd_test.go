package schemas

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

var xrdBase = testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", ClaimKind: "Database", ClaimPlural: "databases", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
              name:
                type: string
            x-kubernetes-validations:
            - rule: self.size > 0
              message: size must be positive
`}.YAML()

func TestValidateXRDValid(t *testing.T) {
	expect(t, ValidateXRD(context.Background(), obj(t, xrdBase), 2))
	expect(t, ValidateXRD(context.Background(), obj(t, xrdBase), 1))
}

// TestValidateXRDSchemaMistakes: the mistakes the API server rejects in a
// CRD are found in an XRD's schema too, on the same path of the XRD, once
// (not once for the XR's CRD and once for the claim's).
func TestValidateXRDSchemaMistakes(t *testing.T) {
	for _, c := range []struct {
		name, from, to string
		want           want
	}{
		{"bad type", "type: integer", "type: strin",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type", false, "xrd", `unsupported value "strin": supported values: "array"`}},
		{"broken CEL rule", "rule: self.size > 0", "rule: self.size >",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule", false, "xrd", "compilation failed"}},
		{"properties as a list", "            properties:\n              size:\n                type: integer\n              name:\n                type: string\n",
			"            properties:\n              - size\n              - name\n",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties", false, "xrd", "must be of type object, not array"}},
		// Crossplane decodes the schema with encoding/json, which drops
		// what JSONSchemaProps lacks: the constraint is never enforced.
		{"misspelt keyword", "              size:\n                type: integer\n", "              size:\n                type: integer\n                minimun: 1\n",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.minimun", true, "xrd-keyword", `"minimun" is not a JSON schema keyword (did you mean "minimum"?): Crossplane drops it`}},
		{"a property without properties: above it", "              name:\n                type: string\n", "              name:\n                type: object\n                first:\n                  type: string\n",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name.first", true, "xrd-keyword", `"first" is not a JSON schema keyword: it reads like a property written without "properties:" above it`}},
		{"misspelt rule member", "              message: size must be positive", "              mesage: size must be positive",
			want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].mesage", true, "xrd-keyword", `"mesage" is not a validation rule member (did you mean "message"?)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(xrdBase, c.from, c.to, 1)
			if src == xrdBase {
				t.Fatal("replacement did not apply")
			}
			expect(t, ValidateXRD(context.Background(), obj(t, src), 2), c.want)
		})
	}
}

// TestValidateXRDClaimNames: the claim CRD's names are the XRD's
// claimNames.
func TestValidateXRDClaimNames(t *testing.T) {
	src := strings.Replace(xrdBase, "claimNames: {kind: Database, plural: databases}", "claimNames: {kind: Database, plural: Data_bases}", 1)
	expect(t, ValidateXRD(context.Background(), obj(t, src), 1),
		want{"spec.claimNames.plural", false, "xrd", "a DNS-1035 label must consist of lower case alphanumeric characters"},
	)
}
