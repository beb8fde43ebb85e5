package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestRenderGolden renders Compositions (our transform coverage case and
// corpus Compositions with their own example XRs) and compares the YAML
// with expectations derived from function-patch-and-transform's documented
// behaviour. go test ./cmd/crd-lsp -run TestRenderGolden -update rewrites
// them; review the diff against P&T's documentation before committing.
// renderCase is a golden render: a Composition, its XR ("": synthesised),
// --schemas folders and other flags.
type renderCase struct {
	name, composition, xr string
	schemas, flags        []string
}

func TestRenderGolden(t *testing.T) {
	c := corpus(t)
	td := filepath.Join("..", "..", "testdata", "render")
	crds := filepath.Join(c, "crds")
	cases := []renderCase{
		{"transforms", filepath.Join(td, "transforms", "composition.yaml"), filepath.Join(td, "transforms", "xr.yaml"), nil, nil},
		{"transforms-synthesised", filepath.Join(td, "transforms", "composition.yaml"), "", nil, nil},
		{"pat-example", filepath.Join(c, "compositions", "crossplane-contrib-function-patch-and-transform", "v0.10.8", "example", "composition.yaml"),
			filepath.Join(c, "compositions", "crossplane-contrib-function-patch-and-transform", "v0.10.8", "example", "xr.yaml"), nil, nil},
		{"aws-network", filepath.Join(c, "compositions", "upbound-configuration-aws-network", "v0.14.0", "apis", "basic", "composition.yaml"),
			filepath.Join(c, "compositions", "upbound-configuration-aws-network", "v0.14.0", "examples", "network-xr.yaml"), []string{crds}, nil},
		{"aws-eks", filepath.Join(c, "compositions", "upbound-configuration-aws-eks", "v0.16.0", "apis", "pat", "composition.yaml"),
			filepath.Join(c, "compositions", "upbound-configuration-aws-eks", "v0.16.0", "examples", "pat", "eks-xr.yaml"), []string{crds}, nil},
		{"platform-ref-network-classic", filepath.Join(c, "compositions", "upbound-platform-ref-aws", "v0.6.0", "package", "cluster", "network", "composition.yaml"),
			filepath.Join(c, "compositions", "upbound-platform-ref-aws", "v0.6.0", "examples", "network-xr.yaml"), []string{crds}, nil},
		// function-go-templating, rendered in-process with nothing
		// configured: a real configuration's template (loops, sprig,
		// the resource-name function) and the function's own examples
		// (include, toYaml into the composite's status, observed
		// connection details).
		{"gotpl-aws-network", filepath.Join(c, "compositions", "upbound-configuration-aws-network", "v0.23.0", "apis", "gotpl", "composition.yaml"),
			filepath.Join(c, "compositions", "upbound-configuration-aws-network", "v0.23.0", "examples", "gotpl", "network-xr.yaml"), []string{crds}, nil},
		{"gotpl-include", filepath.Join(c, "workspaces", "function-go-templating", "example", "functions", "include", "composition.yaml"),
			filepath.Join(c, "workspaces", "function-go-templating", "example", "functions", "include", "xr.yaml"), nil, nil},
		{"gotpl-toyaml", filepath.Join(c, "workspaces", "function-go-templating", "example", "functions", "toYaml", "composition.yaml"),
			filepath.Join(c, "workspaces", "function-go-templating", "example", "functions", "toYaml", "xr.yaml"), nil, nil},
		// P&T → go-templating → P&T: the template reads what P&T
		// desired, and P&T patches what the template composed.
		{"gotpl-pat-multistep", filepath.Join(c, "compositions", "crossplane-contrib-function-patch-and-transform", "v0.10.8", "example", "multistep", "composition.yaml"),
			filepath.Join(c, "compositions", "crossplane-contrib-function-patch-and-transform", "v0.10.8", "example", "multistep", "xr.yaml"), nil, nil},
		{"docs-dynamo", filepath.Join(c, "compositions", "crossplane-docs", "content", "v1.20", "manifests", "getting-started", "aws-part-2", "dynamo-with-bucket.yaml"),
			filepath.Join(c, "compositions", "crossplane-docs", "content", "v1.20", "manifests", "getting-started", "aws-part-2", "nosql-my-nosql-database.yaml"), []string{crds}, nil},
	}
	// The environment function-environment-configs builds: from the
	// workspace's EnvironmentConfigs (nearest the Composition), from
	// --extra-resources instead, under a --context environment, and a
	// Single selector that matches two (the pipeline stops there).
	env, cl := filepath.Join(td, "environment"), filepath.Join(td, "environment-cluster")
	xr := filepath.Join(env, "xr.yaml")
	cases = append(cases,
		renderCase{name: "environment-workspace", composition: filepath.Join(env, "composition.yaml"), xr: xr},
		renderCase{name: "environment-extra-resources", composition: filepath.Join(env, "composition.yaml"), xr: xr,
			flags: []string{"--extra-resources", filepath.Join(cl, "extra-resources.yaml")}},
		renderCase{name: "environment-context", composition: filepath.Join(env, "composition.yaml"), xr: xr,
			flags: []string{"--extra-resources", filepath.Join(cl, "extra-resources.yaml"), "--context", "apiextensions.crossplane.io/environment=" + filepath.Join(cl, "context.yaml")}},
		renderCase{name: "environment-single-fails", composition: filepath.Join(env, "single", "composition.yaml"), xr: xr,
			flags: []string{"--extra-resources", filepath.Join(env, "environmentconfigs.yaml")}},
	)
	// Real repositories with their own example claims and XRs: the
	// composite as Crossplane prepares it (claim sync, XRD defaults, the
	// connection-secret reference from writeConnectionSecretsToNamespace).
	ws := filepath.Join(c, "workspaces")
	for _, w := range []struct{ name, dir, composition, xr string }{
		{"ws-gcp-database-claim", "configuration-gcp-database", "apis/composition.yaml", "examples/mysql-claim.yaml"},
		{"ws-azure-postgres-claim", "configuration-azure-database", "apis/postgresql/composition.yaml", "examples/postgres-claim.yaml"},
		{"ws-gcp-gke-xr", "configuration-gcp-gke", "apis/composition.yaml", "examples/gke-xr.yaml"},
		{"ws-platform-ref-gcp-cluster-claim", "platform-ref-gcp", "apis/cluster/composition.yaml", "examples/cluster-claim.yaml"},
	} {
		dir := filepath.Join(ws, w.dir)
		cases = append(cases, renderCase{name: w.name, composition: filepath.Join(dir, w.composition), xr: filepath.Join(dir, w.xr), schemas: []string{filepath.Join(dir, "schemas")}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"render"}
			if tc.xr != "" {
				args = append(args, "--xr", tc.xr)
			}
			for _, s := range tc.schemas {
				args = append(args, "--schemas", s)
			}
			args = append(args, tc.flags...)
			args = append(args, tc.composition)
			code, out, errOut := runCmd(t, "", args...)
			if code == 2 {
				t.Fatalf("exit 2: %s", errOut)
			}
			got := "# exit " + string(rune('0'+code)) + "\n" + notes(errOut) + out
			want := filepath.Join(td, tc.name+".yaml")
			if lsptest.Update() {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (go test -run TestRenderGolden -update writes it)", err)
			}
			if string(b) != got {
				t.Errorf("rendered output differs from %s:\n--- want\n%s\n--- got\n%s", want, b, got)
			}
		})
	}
}

// notes keeps the positioned notes of stderr as comments, paths made
// relative to the corpus so the expectation does not depend on where the
// corpus lives.
func notes(stderr string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l == "" {
			continue
		}
		if i := strings.Index(l, "compositions/"); i >= 0 {
			l = l[i:]
		} else if i := strings.Index(l, "workspaces/"); i >= 0 {
			l = l[i:]
		} else if i := strings.Index(l, "testdata/"); i >= 0 {
			l = l[i:]
		}
		b.WriteString("# " + l + "\n")
	}
	return b.String()
}

// TestRenderGoTemplatingExamples: every example of function-go-templating
// (v0.12.2) with an example composite renders in-process with nothing
// configured: no failure, and the examples that compose resources compose
// them. (Those reading an environment or a folder outside the workspace
// say so and render nothing from that step.) The context example's
// EnvironmentConfigs are written at v1alpha1, which Crossplane v2 does not
// serve: no function finds them there, and its template fails reading the
// environment, as crossplane render (whose fetcher matches the apiVersion
// the function asks for, v1beta1) fails too.
func TestRenderGoTemplatingExamples(t *testing.T) {
	fails := map[string]string{"context": "index of nil pointer"}
	dir := filepath.Join(corpus(t), "workspaces", "function-go-templating", "example")
	composes := map[string]int{"inline": 5, "custom-delims": 5, "functions/include": 2, "functions/getComposedConnectionDetails": 4,
		"functions/getComposedResource": 2, "functions/getCompositeResource": 1, "recursive": 1}
	rendered := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "composition") {
			return err
		}
		xr := filepath.Join(filepath.Dir(p), "xr.yaml")
		if _, err := os.Stat(xr); err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		code, out, errOut := runCmd(t, "", "render", "--xr", xr, p)
		if want, ok := fails[rel]; ok {
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%s: exit %d, want 1 with %q\n%s", rel, code, want, errOut)
			}
			rendered++
			return nil
		}
		if code != 0 || strings.Contains(errOut, ": error: ") {
			t.Errorf("%s: exit %d\n%s", rel, code, errOut)
		}
		kinds := strings.Count(out, "\nkind: ") - 1 // the composite
		if want, ok := composes[rel]; ok && kinds < want {
			t.Errorf("%s: %d composed resources, want at least %d\n%s", rel, kinds, want, out)
		}
		rendered++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rendered < 15 {
		t.Errorf("only %d examples rendered", rendered)
	}
}
