package loader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

func ecYAML(name string) string {
	return "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata:\n  name: " + name + "\ndata: {from: " + name + "}\n"
}

func names(objs []map[string]any) string {
	var out []string
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		out = append(out, md["name"].(string))
	}
	return strings.Join(out, ",")
}

// TestWorldEnvironmentConfigs: a Composition sees the EnvironmentConfigs
// under the deepest folder above it that holds any (each e2e test folder
// its own), nearest first; an edit to one changes SchemaGen, so open
// Compositions are diagnosed again.
func TestWorldEnvironmentConfigs(t *testing.T) {
	files := map[string]string{
		"tests/a/setup/composition.yaml": "kind: Composition\n",
		"tests/a/setup/configs.yaml":     ecYAML("one") + "---\n" + ecYAML("two"),
		"tests/b/setup/configs.yaml":     ecYAML("three"),
		"apis/x/composition.yaml":        "kind: Composition\n",
		"envs/prod.yaml":                 ecYAML("prod"),
		"apis/x/local/near.yaml":         ecYAML("near"),
	}
	dir := testfixtures.Tree(t, files)
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(w.EnvironmentConfigs(filepath.Join(dir, "tests/a/setup/composition.yaml"))); got != "one,two" {
		t.Errorf("tests/a sees %s, want its own one,two", got)
	}
	// apis/x holds one below it: the deepest folder with any is apis/x.
	if got := names(w.EnvironmentConfigs(filepath.Join(dir, "apis/x/composition.yaml"))); got != "near" {
		t.Errorf("apis/x sees %s, want near", got)
	}
	w2 := w.WithFile(filepath.Join(dir, "apis/x/local/near.yaml"), nil)
	got := names(w2.EnvironmentConfigs(filepath.Join(dir, "apis/x/composition.yaml")))
	if got != "prod,one,two,three" {
		t.Errorf("without near, apis/x sees %s, want the whole workspace's", got)
	}
	if w2.SchemaGen() == w.SchemaGen() {
		t.Error("removing an EnvironmentConfig left SchemaGen as it was")
	}
	env := w.Env(filepath.Join(dir, "tests/a/setup/composition.yaml"))
	if env.Workspace.Rendering().Cluster.From != "in the workspace" || names(env.Workspace.Rendering().Cluster.EnvironmentConfigs) != "one,two" {
		t.Errorf("Env.Cluster: %+v", env.Workspace.Rendering().Cluster)
	}
}

// TestWorldEnvironmentConfigsUndecodable: a file that names
// EnvironmentConfigs in its headers but holds none that decode does not
// make its folder the one whose EnvironmentConfigs a Composition sees
// (the World decodes them only when asked, so the headers alone must
// not count).
func TestWorldEnvironmentConfigsUndecodable(t *testing.T) {
	files := map[string]string{
		"apis/y/composition.yaml":  "kind: Composition\n",
		"apis/y/local/broken.yaml": "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: [\n",
		"envs/prod.yaml":           ecYAML("prod"),
	}
	dir := testfixtures.Tree(t, files)
	w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(w.EnvironmentConfigs(filepath.Join(dir, "apis/y/composition.yaml"))); got != "prod" {
		t.Errorf("apis/y sees %q, want the workspace's prod", got)
	}
}

// TestReadCluster: --extra-resources sorts EnvironmentConfigs from other
// resources and makes them complete; --context reads a value per key;
// what cannot be read says where.
func TestReadCluster(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	extra := write("extra.yaml", ecYAML("a")+"---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n")
	ctx := write("ctx.json", `{"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment", "region": "eu"}`)
	c, err := ReadCluster([]string{extra}, []string{environmentconfigs.ContextKey + "=" + ctx})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Complete || names(c.EnvironmentConfigs) != "a" || len(c.Resources) != 1 || c.From != "in --extra-resources" {
		t.Errorf("cluster %+v", c)
	}
	if env, _ := c.Context[environmentconfigs.ContextKey].(map[string]any); env["region"] != "eu" {
		t.Errorf("context %v", c.Context)
	}
	bad := write("bad.yaml", ecYAML("a")+"---\nkind: [\n")
	for _, tc := range []struct {
		extra, contexts []string
		want            string
	}{
		{[]string{bad}, nil, "bad.yaml:7:1: did not find expected node content"},
		{nil, []string{"nokey"}, `want KEY=FILE`},
		{nil, []string{"k=" + filepath.Join(dir, "missing.json")}, "missing.json"},
		{nil, []string{"k=" + write("ctxbad.yaml", "kind: [\n")}, "--context k"},
	} {
		if _, err := ReadCluster(tc.extra, tc.contexts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadCluster(%v, %v): %v, want an error with %q", tc.extra, tc.contexts, err, tc.want)
		}
	}
}

// TestPackageEnvironmentConfigs: a package's EnvironmentConfigs are read
// from its package.yaml; packages without any are not parsed.
func TestPackageEnvironmentConfigs(t *testing.T) {
	pkg := schemas.FileInput{Path: "/cache/pkg/package.yaml", Content: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: c}\n---\n" + ecYAML("from-package"))}
	other := schemas.FileInput{Path: "/cache/other/package.yaml", Content: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: p}\n")}
	if got := names(packageEnvironmentConfigs([]schemas.FileInput{other, pkg})); got != "from-package" {
		t.Errorf("package EnvironmentConfigs: %q", got)
	}
}
