package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
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
              port: {type: integer}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object}
`

// What the API server would answer about a kind no schema serves decides
// the finding: removed APIs and unknown kinds of built-in groups are
// errors whatever the unknownKind setting; a version the CRD does not serve
// is an error naming the served ones; other kinds keep the setting.
func TestUnknownKinds(t *testing.T) {
	st := builtinStore(t).WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "crd.yaml", File: "/w/crd.yaml"}, "/w/crd.yaml", []byte(widgetCRD))
	for _, tc := range []struct {
		doc     string
		setting severity.Severity
		want    string
	}{
		{"apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: x}\n", severity.Warning,
			"1:13 error removed-api apiVersion: policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25: the API server no longer serves it; it has no successor (Pod Security Admission replaces it, configured by namespace labels)"},
		{"apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: x}\n", 0,
			"1:13 error removed-api apiVersion: extensions/v1beta1 Ingress was removed in Kubernetes 1.22: the API server no longer serves it; use apiVersion networking.k8s.io/v1"},
		{"apiVersion: v1\nkind: configmap\nmetadata: {name: x}\n", 0,
			`2:7 error unknown-kind kind: Kubernetes does not serve a kind "configmap" in v1: the API server rejects it; did you mean "ConfigMap"?`},
		{"apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n", severity.Info,
			`2:7 error unknown-kind kind: Kubernetes does not serve a kind "Deploymnet" in apps/v1: the API server rejects it; did you mean "Deployment"?`},
		{"apiVersion: example.org/v3\nkind: Widget\nmetadata: {name: x}\n", severity.Warning,
			`1:13 error unknown-kind apiVersion: example.org/v3 Widget is not served: crd.yaml defines Widget only as v1, v2, so the API server rejects it (kubectl: no matches for kind "Widget" in version "example.org/v3")`},
		// Alpha and beta versions of built-in groups: the bundle holds GA
		// versions only, so the setting decides.
		{"apiVersion: apps/v1beta3\nkind: Deployment\nmetadata: {name: x}\n", severity.Warning,
			"2:7 warning unknown-kind kind: no schema for apps/v1beta3 Deployment: the built-in Kubernetes schemas hold only its GA versions (v1); this version may be served where its feature is enabled"},
		{"apiVersion: admissionregistration.k8s.io/v1alpha9\nkind: NewPolicy\nmetadata: {name: x}\n", severity.Warning,
			"2:7 warning unknown-kind kind: no schema for admissionregistration.k8s.io/v1alpha9 NewPolicy: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml"},
		{"apiVersion: other.org/v1\nkind: Gadget\nmetadata: {name: x}\n", severity.Warning,
			"2:7 warning unknown-kind kind: no schema for other.org/v1 Gadget: add the CRD or XRD that defines it to the workspace, or the package that ships it to dependsOn in crossplane.yaml"},
		{"apiVersion: other.org/v1\nkind: Gadget\nmetadata: {name: x}\n", 0, ""},
	} {
		f := document.Parse("/w/x.yaml", 1, []byte(tc.doc))
		var got []string
		for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}, Options: Options{UnknownKind: tc.setting}}) {
			line, col := f.Mapper.LineCol(d.Span.Start)
			got = append(got, strings.Join([]string{itoa(line) + ":" + itoa(col), d.Severity.String(), d.Code, d.Path + ":", d.Message}, " "))
		}
		if g := strings.Join(got, "\n"); g != tc.want {
			t.Errorf("%s (unknownKind %v):\ngot  %s\nwant %s", tc.doc, tc.setting, g, tc.want)
		}
	}
}

// Every schema finding names its field as the API server would, also when
// it falls back to a position elsewhere (a missing required field).
func TestDiagnosticFieldPaths(t *testing.T) {
	env := Env{Workspace: Workspace{Schemas: builtinStore(t)}, Options: Options{UnknownKind: severity.Warning}}
	text := `apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  ports:
  - port: 80
  - port: http
    protocl: TCP
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template: {}
`
	f := document.Parse("x.yaml", 1, []byte(text))
	var got []string
	for _, d := range Diagnose(context.Background(), f, env) {
		got = append(got, d.Code+" "+d.Path)
	}
	want := []string{"type spec.ports[1].port", "unknown-field spec.ports[1].protocl", "required spec.selector"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("got %q, want %q", got, want)
	}
}
