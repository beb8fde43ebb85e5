package overlays

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// tree writes files (slash paths → text) under a new folder.
var tree = testfixtures.Tree

// gitops is a base that overlays complete: the Deployment has no
// selector; prod's strategic-merge patch adds it (and misspells a
// field), staging's JSON 6902 patch writes a string into replicas and
// prod builds on staging; dev leaves the selector unset; prod generates a
// ConfigMap the Deployment reads.
var gitops = map[string]string{
	"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
	"base/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  revisionHistoryLimit: ten
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef:
            name: settings
`,
	"overlays/dev/kustomization.yaml":     "resources:\n- ../../base\nnamePrefix: dev-\n",
	"overlays/staging/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: replicas.yaml\n  target: {kind: Deployment, name: web}\n",
	"overlays/staging/replicas.yaml":      "- op: add\n  path: /spec/replicas\n  value: three\n",
	"overlays/prod/kustomization.yaml":    "resources:\n- ../staging\npatches:\n- path: selector.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - LOG_LEVEL=debug\n  options:\n    labels:\n      bad label: x\n",
	"overlays/prod/selector.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
      - name: web
        imagePullPolicie: Always
`,
}

// diagnose is every file's findings as check and the editor give them:
// the file's own (Diagnose), merged with the builds'; as "file:line:
// message [code]" lines.
func diagnose(t *testing.T, dir string, s Settings) []string {
	t.Helper()
	w, files, _, err := loader.Load(context.Background(), loader.Config{Roots: []string{dir}, KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string][]byte{}
	for _, f := range files {
		texts[f.Path] = f.Content
	}
	res, _ := NewBuilder().Run(context.Background(), Request{World: w, Texts: texts, Settings: s, Env: w.Env, EnvKey: w,
		Name: func(k string) string { r, _ := filepath.Rel(dir, filepath.Dir(k)); return filepath.ToSlash(r) }}, "")
	var out []string
	for _, f := range files {
		doc := document.Parse(f.Path, 0, f.Content)
		for _, d := range res.Merge(f.Path, analysis.Diagnose(context.Background(), doc, w.Env(f.Path))) {
			line, _ := doc.Mapper.LineCol(d.Span.Start)
			rel, _ := filepath.Rel(dir, f.Path)
			out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(line)+": "+d.Message+" ["+d.Code+"]")
		}
	}
	sort.Strings(out)
	return out
}

// TestOverlays: issue 34's example and the ones around it. The base is
// not an error for what prod sets; dev, which leaves the selector unset,
// is reported on the base line that lacks it, for dev only (staging is
// prod's base, built within prod); the base's own wrong value is said
// once, on the base; the patches' own mistakes are on the patches'
// lines, once (the strategic-merge patch's is its own finding already),
// a generator's on its literal; with builds off, the base is judged
// alone as before.
func TestOverlays(t *testing.T) {
	dir := tree(t, gitops)
	got := diagnose(t, dir, Settings{})
	want := []string{
		`base/deployment.yaml:5: missing required field "selector" (as overlays/dev builds it) [required]`,
		`base/deployment.yaml:6: must be of type integer: "string" [type]`,
		`overlays/prod/kustomization.yaml:11: Invalid value: "bad label": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') [metadata]`,
		`overlays/prod/selector.yaml:13: unknown field "imagePullPolicie"; did you mean "imagePullPolicy"? [unknown-field]`,
		`overlays/staging/replicas.yaml:3: must be of type integer: "string" (as overlays/prod builds it) [type]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	off := diagnose(t, dir, Settings{Off: true})
	if len(off) == 0 || !strings.HasPrefix(off[0], `base/deployment.yaml:5: missing required field "selector" [required]`) {
		t.Errorf("with builds off:\n%s", strings.Join(off, "\n"))
	}
}

// TestBuilderReuse: the editor's Builder builds only the kustomizations
// that read the file asked about, keeps builds and validations while
// nothing they read changes, and builds again from an open buffer's text
// when it does.
func TestBuilderReuse(t *testing.T) {
	dir := tree(t, gitops)
	w, _, _, err := loader.Load(context.Background(), loader.Config{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	j := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	b := NewBuilder()
	req := Request{World: w, Env: w.Env, EnvKey: w, Name: func(k string) string { r, _ := filepath.Rel(dir, filepath.Dir(k)); return filepath.ToSlash(r) }}
	patch := j("overlays/prod/selector.yaml")
	res, rebuilt := b.Run(context.Background(), req, patch)
	if len(rebuilt) != 1 || rebuilt[0] != j("overlays/prod/kustomization.yaml") {
		t.Fatalf("the patch's builds: %q", rebuilt)
	}
	if got := res.Findings(patch, nil); len(got) != 1 || got[0].Code != "unknown-field" {
		t.Errorf("the patch's findings: %+v", got)
	}
	if _, rebuilt := b.Run(context.Background(), req, patch); len(rebuilt) != 0 {
		t.Errorf("nothing changed, yet built again: %q", rebuilt)
	}
	base := j("base/deployment.yaml")
	if _, rebuilt := b.Run(context.Background(), req, base); len(rebuilt) != 1 || rebuilt[0] != j("overlays/dev/kustomization.yaml") {
		t.Errorf("the base's builds not yet made: %q", rebuilt)
	}
	// The patch, edited in the editor: its typo fixed, replicas a string.
	req.Texts = map[string][]byte{patch: []byte(strings.Replace(strings.Replace(gitops["overlays/prod/selector.yaml"], "imagePullPolicie", "imagePullPolicy", 1),
		"spec:\n", "spec:\n  minReadySeconds: soon\n", 1))}
	res, rebuilt = b.Run(context.Background(), req, patch)
	if len(rebuilt) != 1 {
		t.Errorf("after the edit: %q", rebuilt)
	}
	got := res.Findings(patch, nil)
	if len(got) != 1 || got[0].Code != "type" || !strings.HasSuffix(got[0].Message, "(as overlays/prod builds it)") {
		t.Errorf("after the edit, the patch's findings: %+v", got)
	}
	if line, _ := document.NewMapper(req.Texts[patch]).LineCol(got[0].Span.Start); line != 6 {
		t.Errorf("the edit's finding on line %d, want 6", line)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req.Texts[patch] = []byte(gitops["overlays/prod/selector.yaml"])
	if res, _ := b.Run(ctx, req, patch); res != nil {
		t.Error("a cancelled run gave a result")
	}
}

// TestNotBuiltKeepsFiles: a kustomization that is not built (a remote
// base) or fails (a missing patch) says so on its entry, and the files
// it would have built are judged alone, as before.
func TestNotBuiltKeepsFiles(t *testing.T) {
	dir := tree(t, map[string]string{
		"base/kustomization.yaml":   "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template: {}\n",
		"remote/kustomization.yaml": "resources:\n- ../base\n- github.com/org/repo//deploy?ref=v1\n",
		"broken/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: gone.yaml\n",
	})
	got := diagnose(t, dir, Settings{})
	want := []string{
		`base/deployment.yaml:5: missing required field "selector" [required]`,
		// kube-apiserver's own validation of the Deployment judged alone.
		"base/deployment.yaml:6: spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels` [k8s-validation]",
		`base/deployment.yaml:6: spec.template.spec: missing required field "containers" [required]`,
		`broken/kustomization.yaml:4: kustomize build fails: "gone.yaml" is not a file [kustomize-build]`,
		`remote/kustomization.yaml:3: "github.com/org/repo//deploy?ref=v1" is a remote base: kustomize would fetch it (git or HTTP) and crd-lsp fetches nothing unless asked (check --kustomize-remote, crdLsp.kustomize.allowRemote), so this kustomization is not built and its files are checked as written [kustomize-not-built]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRemoteOverlay: asked to (AllowRemote), an overlay whose base is a
// remote git repository (a real one, fetched over file://) is built: the
// overlay's patch's mistakes are on the patch's lines (the selector no
// one sets on the patch's spec), and what the remote base wrote (a wrong
// type) is said on the overlay's entry naming the URL, with the remote
// base and its file named. Not asked, the overlay is not built and says how to ask.
func TestRemoteOverlay(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	repo := testfixtures.GitRepo(t, map[string]string{
		"deploy/base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"deploy/base/deployment.yaml":    gitops["base/deployment.yaml"],
	})
	url := "file://" + filepath.ToSlash(repo) + "//deploy/base?ref=HEAD"
	dir := tree(t, map[string]string{
		"overlay/kustomization.yaml": "resources:\n- " + url + "\npatches:\n- path: patch.yaml\n",
		"overlay/patch.yaml":         "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: three\n",
	})
	got := diagnose(t, dir, Settings{AllowRemote: true})
	want := []string{
		`overlay/kustomization.yaml:2: Deployment "web" of the remote base ` + url + ` (deploy/base/deployment.yaml): spec.revisionHistoryLimit: must be of type integer: "string" [type]`,
		// The overlay's file that writes spec lacks it.
		`overlay/patch.yaml:5: missing required field "selector" (as overlay builds it) [required]`,
		`overlay/patch.yaml:6: must be of type integer: "string" [type]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	off := diagnose(t, dir, Settings{})
	if len(off) != 2 || !strings.HasPrefix(off[0], `overlay/kustomization.yaml:2: "`+url+`" is a remote base`) || !strings.Contains(off[0], "--kustomize-remote") {
		t.Errorf("not asked:\n%s", strings.Join(off, "\n"))
	}
}
