package k8srules_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/k8srules"
)

// object decodes YAML as kubectl sends it (sigs.k8s.io/yaml).
func object(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func findings(t *testing.T, text string) []k8srules.Finding {
	m := object(t, text)
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	g := gvk.Parse(av, kind)
	if len(k8srules.Rules(g.Group, g.Version, g.Kind)) == 0 {
		t.Fatalf("no rules for %s %s", av, kind)
	}
	return k8srules.Check(g.Group, g.Version, g.Kind, m)
}

// TestRules holds each kind of rule the checker supports, on a real rule of
// the generated table, to a value the API server's runtime check
// (k8s.io/apimachinery/pkg/api/validate) accepts and one it rejects.
func TestRules(t *testing.T) {
	runtimeClass := "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: x}\n"
	vapb := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: x}\nspec:\n  policyName: p\n"
	ipAddress := "apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: 10.0.0.1}\n"
	eviction := "apiVersion: lifecycle.k8s.io/v1alpha1\nkind: Eviction\nmetadata: {name: x, namespace: d}\nspec:\n  target:\n    pod:\n"
	deviceClass := "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\nspec:\n  config:\n  - opaque:\n      parameters: {}\n"
	claim := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: x, namespace: d}\nspec:\n  devices:\n"
	pool := "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\nmetadata: {name: x}\nspec:\n  driver: d.example.com\n"
	cpg := "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: x, namespace: d}\nspec:\n  workloadRef: {workloadName: w, templateName: t}\n  schedulingConstraints:\n    topology:\n"
	workload := "apiVersion: scheduling.k8s.io/v1alpha3\nkind: Workload\nmetadata: {name: x, namespace: d}\nspec:\n  controllerRef:\n    name: x\n"
	rc := "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: x}\nspec:\n"
	slice := "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: x, namespace: d}\naddressType: IPv4\nendpoints:\n- addresses: "
	evictionRequest := "apiVersion: lifecycle.k8s.io/v1alpha1\nkind: EvictionRequest\nmetadata: {name: x, namespace: d}\nspec:\n  target:\n    pod: {name: p, uid: 123e4567-e89b-12d3-a456-426614174000}\n  intent: "
	resourceSlice := "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: x}\nspec:\n  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: n\n  devices:\n  - name: d\n    attributes:\n      model: "
	addresses := func(n int) string {
		a := make([]string, n)
		for i := range a {
			a[i] = "10.0.0.1"
		}
		return "[" + strings.Join(a, ", ") + "]\n"
	}
	cases := []struct {
		rule, valid, invalid, path, says string
	}{
		{"required (value: the zero value counts as unset)", runtimeClass + "handler: runc\n", runtimeClass + "handler: \"\"\n", "handler", "Required value"},
		{"required (value, absent)", runtimeClass + "handler: runc\n", runtimeClass, "handler", "Required value"},
		{"required (slice: empty counts as unset)", vapb + "  validationActions: [Deny]\n", vapb + "  validationActions: []\n", "spec.validationActions", "Required value"},
		{"required (pointer: {} is set)", ipAddress + "spec:\n  parentRef: {resource: services, name: s}\n", ipAddress + "spec: {}\n", "spec.parentRef", "Required value"},
		{"format k8s-short-name", runtimeClass + "handler: runc-2\n", runtimeClass + "handler: Runc\n", "handler", "must be a DNS label (k8s-short-name)"},
		{"format k8s-short-name (63 characters at most)", runtimeClass + "handler: " + strings.Repeat("a", 63) + "\n", runtimeClass + "handler: " + strings.Repeat("a", 64) + "\n", "handler", "must be no more than 63"},
		{"format k8s-long-name", eviction + "      name: web-0.example\n      uid: 123e4567-e89b-12d3-a456-426614174000\n", eviction + "      name: Web_0\n      uid: 123e4567-e89b-12d3-a456-426614174000\n", "spec.target.pod.name", "DNS subdomain"},
		{"format k8s-uuid (lowercase only)", eviction + "      name: web\n      uid: 123e4567-e89b-12d3-a456-426614174000\n", eviction + "      name: web\n      uid: 123E4567-E89B-12D3-A456-426614174000\n", "spec.target.pod.uid", "UUID"},
		{"format k8s-long-name-caseless", deviceClass + "      driver: GPU.Example.com\n", deviceClass + "      driver: gpu_example\n", "spec.config[0].opaque.driver", "(k8s-long-name-caseless)"},
		{"maxLength", deviceClass + "      driver: " + strings.Repeat("a", 63) + "\n", deviceClass + "      driver: " + strings.Repeat("a", 64) + "\n", "spec.config[0].opaque.driver", "63"},
		{"format k8s-resource-fully-qualified-name", claim + "    constraints:\n    - matchAttribute: dra.example.com/model\n", claim + "    constraints:\n    - matchAttribute: model\n", "spec.devices.constraints[0].matchAttribute", "domain and a name separated by a slash"},
		{"format k8s-resource-pool-name", pool + "  poolName: a.example/b\n", pool + "  poolName: a//b\n", "spec.poolName", "segment 1: must not be empty"},
		{"format k8s-label-key", cpg + "    - key: topology.kubernetes.io/zone\n", cpg + "    - key: -zone\n", "spec.schedulingConstraints.topology[0].key", "label key"},
		{"format k8s-path-segment-name", workload + "    kind: Job\n", workload + "    kind: \"..\"\n", "spec.controllerRef.kind", "path segment name"},
		{"minimum (pointer: 0 is checked)", rc + "  replicas: 0\n", rc + "  replicas: -1\n", "spec.replicas", "greater than or equal to 0"},
		{"minimum (value)", rc + "  minReadySeconds: 0\n", rc + "  minReadySeconds: -5\n", "spec.minReadySeconds", "greater than or equal to 0"},
		{"maximum", pool + "  limit: 1000\n", pool + "  limit: 1001\n", "spec.limit", "less than or equal to 1000"},
		{"maxItems", slice + addresses(100), slice + addresses(101), "endpoints[0].addresses", "Too many: must have at most 100 items"},
		{"enum", evictionRequest + "Eviction\n", evictionRequest + "eviction\n", "spec.intent", `supported values: "Eviction", "Withdrawn"`},
		{"unique=set", claim + "    config:\n    - requests: [a, b]\n      opaque: {driver: d.example.com, parameters: {}}\n", claim + "    config:\n    - requests: [a, a]\n      opaque: {driver: d.example.com, parameters: {}}\n", "spec.devices.config[0].requests[1]", "Duplicate value"},
		{"unique=map (listMapKey)", claim + "    requests:\n    - {name: a, exactly: {deviceClassName: c}}\n    - {name: b, exactly: {deviceClassName: c}}\n", claim + "    requests:\n    - {name: a, exactly: {deviceClassName: c}}\n    - {name: a, exactly: {deviceClassName: c}}\n", "spec.devices.requests[1]", "same key (name=a)"},
		{"union (none)", resourceSlice + "{string: x}\n", resourceSlice + "{}\n", "spec.devices[0].attributes.model", "must specify one of: `int`, `bool`, `string`, `version`"},
		{"union (two)", resourceSlice + "{int: 0}\n", resourceSlice + "{int: 1, bool: true}\n", "spec.devices[0].attributes.model", "must specify exactly one of"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			if got := findings(t, c.valid); len(got) != 0 {
				t.Errorf("valid object: %v", got)
			}
			got := findings(t, c.invalid)
			if len(got) != 1 {
				t.Fatalf("invalid object: want 1 finding, got %v", got)
			}
			if got[0].Path.String() != c.path || !strings.Contains(got[0].Message, c.says) || !strings.Contains(got[0].Message, "Kubernetes' own validation for") {
				t.Errorf("got %s: %s; want %s: …%s…", got[0].Path, got[0].Message, c.path, c.says)
			}
		})
	}
}
