package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// issue32 is the Deployment and Service of issue 32: kube-apiserver
// rejects five things, which the OpenAPI schemas do not state.
const issue32 = testfixtures.Issue32Deployment + `---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  ports: [{port: 70000, targetPort: 8080}]
  selector: {app: web}
`

// allFindings are a file's findings as "line:col severity code message".
func allFindings(t *testing.T, path, text string, env Env) []string {
	t.Helper()
	f := document.Parse(path, 1, []byte(text))
	var out []string
	for _, d := range Diagnose(context.Background(), f, env) {
		l, c := f.Mapper.LineCol(d.Span.Start)
		out = append(out, fmt.Sprintf("%d:%d %s %s %s", l, c, d.Severity, d.Code, d.Message))
	}
	return out
}

// Issue 32's five mistakes, each on its line, worded as kube-apiserver
// words them.
func TestKubeValidationIssue32(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	expectFindings(t, allFindings(t, "/ws/app.yaml", issue32, Env{Workspace: Workspace{Schemas: st}}),
		"7:16 error k8s-validation Invalid value: {app: website}: `selector` does not match template `labels`",
		`12:47 error k8s-validation Unsupported value: "udp": supported values: "SCTP", "TCP", "UDP"`,
		`13:37 error k8s-validation Invalid value: "2": must be less than or equal to cpu limit of 1`,
		`14:16 error k8s-validation Duplicate value: "web"`,
		"20:18 error k8s-validation Invalid value: 70000: must be between 1 and 65535, inclusive")
}

// At another Kubernetes minor the linked code does not judge (its rules
// are 1.37's): the schema and the declarative rules do.
func TestKubeValidationOtherMinor(t *testing.T) {
	st, err := workspace.BuiltinsFor(2, "1.36")
	if err != nil {
		t.Fatal(err)
	}
	expectFindings(t, allFindings(t, "/ws/app.yaml", issue32, Env{Workspace: Workspace{Schemas: st}}),
		"14:9 error duplicate duplicate entry {name: web}")
}

// deploymentComposition composes one Deployment whose first container's
// port says protocol udp, with patches.
func deploymentComposition(patches string) string {
	return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: apps
spec:
  compositeTypeRef: {apiVersion: platform.example.org/v1alpha1, kind: XBucket}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: app
        base:
          apiVersion: apps/v1
          kind: Deployment
          metadata: {namespace: default}
          spec:
            selector: {matchLabels: {app: web}}
            template:
              metadata: {labels: {app: web}}
              spec:
                containers:
                - {name: web, image: nginx, ports: [{containerPort: 80, protocol: udp}]}
        patches:
` + patches
}

// A composed built-in resource is judged by kube-apiserver's validation
// as rendered; what the base decides alone (a part of the object no
// patch writes) is reported on the base. A part a patch writes is not
// judged from a synthesised composite's placeholders.
func TestKubeValidationComposedBase(t *testing.T) {
	env := renderEnv(t, "")
	kube := func(text string) []string {
		var out []string
		for _, f := range allFindings(t, "/ws/composition.yaml", text, env) {
			if strings.Contains(f, schemas.CodeKubernetes) {
				out = append(out, f)
			}
		}
		return out
	}
	labelPatch := "        - {fromFieldPath: spec.parameters.label, toFieldPath: metadata.labels.team}\n"
	expectFindings(t, kube(deploymentComposition(labelPatch)),
		`26:83 error k8s-validation Unsupported value: "udp": supported values: "SCTP", "TCP", "UDP"`)
	sizePatch := "        - {fromFieldPath: spec.parameters.size, toFieldPath: spec.replicas}\n"
	expectFindings(t, kube(deploymentComposition(sizePatch)))
}

// objectCRD is provider-kubernetes' Object, as much of it as the tests need.
const objectCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: objects.kubernetes.crossplane.io
spec:
  group: kubernetes.crossplane.io
  scope: Cluster
  names: {kind: Object, plural: objects, singular: object, listKind: ObjectList}
  versions:
  - name: v1alpha2
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [forProvider]
            properties:
              managementPolicies: {type: array, items: {type: string}}
              forProvider:
                type: object
                required: [manifest]
                properties:
                  manifest:
                    type: object
                    x-kubernetes-embedded-resource: true
                    x-kubernetes-preserve-unknown-fields: true
`

func objectEnv(t *testing.T) Env {
	t.Helper()
	env := renderEnv(t, "")
	env.Workspace.Schemas = env.Workspace.Schemas.WithFiles([]schemas.FileInput{
		{Source: workspace.Source("/ws/object.yaml"), Path: "/ws/object.yaml", Content: []byte(objectCRD)},
	})
	return env
}

// The manifest of a provider-kubernetes Object is judged as the target
// cluster's API server judges it when the provider applies it: errors,
// and an unknown field as a warning (dropped); an Observe-only Object's
// manifest only names what it observes.
func TestObjectManifest(t *testing.T) {
	env := objectEnv(t)
	object := func(policies string) string {
		return `apiVersion: kubernetes.crossplane.io/v1alpha2
kind: Object
metadata: {name: web}
spec:` + policies + `
  forProvider:
    manifest:
      apiVersion: v1
      kind: Service
      metadata: {name: svc, namespace: default}
      spec:
        ports: [{port: 80, protocol: tcp}]
        typo: 1
`
	}
	expectFindings(t, allFindings(t, "/ws/object.yaml", object(""), env),
		`11:38 error k8s-validation Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP" (the target cluster's API server refuses the manifest when provider-kubernetes applies it)`,
		`12:9 warning unknown-field unknown field "typo"; did you mean "type"? (the target cluster's API server drops it when provider-kubernetes applies the manifest)`)
	expectFindings(t, allFindings(t, "/ws/object.yaml", object("\n  managementPolicies: [Observe]"), env))
}

// A manifest without a name is applied with the Object's (provider-kubernetes
// parseManifest, internal/controller/object/object.go at 005efae): the
// target cluster never sees it nameless, so its missing name is no finding —
// a plain Object's, nor a Composition base's that Crossplane names.
func TestObjectManifestTakesTheObjectsName(t *testing.T) {
	env := objectEnv(t)
	object := func(meta string) string {
		return `apiVersion: kubernetes.crossplane.io/v1alpha2
kind: Object
` + meta + `spec:
  forProvider:
    manifest:
      apiVersion: v1
      kind: Secret
      metadata: {namespace: flux-system}
`
	}
	expectFindings(t, allFindings(t, "/ws/object.yaml", object("metadata: {name: web}\n"), env))
	// Without a name of its own the Object is the one the API server refuses.
	expectFindings(t, allFindings(t, "/ws/object.yaml", object(""), env),
		`2:7 error required metadata: missing required field "name": name or generateName is required`)
}

// An Object a Composition composes: its manifest's findings the base
// decides alone go on the base.
func TestObjectManifestComposed(t *testing.T) {
	env := objectEnv(t)
	comp := func(patches string) string {
		return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: objects
spec:
  compositeTypeRef: {apiVersion: platform.example.org/v1alpha1, kind: XBucket}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: svc
        base:
          apiVersion: kubernetes.crossplane.io/v1alpha2
          kind: Object
          spec:
            forProvider:
              manifest:
                apiVersion: v1
                kind: Service
                metadata: {name: svc, namespace: default}
                spec: {ports: [{port: 80, protocol: tcp}]}
        patches:
` + patches
	}
	errorsOf := func(text string) []string {
		var out []string
		for _, f := range allFindings(t, "/ws/composition.yaml", text, env) {
			if strings.Contains(f, " "+severity.Error.String()+" ") {
				out = append(out, f)
			}
		}
		return out
	}
	expectFindings(t, errorsOf(comp("        - {fromFieldPath: spec.parameters.label, toFieldPath: spec.forProvider.manifest.metadata.labels.team}\n")),
		`25:53 error k8s-validation Unsupported value: "tcp"`)
	expectFindings(t, errorsOf(comp("        - {fromFieldPath: spec.parameters.size, toFieldPath: 'spec.forProvider.manifest.spec.ports[0].port'}\n")))
}
