package lsp_test

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// deploymentWithNewerField uses spec.template.spec.schedulingGroup, which
// the Kubernetes 1.36 OpenAPI documents have and 1.34's do not.
const deploymentWithNewerField = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      schedulingGroup:
        podGroupName: g
      containers:
      - name: web
        image: nginx
`

// TestKubernetesVersionSetting: crdLsp.kubernetesVersion, pulled through
// workspace/configuration as editors answer it, chooses the built-in
// Kubernetes minor: a field added later is an error naming both
// releases, hover names the minor shown, another minor (or none: the
// newest) accepts it, and a value that is no built-in minor is said once
// while the newest applies.
func TestKubernetesVersionSetting(t *testing.T) {
	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir(), Settings: map[string]any{"kubernetesVersion": "1.34"}})
	e.AwaitSchemas(30 * time.Second)
	e.Open("deploy.yaml", deploymentWithNewerField)
	d := awaitCodes(t, e, "deploy.yaml", "unknown-field")
	want := `unknown field "schedulingGroup": spec.template.spec.schedulingGroup is not in Kubernetes 1.34 (added in 1.36)`
	if lsptest.Message(d[0]) != want || d[0].Severity != protocol.DiagnosticSeverityError || d[0].Range.Start.Line != 11 {
		t.Errorf("diagnostic %+v, want an error on line 12: %s", d[0], want)
	}
	if h := e.Hover("deploy.yaml", 1, 8); h == nil || !strings.Contains(lsptest.HoverText(h), "built-in kubernetes v1.34") {
		t.Errorf("hover on the kind does not name Kubernetes 1.34: %+v", h)
	}

	e.SetSettings(map[string]any{"kubernetesVersion": "1.36"})
	awaitCodes(t, e, "deploy.yaml", "")
	if h := e.Hover("deploy.yaml", 1, 8); h == nil || !strings.Contains(lsptest.HoverText(h), "built-in kubernetes v1.36") {
		t.Errorf("hover on the kind does not name Kubernetes 1.36: %+v", h)
	}

	e.SetSettings(map[string]any{"kubernetesVersion": "1.34"})
	awaitCodes(t, e, "deploy.yaml", "unknown-field")
	e.SetSettings(map[string]any{"kubernetesVersion": "banana"})
	e.AwaitLog(`showMessage: crd-lsp: crdLsp.kubernetesVersion: "banana" is not a Kubernetes version`, 30*time.Second)
	awaitCodes(t, e, "deploy.yaml", "")
	if h := e.Hover("deploy.yaml", 1, 8); h == nil || !strings.Contains(lsptest.HoverText(h), "built-in kubernetes v1.37") {
		t.Errorf("hover on the kind does not name the newest, Kubernetes 1.37: %+v", h)
	}
	// Another reload with the same setting says nothing new.
	loads := func() int {
		n := 0
		for _, l := range e.Log() {
			if strings.Contains(l, "schemas loaded") {
				n++
			}
		}
		return n
	}
	before := loads()
	e.SetSettings(map[string]any{"kubernetesVersion": "banana", "crossplaneVersion": "v1"})
	e.Await("a reload", 30*time.Second, func() bool { return loads() > before })
	shown := 0
	for _, l := range e.Log() {
		if strings.HasPrefix(l, "showMessage: ") && strings.Contains(l, "banana") {
			shown++
		}
	}
	if shown != 1 {
		t.Errorf("the unusable setting was shown %d times, want once:\n%s", shown, strings.Join(e.Log(), "\n"))
	}
}
