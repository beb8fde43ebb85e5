package analysis

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"os"
	"path/filepath"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"

	"github.com/crd-lsp/crd-lsp/internal/fuzztest"
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
	env := Env{Workspace: Workspace{Schemas: builtinStore(t), CrossplaneMajor: 2}, Options: Options{UnknownKind: severity.Warning}}
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
	env := Env{Workspace: Workspace{Schemas: builtinStore(b)}, Options: Options{UnknownKind: severity.Warning}}
	f := document.Parse("x.yaml", 1, []byte(deployment))
	Diagnose(context.Background(), f, env) // build the validator once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := document.Parse("x.yaml", int32(i), []byte(deployment))
		Diagnose(context.Background(), f, env)
	}
}

// BenchmarkEditingHelp3000Lines measures hover and completion on a
// 3,000-line file (150 Deployments) and reports p50/p99 latencies:
//
//	go test ./internal/analysis -run '^$' -bench EditingHelp
func BenchmarkEditingHelp3000Lines(b *testing.B) {
	env := Env{Workspace: Workspace{Schemas: builtinStore(b)}}
	var sb strings.Builder
	for sb.Len() == 0 || strings.Count(sb.String(), "\n") < 3000 {
		sb.WriteString("---\n" + strings.Replace(deployment, "replicas: three", "replicas: 3\n  paused: ", 1))
	}
	text := sb.String()
	f := document.Parse("big.yaml", 1, []byte(text))
	var hoverAt, completeAt []int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "image: nginx")
		if j < 0 {
			break
		}
		hoverAt = append(hoverAt, i+j+2)
		i += j + 1
	}
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "paused: ")
		if j < 0 {
			break
		}
		completeAt = append(completeAt, i+j+len("paused: "))
		i += j + 1
	}
	Hover(context.Background(), f, hoverAt[0], env) // warm the schema
	var hov, comp []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		off := hoverAt[i%len(hoverAt)]
		t0 := time.Now()
		if Hover(context.Background(), f, off, env) == nil {
			b.Fatal("no hover")
		}
		hov = append(hov, time.Since(t0))
		off = completeAt[i%len(completeAt)]
		t0 = time.Now()
		if len(Complete(context.Background(), f, off, env)) == 0 {
			b.Fatal("no completion")
		}
		comp = append(comp, time.Since(t0))
	}
	b.StopTimer()
	report := func(name string, d []time.Duration) {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(d[(len(d)*99)/100].Microseconds()), name+"-p99-µs")
	}
	report("hover", hov)
	report("complete", comp)
}

// BenchmarkDiagnoseComposition is a keystroke in a large real Composition
// (configuration-aws-eks: 13 composed resources through P&T): every check,
// the render with the smallest XR, and validation of what it creates,
// with warm schemas:
//
//	go test ./internal/analysis -run '^$' -bench DiagnoseComposition
func BenchmarkDiagnoseComposition(b *testing.B) {
	corpus := corpusdir.Dir(b)
	st, err := workspace.Builtins(2)
	if err != nil {
		b.Fatal(err)
	}
	var in []schemas.FileInput
	for _, root := range []string{filepath.Join(corpus, "crds", "providers"), filepath.Join(corpus, "compositions", "upbound-configuration-aws-eks", "v0.16.0", "apis")} {
		files, _, err := workspace.Scan(context.Background(), root, workspace.Options{}, func(_ string, c []byte) bool { return workspace.MayDefineSchemas(c) })
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			in = append(in, schemas.FileInput{Source: workspace.Source(f.Path), Path: f.Path, Content: f.Content})
		}
	}
	env := Env{Workspace: Workspace{Schemas: st.WithFiles(in), CrossplaneMajor: 2}}
	path := filepath.Join(corpus, "compositions", "upbound-configuration-aws-eks", "v0.16.0", "apis", "pat", "composition.yaml")
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f := document.Parse(path, 1, text)
	Diagnose(context.Background(), f, env) // build the validators once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := document.Parse(path, int32(i), text)
		Diagnose(context.Background(), f, env)
	}
}

// FuzzDiagnoseComposition: whatever the text of a Composition, analysis
// (checks, render, validation of what it creates) never fails internally.
// The seeds are the golden Compositions; go test -fuzz FuzzDiagnoseComposition
// explores further.
// compositionEnv is a small store for Composition tests: the built-ins,
// the golden XRD and the upjet RDS Instance CRD, and one example XR.
func compositionEnv(f testing.TB) Env {
	f.Helper()
	st, err := workspace.Builtins(2)
	if err != nil {
		f.Fatal(err)
	}
	var in []schemas.FileInput
	golden := filepath.Join("..", "..", "testdata", "golden")
	for _, p := range []string{
		filepath.Join(golden, "compositions", "definition.yaml"),
		filepath.Join(corpusdir.Dir(f), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "rds.aws.upbound.io_instances.yaml"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		in = append(in, schemas.FileInput{Source: workspace.Source(p), Path: p, Content: b})
	}
	return Env{Workspace: Workspace{Schemas: st.WithFiles(in), CrossplaneMajor: 2, Render: Given(RenderInputs{Examples: func(schemas.GVK) []Example {
		return []Example{{Path: "xr.yaml", Object: map[string]any{"apiVersion": "database.example.org/v1alpha1", "kind": "XPostgreSQLInstance",
			"metadata": map[string]any{"name": "x"}, "spec": map[string]any{"parameters": map[string]any{"storageGB": int64(5), "region": "eu"}}}}}
	}})}}
}

func FuzzDiagnoseComposition(f *testing.F) {
	env := compositionEnv(f)
	golden := filepath.Join("..", "..", "testdata", "golden")
	for _, name := range []string{"pipeline.yaml", "checks.yaml", "complete.yaml"} {
		b, err := os.ReadFile(filepath.Join(golden, "compositions", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// go-templating, rendered in-process.
	if b, err := os.ReadFile(filepath.Join(golden, "gotemplating", "composition.yaml")); err == nil {
		f.Add(b)
	}
	f.Fuzz(fuzzDiagnoseComposition(env))
}

func fuzzDiagnoseComposition(env Env) func(t *testing.T, text []byte) {
	return func(t *testing.T, text []byte) {
		file := document.Parse("c.yaml", 1, text)
		for _, d := range Diagnose(context.Background(), file, env) {
			if d.Code == "internal" {
				t.Fatalf("internal failure: %s", d.Message)
			}
		}
		CodeLenses(file, env)
	}
}

// TestFuzzMutations runs the fuzz target on mutations of its corpus for a
// bounded time (see internal/fuzztest).
func TestFuzzMutations(t *testing.T) {
	fuzztest.Mutate(t, "FuzzDiagnoseComposition", fuzzDiagnoseComposition(compositionEnv(t)))
}

// TestTemplatePlaceholderKey: "{{ name }}" in a plain YAML file parses as
// a mapping used as a key; the finding sits on it and says why.
func TestTemplatePlaceholderKey(t *testing.T) {
	text := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{replicas}}\n"
	f := document.Parse("t.yaml", 1, []byte(text))
	ds := Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: builtinStore(t)}})
	if len(ds) != 1 {
		t.Fatalf("findings: %+v", ds)
	}
	line, col := f.Mapper.LineCol(ds[0].Span.Start)
	if line != 6 || col != 14 || ds[0].Code != "yaml-value" || !strings.Contains(ds[0].Message, "a template placeholder such as {{ name }} reads as one") {
		t.Errorf("%d:%d %s %s", line, col, ds[0].Code, ds[0].Message)
	}
}
