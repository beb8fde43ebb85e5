package analysis

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin"
)

func builtinStore(t testing.TB) *schemas.Store {
	t.Helper()
	k8s, err := builtin.Kubernetes()
	if err != nil {
		t.Fatal(err)
	}
	var in []schemas.FileInput
	for _, f := range k8s.Files {
		in = append(in, schemas.FileInput{Source: schemas.Source{Kind: schemas.SourceBuiltin, Name: "kubernetes"}, Path: f.Name, Content: f.Data})
	}
	return schemas.NewStore().WithFiles(in)
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
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

func TestDiagnosePositions(t *testing.T) {
	env := Env{Schemas: builtinStore(t), UnknownKind: SeverityWarning, CrossplaneMajor: 2}
	text := deployment + "---\napiVersion: example.org/v1\nkind: Nope\n---\nnot: [closed\n---\njust: data\n"
	f := document.Parse("x.yaml", 1, []byte(text))
	diags := Diagnose(context.Background(), f, env)
	var got []string
	for _, d := range diags {
		line, col := f.Mapper.LineCol(d.Span.Start)
		got = append(got, strings.Join([]string{itoa(line), itoa(col), d.Severity.String(), d.Code}, ":"))
	}
	want := []string{"6:13:error:type", "18:7:warning:unknown-kind", "20:1:error:yaml-syntax"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diagnostics = %v, want %v (%v)", got, want, diags)
	}
	// A cancelled context yields nothing rather than a partial set.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := Diagnose(ctx, f, env); d != nil {
		t.Errorf("cancelled Diagnose returned %v", d)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// BenchmarkDiagnoseDeployment is the analysis part of a keystroke: parse
// plus validation of one Deployment against the warm built-in schema.
func BenchmarkDiagnoseDeployment(b *testing.B) {
	env := Env{Schemas: builtinStore(b), UnknownKind: SeverityWarning}
	f := document.Parse("x.yaml", 1, []byte(deployment))
	Diagnose(context.Background(), f, env) // build the validator once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := document.Parse("x.yaml", int32(i), []byte(deployment))
		Diagnose(context.Background(), f, env)
	}
}
