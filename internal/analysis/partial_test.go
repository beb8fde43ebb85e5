package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// TestPatchFragment: a kustomize patch is checked for what it sets, not
// for what a whole object needs. The same documents outside a patch file
// get the required-field findings.
func TestPatchFragment(t *testing.T) {
	text := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: three
  template:
    spec:
      $setElementOrder/containers:
        - name: web
      containers:
        - name: web
          imagePullPolicy: IfNotPresent
          $patch: replace
          resoures: {}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: objects.kubernetes.crossplane.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service:
          path: /convert
---
apiVersion: example.org/v1
kind: Nope
`
	f := document.Parse("patch.yaml", 1, []byte(text))
	lines := func(env Env) []string {
		var out []string
		for _, d := range Diagnose(context.Background(), f, env) {
			line, col := f.Mapper.LineCol(d.Span.Start)
			out = append(out, itoa(line)+":"+itoa(col)+" "+d.Code+" "+d.Message)
		}
		return out
	}
	env := Env{Workspace: Workspace{Schemas: builtinStore(t), CrossplaneMajor: 2}, Role: Role{PatchOf: "kustomization.yaml"}, Options: Options{UnknownKind: severity.Warning}}
	got := strings.Join(lines(env), "\n")
	want := strings.Join([]string{
		`6:13 type must be of type integer: "string"`,
		`15:11 unknown-field unknown field "resoures"; did you mean "resources"?`,
		`31:7 unknown-kind no schema for example.org/v1 Nope: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml`,
	}, "\n")
	if got != want {
		t.Errorf("in a patch:\n%s\nwant:\n%s", got, want)
	}
	env.Role.PatchOf = ""
	whole := strings.Join(lines(env), "\n")
	for _, s := range []string{"required", "storage version"} {
		if !strings.Contains(whole, s) {
			t.Errorf("outside a patch, the findings lack %q:\n%s", s, whole)
		}
	}
}

// TestExpressions: with env.Role.Expressions (a chainsaw test's templated
// file), findings on "(…)" values are dropped, the others kept.
func TestExpressions(t *testing.T) {
	text := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ($name)
  labels:
    app: (join('-', [$name, 'x']))
spec:
  replicas: three
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`
	f := document.Parse("install.yaml", 1, []byte(text))
	codes := func(env Env) []string {
		var out []string
		for _, d := range Diagnose(context.Background(), f, env) {
			line, col := f.Mapper.LineCol(d.Span.Start)
			out = append(out, itoa(line)+":"+itoa(col)+" "+d.Code)
		}
		return out
	}
	env := Env{Workspace: Workspace{Schemas: builtinStore(t)}, Role: Role{Expressions: true}}
	if got := strings.Join(codes(env), " "); got != "8:13 type" {
		t.Errorf("with expressions: %s, want 8:13 type", got)
	}
	env.Role.Expressions = false
	if got := codes(env); len(got) < 3 {
		t.Errorf("without expressions, the name and label values are findings too: %v", got)
	}
}
