package schemas

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/severity"
)

const crdBase = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
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
`

func TestValidateCRDValid(t *testing.T) {
	expect(t, ValidateCRD(context.Background(), obj(t, crdBase)))
}

func TestValidateCRDBadType(t *testing.T) {
	got := ValidateCRD(context.Background(), obj(t, strings.Replace(crdBase, "type: integer", "type: strin", 1)))
	// (The API server does not compile CEL rules of a non-structural
	// schema, so the rule reading size is not reported.)
	expect(t, got,
		want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type", false, "crd", `unsupported value "strin": supported values: "array", "boolean", "integer", "number", "object", "string"`},
	)
}

func TestValidateCRDNonStructural(t *testing.T) {
	got := ValidateCRD(context.Background(), obj(t, strings.Replace(crdBase, "              name:\n                type: string\n", "              name:\n                description: no type\n", 1)))
	expect(t, got, want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name", true, "required", `missing required field "type": must not be empty for specified object fields`})
}

func TestValidateCRDBadCEL(t *testing.T) {
	got := ValidateCRD(context.Background(), obj(t, strings.Replace(crdBase, "rule: self.size > 0", "rule: self.size >", 1)))
	expect(t, got, want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule", false, "crd", "compilation failed: ERROR: <input>:1:12: Syntax error"})
}

func TestValidateCRDUnknownFieldAndNames(t *testing.T) {
	src := strings.Replace(crdBase, "              name:\n", "              name:\n                maxLenght: 3\n", 1)
	src = strings.Replace(src, "    plural: widgets\n", "    plural: Widgets\n", 1)
	got := ValidateCRD(context.Background(), obj(t, src))
	expect(t, got,
		want{"metadata.name", false, "crd", `must be spec.names.plural+"."+spec.group`},
		want{"spec.names.plural", false, "crd", `invalid value "Widgets": a DNS-1035 label must consist of lower case`},
		want{"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name.maxLenght", true, "unknown-field", `unknown field "maxLenght"`},
	)
}

func TestValidateCRDWrongGoType(t *testing.T) {
	got := ValidateCRD(context.Background(), obj(t, strings.Replace(crdBase, "    served: true\n", "    served: yes please\n", 1)))
	expect(t, got, want{"spec.versions[0].served", false, "type", "must be of type boolean, not string"})
}

// Per-version schemas that are identical are hoisted to spec.validation by
// the conversion; errors must still land in the document's versions.
func TestValidateCRDHoistedSchemaPath(t *testing.T) {
	two := strings.Replace(crdBase, "  versions:\n  - name: v1\n    served: true\n    storage: true\n", "  versions:\n  - name: v1\n    served: true\n    storage: true\n", 1)
	v1 := two[strings.Index(two, "  - name: v1"):]
	two += strings.Replace(strings.Replace(v1, "name: v1", "name: v2", 1), "storage: true", "storage: false", 1)
	two = strings.ReplaceAll(two, "type: integer", "type: strin")
	got := ValidateCRD(context.Background(), obj(t, two))
	for _, e := range got {
		if !strings.HasPrefix(e.Path.String(), "spec.versions[0].schema.openAPIV3Schema.") {
			t.Errorf("error outside versions[0]: %s", e)
		}
	}
	if len(got) == 0 {
		t.Error("no errors")
	}
}

// Every real CRD in the corpus subsets passes, as it did on a real API
// server.
func TestValidateCRDCorpus(t *testing.T) {
	root := corpus(t)
	var files []string
	for _, glob := range []string{upjetDir + "/rds.*.yaml", upjetDir + "/s3.aws.upbound.io_*.yaml", provK8sGlob + "/*.yaml", xpDir + "/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(root, glob))
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("only %d corpus CRDs", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range splitDocs(b) {
			if !strings.Contains(string(doc), "CustomResourceDefinition") {
				continue
			}
			// provider-kubernetes ships a conversion webhook whose service
			// Crossplane's package manager fills in at install time: said
			// as information.
			if filepath.Base(f) == "kubernetes.crossplane.io_objects.yaml" {
				errs := ValidateCRD(context.Background(), obj(t, string(doc)))
				expect(t, errs, want{"spec.conversion.webhook.clientConfig.service", true, "crd", "filled in when the CRD is installed"})
				continue
			}
			if errs := ValidateCRD(context.Background(), obj(t, string(doc))); len(errs) > 0 {
				t.Errorf("%s:\n%s", filepath.Base(f), dump(errs))
			}
		}
	}
}

// A packaged CRD's conversion webhook names a service path but no service:
// Crossplane's package manager fills in name, namespace, port and CA bundle
// when it installs the package (pkg/revision/establisher.go). That is said
// once, as information, not as two errors; a URL-less webhook without a
// service at all is still an error.
func TestValidateCRDConversionServiceFilledAtInstall(t *testing.T) {
	conv := "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        service:\n          path: /convert\n      conversionReviewVersions: [v1]\n"
	packaged := strings.Replace(crdBase, "  group: example.org\n", conv+"  group: example.org\n", 1)
	got := ValidateCRD(context.Background(), obj(t, packaged))
	expect(t, got, want{"spec.conversion.webhook.clientConfig.service", true, "crd", "the conversion webhook's service has no name or namespace: they are filled in when the CRD is installed"})
	if got[0].Severity != severity.Info {
		t.Errorf("severity %v, want info", got[0].Severity)
	}
	bad := strings.Replace(packaged, "        service:\n          path: /convert\n", "        caBundle: Cg==\n", 1)
	for _, e := range ValidateCRD(context.Background(), obj(t, bad)) {
		if e.Severity == severity.Error && strings.Contains(e.Message, "exactly one of url or service is required") {
			return
		}
	}
	t.Errorf("a webhook with neither url nor service is an error")
}
