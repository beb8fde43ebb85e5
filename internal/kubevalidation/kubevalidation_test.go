package kubevalidation

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/component-base/version"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// errorsOf is what Validate says of text, one "path: body" line each.
func errorsOf(t *testing.T, text string) []string {
	t.Helper()
	res, ok := Validate(context.Background(), object(t, text))
	if !ok {
		t.Fatalf("not handled:\n%s", text)
	}
	if res.DecodeError != nil || res.Panic != "" || res.Failed != nil {
		t.Fatalf("decode %v, panic %q, failed %v:\n%s", res.DecodeError, res.Panic, res.Failed, text)
	}
	var out []string
	for _, e := range res.Errors {
		out = append(out, e.Field+": "+e.ErrorBody())
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// The linked code is go.mod's k8s.io/kubernetes, whose minor Minor names.
func TestLinkedVersion(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes v1\.(\d+)\.\d+`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod requires no k8s.io/kubernetes")
	}
	if got := "1." + string(m[1]); got != Minor {
		t.Errorf("go.mod links k8s.io/kubernetes %s, Minor says %s", got, Minor)
	}
	if version.DefaultKubeBinaryVersion != Minor {
		t.Errorf("component-base's binary version is %s, Minor says %s (feature gates default by it)", version.DefaultKubeBinaryVersion, Minor)
	}
}

// The Deployment and Service of issue 32: five mistakes, each as the API
// server says it.
func TestDeploymentAndService(t *testing.T) {
	same(t, "Deployment", errorsOf(t, testfixtures.Issue32Deployment), []string{
		"spec.template.metadata.labels: Invalid value: {\"app\":\"website\"}: `selector` does not match template `labels`",
		`spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "udp": supported values: "SCTP", "TCP", "UDP"`,
		`spec.template.spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`,
		`spec.template.spec.containers[1].name: Duplicate value: "web"`,
	})
	same(t, "Service", errorsOf(t, `apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  ports: [{port: 70000, targetPort: 8080}]
  selector: {app: web}
`), []string{`spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`})
}

// Pod templates of every workload kind are validated as the API server
// validates them: a container without an image.
func TestPodTemplates(t *testing.T) {
	pod := func(indent, restart string) string {
		return strings.ReplaceAll("\n  metadata: {labels: {app: a}}\n  spec:\n    restartPolicy: "+restart+"\n    containers: [{name: c}]\n", "\n", "\n"+indent)
	}
	workload := func(kind string) string {
		return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: w}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:" + pod("  ", "Always")
	}
	for _, c := range []struct{ text, want string }{
		{workload("Deployment"), "spec.template.spec.containers[0].image"},
		{workload("StatefulSet"), "spec.template.spec.containers[0].image"},
		{workload("DaemonSet"), "spec.template.spec.containers[0].image"},
		{workload("ReplicaSet"), "spec.template.spec.containers[0].image"},
		{"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:" + pod("  ", "Never"), "spec.template.spec.containers[0].image"},
		{"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: j}\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n    spec:\n      template:" + pod("      ", "Never"), "spec.jobTemplate.spec.template.spec.containers[0].image"},
		{"apiVersion: v1\nkind: ReplicationController\nmetadata: {name: r}\nspec:\n  selector: {app: a}\n  template:" + pod("  ", "Always"), "spec.template.spec.containers[0].image"},
		{"apiVersion: v1\nkind: PodTemplate\nmetadata: {name: p}\ntemplate:" + pod("", "Always"), "template.spec.containers[0].image"},
	} {
		same(t, c.text, errorsOf(t, c.text), []string{c.want + ": Required value"})
	}
}

// What the typed decoding refuses is not validated: the API server
// answers 400.
func TestDecodeError(t *testing.T) {
	res, ok := Validate(context.Background(), object(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: three}\n"))
	if !ok || res.DecodeError == nil || !strings.Contains(res.DecodeError.Error(), "replicas") || len(res.Errors) > 0 {
		t.Errorf("got %v, %+v; want a decoding error about replicas", ok, res)
	}
}

func TestHandles(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"apps/v1", "Deployment", true},
		{"v1", "ConfigMap", true},
		{"apiregistration.k8s.io/v1", "APIService", true},
		{"apps/v1beta9", "Deployment", false},
		{"example.org/v1", "Widget", false},
		{"v1", "Binding", false},
		{"", "", false},
	} {
		if got := Handles(c.apiVersion, c.kind); got != c.want {
			t.Errorf("Handles(%q, %q) = %v, want %v", c.apiVersion, c.kind, got, c.want)
		}
	}
}

// Names: each kind's own rule (a Role's name is any path segment, a
// Service's a DNS label), a generated name as kube-apiserver generates it
// from generateName.
func TestNames(t *testing.T) {
	same(t, "Role", errorsOf(t, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: 'system:leader', namespace: x}\n"), nil)
	got := errorsOf(t, "apiVersion: v1\nkind: Service\nmetadata: {name: my.svc}\nspec: {ports: [{port: 80}]}\n")
	if len(got) != 1 || got[0] != `metadata.name: Invalid value: "my.svc": must not contain dots` {
		t.Errorf("Service my.svc: %q", got)
	}
	got = errorsOf(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: Bad_}\n")
	if len(got) != 2 || !strings.HasPrefix(got[0], `metadata.generateName: Invalid value: "Bad_"`) || !strings.HasPrefix(got[1], `metadata.name: Invalid value: "Bad_`+generatedSuffix+`"`) {
		t.Errorf("generateName Bad_: %q", got)
	}
}

// A Service is judged as on a dual-stack cluster whose IPs and node ports
// are all free and in range: a headless Service's clusterIP is synced
// into clusterIPs, dual-stack is allowed, any node port is (kube-apiserver's
// dry run asks its allocator only whether a port is taken).
func TestServiceAllocation(t *testing.T) {
	for _, spec := range []string{
		"{clusterIP: None, ports: [{port: 80}], selector: {a: b}}",
		"{clusterIP: None}",
		"{ipFamilyPolicy: RequireDualStack, ports: [{port: 80}]}",
		"{ipFamilies: [IPv6], ports: [{port: 80}]}",
		"{clusterIP: 192.168.7.7, ports: [{port: 80}]}",
		"{type: NodePort, ports: [{port: 80, nodePort: 1}]}",
		"{type: NodePort, ports: [{port: 80, nodePort: 70000}]}", // a dry run never asks the allocator's range
		"{type: LoadBalancer, externalTrafficPolicy: Local, ports: [{port: 80}]}",
	} {
		same(t, spec, errorsOf(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: "+spec+"\n"), nil)
	}
}

// panicking is a strategy whose validation panics, standing in for a bug
// of the linked code.
type panicking struct{ rest.RESTCreateStrategy }

func (panicking) Validate(context.Context, runtime.Object) field.ErrorList { panic("boom") }

// A panic of the validation code is recovered and reported, never a crash.
func TestPanicRecovered(t *testing.T) {
	gk := schema.GroupKind{Kind: "ConfigMap"}
	saved := kinds[gk]
	t.Cleanup(func() { kinds[gk] = saved })
	kinds[gk] = kind{resource: saved.resource, strategy: panicking{saved.strategy}}
	res, ok := Validate(context.Background(), object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"))
	if !ok || !strings.Contains(res.Panic, "boom") || len(res.Errors) > 0 {
		t.Errorf("got %v %+v, want the panic reported", ok, res)
	}
}
