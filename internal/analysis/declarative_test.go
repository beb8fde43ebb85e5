package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// TestDeclarativeRules: Kubernetes' declarative rules of built-in kinds
// (internal/k8srules) come out of Diagnose on the field (a missing required
// field on its parent's key, with the data its quick fix needs), with the
// field's path; where the schema already says it of the field, only the
// schema's finding remains.
func TestDeclarativeRules(t *testing.T) {
	env := Env{Workspace: Workspace{Schemas: builtinStore(t), CrossplaneMajor: 2}, Options: Options{UnknownKind: severity.Warning}}
	text := `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e, namespace: d}
addressType: ""
endpoints: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: d}
rules:
- apiGroups: [""]
  resources: [pods]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: -2
  selector: {app: x}
`
	f := document.Parse("x.yaml", 1, []byte(text))
	var got []string
	for _, d := range Diagnose(context.Background(), f, env) {
		line, col := f.Mapper.LineCol(d.Span.Start)
		got = append(got, fmt.Sprintf("%d:%d %s %s missing=%q own=%v", line, col, d.Path, d.Code, d.Missing, strings.Contains(d.Message, "Kubernetes' own validation")))
	}
	want := []string{
		`4:14 addressType required missing="" own=true`,          // "" counts as unset
		`11:3 rules[0].verbs required missing="verbs" own=false`, // the schema's own required finding
		`18:13 spec.replicas k8s-validation missing="" own=true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
