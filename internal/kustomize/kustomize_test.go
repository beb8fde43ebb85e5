package kustomize

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// tree writes files (slash paths → text) under a new folder.
var tree = testfixtures.Tree

const baseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
      - name: sidecar
        image: busybox
`

// run builds dir/rel's kustomization, failing on problems.
func run(t *testing.T, dir, rel string) *Build {
	t.Helper()
	b := Run(context.Background(), &Source{}, filepath.Join(dir, filepath.FromSlash(rel)), Limits{})
	if b == nil {
		t.Fatal("no build")
	}
	for _, p := range b.Problems {
		t.Errorf("problem: %s %v %s", p.File, p.Span, p.Message)
	}
	if !b.Built() {
		t.Fatalf("%s not built", rel)
	}
	return b
}

// where is what Locate says of path p of the build's only object of
// kind, as "file:line: text at the span".
func where(t *testing.T, b *Build, kind, p string, onKey, missing bool) string {
	t.Helper()
	for _, r := range b.Resources {
		if r.Kind != kind {
			continue
		}
		built := document.Parse("built.yaml", 0, r.Text).Docs[0]
		path, err := fieldpath.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		loc := b.Locate(r, built, path, onKey, missing, document.Span{})
		text, ok := b.Reads[loc.File]
		if !ok {
			t.Fatalf("located in %s, which the build did not read", loc.File)
		}
		f := document.Parse(loc.File, 0, text)
		line, _ := f.Mapper.LineCol(loc.Span.Start)
		rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(b.Root)), loc.File)
		if strings.HasPrefix(rel, "..") {
			rel, _ = filepath.Rel(filepath.Dir(filepath.Dir(filepath.Dir(b.Root))), loc.File)
		}
		s := filepath.ToSlash(rel) + ":" + strconv.Itoa(line) + ": " + string(text[loc.Span.Start:loc.Span.End])
		if loc.Exact {
			s += " (exact)"
		}
		return s
	}
	t.Fatalf("no %s built", kind)
	return ""
}

// TestLocate: each field of what an overlay builds is found where it was
// written: a strategic-merge patch's value, the base's value, the base's
// parent of a missing field (a patch's when only the patch writes the
// parent), a list item matched by its name whatever its index, and the
// kustomization setting of a transformer that changed it.
func TestLocate(t *testing.T) {
	dir := tree(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    baseDeployment,
		"prod/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: selector.yaml\n",
		"prod/selector.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: three
  strategy: {}
  template:
    spec:
      containers:
      - name: sidecar
        image: busybox:1.37
`,
		"dev/kustomization.yaml": "resources:\n- ../base\nnamePrefix: dev-\ncommonLabels:\n  team: a\n",
	})
	prod := run(t, dir, "prod/kustomization.yaml")
	if len(prod.Resources) != 1 {
		t.Fatalf("prod built %d objects", len(prod.Resources))
	}
	r := prod.Resources[0]
	if r.Origin != filepath.Join(dir, "base", "deployment.yaml") || r.Name != "web" || strings.Contains(string(r.Text), "config.kubernetes.io") {
		t.Errorf("origin %q, name %q, text:\n%s", r.Origin, r.Name, r.Text)
	}
	for _, c := range []struct {
		path           string
		onKey, missing bool
		want           string
	}{
		{"spec.replicas", false, false, "prod/selector.yaml:6: three (exact)"},
		{"spec.replicas", true, false, "prod/selector.yaml:6: replicas (exact)"},
		// The merge put the patched sidecar first: items are matched by name.
		{"spec.template.spec.containers[1].image", false, false, "base/deployment.yaml:13: nginx:1.27 (exact)"},
		{"spec.template.spec.containers[0].image", false, false, "prod/selector.yaml:12: busybox:1.37 (exact)"},
		{"spec.template.spec.containers[0].name", true, false, "prod/selector.yaml:11: name (exact)"},
		{"spec", true, true, "base/deployment.yaml:5: spec (exact)"},
		{"spec.strategy", true, true, "prod/selector.yaml:7: strategy (exact)"},
		{"spec.template.spec", true, true, "base/deployment.yaml:10: spec (exact)"},
	} {
		if got := where(t, prod, "Deployment", c.path, c.onKey, c.missing); got != c.want {
			t.Errorf("prod %s (key %v, missing %v): %s, want %s", c.path, c.onKey, c.missing, got, c.want)
		}
	}
	dev := run(t, dir, "dev/kustomization.yaml")
	for _, c := range []struct{ path, want string }{
		{"metadata.name", "dev/kustomization.yaml:3: namePrefix"},
		{"metadata.labels.team", "dev/kustomization.yaml:4: commonLabels"},
		{"spec.selector.matchLabels", "dev/kustomization.yaml:4: commonLabels"},
		{"spec.template.spec.containers[0].image", "base/deployment.yaml:13: nginx:1.27 (exact)"},
	} {
		if got := where(t, dev, "Deployment", c.path, false, false); got != c.want {
			t.Errorf("dev %s: %s, want %s", c.path, got, c.want)
		}
	}
}

// TestLocatePatchKinds: JSON 6902 operations (a file, an inline patch in
// the kustomization, an append with "-"), a generator's literal, and
// nested overlays where the outermost patch wins.
func TestLocatePatchKinds(t *testing.T) {
	dir := tree(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    baseDeployment,
		"staging/kustomization.yaml": `resources:
- ../base
patchesJson6902:
- target: {group: apps, version: v1, kind: Deployment, name: web}
  path: ops.yaml
`,
		"staging/ops.yaml": `- op: add
  path: /spec/replicas
  value: 2
- op: add
  path: /spec/template/spec/containers/-
  value:
    name: logger
    image: fluentbit
- op: replace
  path: /spec/template/spec/containers/0/image
  value: nginx:1.28
`,
		"prod/kustomization.yaml": `resources:
- ../staging
patches:
- target:
    kind: Deployment
  patch: |-
    - op: replace
      path: /spec/replicas
      value: 5
configMapGenerator:
- name: settings
  literals:
  - LOG_LEVEL=debug
  - bad key=1
`,
	})
	prod := run(t, dir, "prod/kustomization.yaml")
	for _, c := range []struct{ kind, path, want string }{
		{"Deployment", "spec.replicas", "prod/kustomization.yaml:9: 5 (exact)"},
		{"Deployment", "spec.template.spec.containers[0].image", "staging/ops.yaml:11: nginx:1.28 (exact)"},
		{"Deployment", "spec.template.spec.containers[2].image", "staging/ops.yaml:8: fluentbit (exact)"},
		{"Deployment", "spec.template.spec.containers[1].image", "base/deployment.yaml:15: busybox (exact)"},
		{"ConfigMap", "data.LOG_LEVEL", "prod/kustomization.yaml:13: LOG_LEVEL=debug"},
		{"ConfigMap", "metadata.name", "prod/kustomization.yaml:11: settings"},
	} {
		if got := where(t, prod, c.kind, c.path, false, false); got != c.want {
			t.Errorf("prod %s %s: %s, want %s", c.kind, c.path, got, c.want)
		}
	}
	staging := run(t, dir, "staging/kustomization.yaml")
	if got, want := where(t, staging, "Deployment", "spec.replicas", false, false), "staging/ops.yaml:3: 2 (exact)"; got != want {
		t.Errorf("staging spec.replicas: %s, want %s", got, want)
	}
}

// TestNotBuilt: what kustomize would fetch or run is not built, and says
// so where it is named (and on the root's entry that leads there); a
// name that is nowhere, a cycle or a Component under resources is where
// kustomize fails; nothing is built then.
func TestNotBuilt(t *testing.T) {
	dir := tree(t, map[string]string{
		"base/kustomization.yaml":      "resources:\n- deployment.yaml\n- missing.yaml\n",
		"base/deployment.yaml":         baseDeployment,
		"remote/kustomization.yaml":    "resources:\n- github.com/org/repo//deploy?ref=v1\n- https://example.com/x.yaml\n",
		"helm/kustomization.yaml":      "helmCharts:\n- name: redis\n  repo: https://charts.example.com\n",
		"plugin/kustomization.yaml":    "resources: []\ntransformers:\n- fn.yaml\n",
		"plugin/fn.yaml":               "apiVersion: example.com/v1\nkind: SetTeam\nmetadata:\n  name: t\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: ./run.sh}\n",
		"a/kustomization.yaml":         "resources:\n- ../b\n",
		"b/kustomization.yaml":         "resources:\n- ../a\n",
		"overlay/kustomization.yaml":   "resources:\n- ../base\n- ../comp\n",
		"comp/kustomization.yaml":      "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
		"patchless/kustomization.yaml": "resources:\n- ../base/deployment.yaml\npatches:\n- path: nowhere.yaml\n",
	})
	type found struct{ file, text, code string }
	problems := func(rel string) []found {
		root := filepath.Join(dir, filepath.FromSlash(rel))
		b := Run(context.Background(), &Source{}, root, Limits{})
		if b.Built() {
			t.Errorf("%s built", rel)
		}
		var out []found
		for _, p := range b.Problems {
			text, _ := os.ReadFile(p.File)
			r, _ := filepath.Rel(dir, p.File)
			out = append(out, found{filepath.ToSlash(r), string(text[p.Span.Start:p.Span.End]), p.Code + ":" + p.Severity.String() + ": " + p.Message})
		}
		return out
	}
	check := func(rel string, want ...found) {
		t.Helper()
		got := problems(rel)
		if len(got) != len(want) {
			t.Errorf("%s: %d problems, want %d:\n%q", rel, len(got), len(want), got)
			return
		}
		for i := range want {
			if got[i].file != want[i].file || got[i].text != want[i].text || !strings.HasPrefix(got[i].code, want[i].code) {
				t.Errorf("%s: problem %d = %q, want %q", rel, i, got[i], want[i])
			}
		}
	}
	check("remote/kustomization.yaml",
		found{"remote/kustomization.yaml", "github.com/org/repo//deploy?ref=v1", "kustomize-not-built:info: \"github.com/org/repo//deploy?ref=v1\" is a remote base"},
		found{"remote/kustomization.yaml", "https://example.com/x.yaml", "kustomize-not-built:info:"})
	check("helm/kustomization.yaml", found{"helm/kustomization.yaml", "helmCharts", "kustomize-not-built:info: kustomize inflates Helm charts by running helm"})
	check("plugin/kustomization.yaml", found{"plugin/kustomization.yaml", "fn.yaml", "kustomize-not-built:info: example.com/v1 SetTeam is a plugin"})
	check("a/kustomization.yaml",
		found{"b/kustomization.yaml", "../a", "kustomize-build:error: kustomize build fails: the kustomizations form a cycle"},
		found{"a/kustomization.yaml", "../b", "kustomize-build:error: not built: ../b/kustomization.yaml: kustomize build fails: the kustomizations form a cycle"})
	check("overlay/kustomization.yaml",
		found{"base/kustomization.yaml", "missing.yaml", "kustomize-build:error: kustomize build fails: \"missing.yaml\" is not a file or a folder"},
		found{"overlay/kustomization.yaml", "../base", "kustomize-build:error: not built: ../base/kustomization.yaml:"},
		found{"overlay/kustomization.yaml", "../comp", "kustomize-build:error: kustomize build fails: \"../comp\" is a Component: list it under components"})
	check("patchless/kustomization.yaml", found{"patchless/kustomization.yaml", "nowhere.yaml", "kustomize-build:error: kustomize build fails: \"nowhere.yaml\" is not a file"})
}

// TestLimits: a build past a limit is not validated and says which; a
// cancelled build is abandoned; kustomize is given a file system that
// refuses every write.
func TestLimits(t *testing.T) {
	dir := tree(t, map[string]string{
		"app/kustomization.yaml": "resources:\n- deployment.yaml\n- service.yaml\nconfigMapGenerator:\n- name: c\n  literals: [A=1, B=2]\n",
		"app/deployment.yaml":    baseDeployment,
		"app/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
	})
	root := filepath.Join(dir, "app", "kustomization.yaml")
	for _, c := range []struct {
		lim  Limits
		want string
	}{
		{Limits{MaxObjects: 1}, "not validated: the build makes 3 objects, more than the 1 crd-lsp validates"},
		{Limits{MaxOutput: 100}, "not validated: the build makes more than 100 bytes of objects"},
		{Limits{MaxRead: 100}, "not built: the build reads more than 100 bytes"},
		{Limits{Timeout: 1}, ""},
		{Limits{MaxGenerated: 1}, ""},
	} {
		b := Run(context.Background(), &Source{}, root, c.lim)
		if b.Built() || len(b.Problems) != 1 || !strings.Contains(b.Problems[0].Message, c.want) || b.Problems[0].File != root {
			t.Errorf("limits %+v: built %v, problems %+v", c.lim, b.Built(), b.Problems)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b := Run(ctx, &Source{}, root, Limits{}); b != nil {
		t.Errorf("a cancelled build gave %+v", b)
	}
	fs := &roFS{ctx: context.Background(), src: &Source{}, budget: 1 << 20, reads: map[string][]byte{}}
	target := filepath.Join(dir, "app", "written.yaml")
	if err := fs.WriteFile(target, []byte("x")); err == nil {
		t.Error("WriteFile succeeded")
	}
	if _, err := fs.Create(target); err == nil {
		t.Error("Create succeeded")
	}
	if err := fs.MkdirAll(filepath.Join(dir, "app", "new")); err == nil {
		t.Error("MkdirAll succeeded")
	}
	if err := fs.RemoveAll(filepath.Join(dir, "app")); err == nil {
		t.Error("RemoveAll succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "deployment.yaml")); err != nil {
		t.Error(err)
	}
	// Open buffers (Texts) are read in place of the disk, and nothing
	// outside Within is read.
	src := &Source{Texts: map[string][]byte{filepath.Join(dir, "app", "service.yaml"): []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: edited\n")}}
	b := Run(context.Background(), src, root, Limits{})
	if !b.Built() || !slices.ContainsFunc(b.Resources, func(r *Resource) bool { return r.Kind == "Service" && r.Name == "edited" }) {
		t.Errorf("with an open buffer: %+v", b.Problems)
	}
	src = &Source{Within: []string{filepath.Join(dir, "elsewhere")}}
	if b := Run(context.Background(), src, root, Limits{}); b.Built() || len(b.Problems) == 0 || !strings.Contains(b.Problems[0].Message, "outside the workspace") {
		t.Errorf("outside Within: built %v, %+v", b.Built(), b.Problems)
	}
}
