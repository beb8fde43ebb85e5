package schemas_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// findings is what a built-in schema of minor says of text: one line per
// finding, "path [code] message", with "(key)" when it sits on the key.
func findings(t *testing.T, minor, text string) []string {
	t.Helper()
	st, err := workspace.BuiltinsFor(2, minor)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatal(err)
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	g, v, ok := strings.Cut(av, "/")
	if !ok {
		g, v = "", av
	}
	sc, ok := st.Lookup(schemas.GVK{Group: g, Version: v, Kind: kind})
	if !ok {
		t.Fatalf("no built-in schema for %s %s", av, kind)
	}
	var out []string
	for _, e := range sc.Validate(context.Background(), obj) {
		key := ""
		if e.OnKey {
			key = " (key)"
		}
		out = append(out, fmt.Sprintf("%s%s [%s] %s", e.Path, key, e.Code, e.Message))
	}
	return out
}

func sameFindings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

const issue32Deployment = testfixtures.Issue32Deployment

// At the linked minor, a built-in kind gets kube-apiserver's own
// validation: one finding per mistake, on the value (the key of an
// object), worded as the API server words it; the duplicate container
// name once (the server's, not the list-map's).
func TestKubeValidation(t *testing.T) {
	sameFindings(t, "Deployment at 1.37", findings(t, "1.37", issue32Deployment), []string{
		"spec.template.metadata.labels (key) [k8s-validation] Invalid value: {app: website}: `selector` does not match template `labels`",
		`spec.template.spec.containers[0].ports[0].protocol [k8s-validation] Unsupported value: "udp": supported values: "SCTP", "TCP", "UDP"`,
		`spec.template.spec.containers[0].resources.requests.cpu [k8s-validation] Invalid value: "2": must be less than or equal to cpu limit of 1`,
		`spec.template.spec.containers[1].name [k8s-validation] Duplicate value: "web"`,
	})
	sameFindings(t, "Service at 1.37", findings(t, "1.37", "apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec:\n  ports: [{port: 70000, targetPort: 8080}]\n  selector: {app: web}\n"), []string{
		"spec.ports[0].port [k8s-validation] Invalid value: 70000: must be between 1 and 65535, inclusive",
	})
	// A missing field on its object's key, named; an empty one on its
	// value.
	sameFindings(t, "missing and empty", findings(t, "1.37", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  initContainers: [{name: i, image: \"\"}]\n"), []string{
		`spec.containers[0] (key) [required] missing required field "image"`,
		`spec.initContainers[0].image [required] Required value: "" counts as unset`,
	})
}

// At another minor, the linked code does not judge: the schema and the
// declarative rules do (the duplicate container name is the list-map's).
func TestKubeValidationOnlyAtLinkedMinor(t *testing.T) {
	sameFindings(t, "Deployment at 1.36", findings(t, "1.36", issue32Deployment), []string{
		"spec.template.spec.containers[1] [duplicate] duplicate entry {name: web}",
	})
}

// What kube-apiserver does not check of a built-in kind that decodes is
// not said: OpenAPI required fields (a CSIDriver without spec), list-map
// keys (a port twice), nulls its decoding reads as unset, the generic
// name rules a kind's strategy replaces (a Role named system:x).
func TestKubeValidationReplacesOpenAPI(t *testing.T) {
	for _, text := range []string{
		"apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: d}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, ports: [{containerPort: 1}, {containerPort: 1}]}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, args: [null]}]\n",
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:x'}\n",
	} {
		sameFindings(t, text, findings(t, "1.37", text), nil)
	}
	// Where it does not decode, the schema says why (and the server
	// answers 400); unknown fields stay the schema's.
	sameFindings(t, "undecodable", findings(t, "1.37", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: three, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}\n"), []string{
		`spec.replicas [type] must be of type integer: "string"`,
	})
	sameFindings(t, "unknown field", findings(t, "1.37", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndatta: {}\n"), []string{
		`datta (key) [unknown-field] unknown field "datta"; did you mean "data"?`,
	})
}
