package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// scopeXRD defines a composite of the given scope (Crossplane v2).
func scopeXRD(kind, plural, scope string) string {
	return testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: kind, Plural: plural, Scope: scope, Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              ns: {type: string}
`}.YAML()
}

func scopeComposition(kind string) string {
	return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: ` + kind + `}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {name: function-patch-and-transform}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: role
        base: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, rules: []}
      - name: cm
        base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}
      - name: placed
        base: {apiVersion: v1, kind: ConfigMap, metadata: {namespace: default}}
      - name: patched
        base: {apiVersion: v1, kind: ConfigMap}
        patches:
        - {fromFieldPath: spec.ns, toFieldPath: metadata.namespace}
`
}

// TestCompositionScope: a namespaced XR composing a cluster-scoped kind
// is the error Crossplane v2's reconciler gives (before, only side
// effects were reported and render put a namespace on the ClusterRole);
// a cluster-scoped XR composing a namespaced kind with no namespace in
// its template, or from a patch, is reported; each finding names the
// resource, on its base's kind.
func TestCompositionScope(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	st = st.WithFile(schemas.Source{Kind: schemas.SourceWorkspace, Name: "xrd.yaml", File: "/w/xrd.yaml"}, "/w/xrd.yaml",
		[]byte(scopeXRD("XApp", "xapps", "Namespaced")+"---\n"+scopeXRD("XCluster", "xclusters", "Cluster")))
	env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2}}
	for _, tc := range []struct{ kind, want string }{
		{"XApp", `16:64 error composition-scope Crossplane cannot apply cluster scoped composed resource "role" (a ClusterRole) for a namespaced composite resource`},
		{"XCluster", `18:38 error composition-scope resource "cm" is a namespaced ConfigMap, and the cluster-scoped XCluster puts what it composes in no namespace`},
	} {
		f := document.Parse("file:///w/c.yaml", 1, []byte(scopeComposition(tc.kind)))
		var got []string
		for _, d := range Diagnose(context.Background(), f, env) {
			if d.Code == "composition-scope" {
				line, col := f.Mapper.LineCol(d.Span.Start)
				got = append(got, itoa(line)+":"+itoa(col)+" "+d.Severity.String()+" "+d.Code+" "+d.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%s: scope findings:\n%s", tc.kind, strings.Join(got, "\n"))
		}
		// Rendered, a cluster-scoped kind never gets the XR's namespace.
		rd, ok := RenderComposition(context.Background(), f.Docs[0], mustObject(t, f), nil, env, false)
		if !ok {
			t.Fatal("not rendered")
		}
		for _, r := range rd.Resources {
			md, _ := r.Object["metadata"].(map[string]any)
			if r.Name == "role" && md["namespace"] != nil {
				t.Errorf("%s: the ClusterRole was rendered in namespace %v", tc.kind, md["namespace"])
			}
			if r.Name == "cm" && tc.kind == "XApp" && md["namespace"] == nil {
				t.Errorf("the namespaced XR's ConfigMap has no namespace")
			}
		}
	}
}

func mustObject(t *testing.T, f *document.File) map[string]any {
	t.Helper()
	obj, err := f.Docs[0].Object()
	if err != nil {
		t.Fatal(err)
	}
	return obj.(map[string]any)
}
