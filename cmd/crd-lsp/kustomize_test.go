package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestCheckKustomize is issue 34's example as README shows it: a base
// whose Deployment has no selector, overlays that complete it or not.
// The base is not an error for what staging sets; dev, which leaves it
// unset, is reported on the base line, for dev; the patches' mistakes are
// on their lines (a strategic-merge patch's misspelt field, a JSON 6902
// patch's value); prod, built on staging, names itself; a generator's
// label is wrong on its line; with --kustomize=false, files as written.
func TestCheckKustomize(t *testing.T) {
	ex := filepath.Join("..", "..", "examples", "kustomize")
	p := func(rel string) string { return filepath.Join(ex, filepath.FromSlash(rel)) }
	code, out, errOut := runCmd(t, "", "check", ex)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	want := []string{
		p("base/deployment.yaml") + `:5:1: error: missing required field "selector" (as overlays/dev builds it) [required] at spec.selector`,
		// kube-apiserver says both of a Deployment without a selector.
		p("base/deployment.yaml") + `:8:7: error: Invalid value: {app: web}: ` + "`selector` does not match template `labels`" + ` (as overlays/dev builds it) [k8s-validation]`,
		p("overlays/prod/kustomization.yaml") + `:11:13: error: Invalid value: "frontend web": a valid label must be an empty string or consist of alphanumeric characters`,
		p("overlays/staging/replicas.yaml") + `:3:10: error: must be of type integer: "string" (as overlays/prod builds it) [type] at spec.replicas`,
		p("overlays/staging/selector.yaml") + `:13:9: error: unknown field "imagePullPolicie"; did you mean "imagePullPolicy"? [unknown-field]`,
		"8 files checked: 5 errors, 0 warnings, 0 info",
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n%s\nwant:\n%s", i+1, lines[i], w)
		}
	}

	// As written: the base alone lacks its selector (kube-apiserver says
	// so twice), the JSON 6902 patch is not an object, the generator
	// makes nothing.
	code, out, _ = runCmd(t, "", "check", "--kustomize=false", ex)
	if code != 1 || !strings.Contains(out, p("base/deployment.yaml")+`:5:1: error: missing required field "selector" [required]`) ||
		strings.Contains(out, "replicas.yaml") || !strings.Contains(out, "8 files checked: 3 errors") {
		t.Errorf("--kustomize=false: exit %d\n%s", code, out)
	}

	// Checking dev alone: the base is not among the files printed, so
	// its finding is shown on dev's entry that brings the base in.
	code, out, _ = runCmd(t, "", "check", p("overlays/dev"))
	if code != 1 || !strings.Contains(out, p("overlays/dev/kustomization.yaml")+`:3:3: error: Deployment "dev-web", ../../base/deployment.yaml:5:1: missing required field "selector" [required]`) {
		t.Errorf("check overlays/dev: exit %d\n%s", code, out)
	}

	// --kustomization builds the base too (alone, it lacks a selector).
	_, out, _ = runCmd(t, "", "check", "--kustomization", p("base"), ex)
	if !strings.Contains(out, p("base/deployment.yaml")+`:5:1: error: missing required field "selector" (as base and overlays/dev build it) [required]`) {
		t.Errorf("--kustomization base:\n%s", out)
	}
	if code, _, errOut := runCmd(t, "", "check", "--kustomization", p("overlays/staging/selector.yaml"), ex); code != 2 || !strings.Contains(errOut, "not a kustomization") {
		t.Errorf("--kustomization naming a patch: exit %d, %s", code, errOut)
	}
}

// TestCheckKustomizeHostile: what kustomize cannot build, what crd-lsp
// will not run, and builds past a limit are positioned findings, never a
// crash or a hang; the files are then checked as written.
func TestCheckKustomizeHostile(t *testing.T) {
	dir := t.TempDir()
	literals := func(n int) string {
		var lits strings.Builder
		lits.WriteString("configMapGenerator:\n- name: huge\n  literals:\n")
		for i := range n {
			lits.WriteString("  - KEY_" + strings.Repeat("X", 8) + "_" + itoa(i) + "=value\n")
		}
		return lits.String()
	}
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cycle/a/kustomization.yaml", "resources:\n- ../b\n")
	write("cycle/b/kustomization.yaml", "resources:\n- ../a\n")
	write("missing/kustomization.yaml", "resources:\n- deployment.yaml\n")
	write("remote/kustomization.yaml", "resources:\n- https://github.com/org/repo//deploy?ref=v1\n")
	write("helm/kustomization.yaml", "helmCharts:\n- name: redis\n  repo: https://charts.example.com\n")
	write("exec/kustomization.yaml", "generators:\n- gen.yaml\n")
	write("exec/gen.yaml", "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./touch-me.sh\n")
	write("huge/kustomization.yaml", literals(3000))
	write("huger/kustomization.yaml", literals(5000))
	code, out, errOut := runCmd(t, "", "check", dir)
	if code != 1 {
		t.Fatalf("exit %d; stderr %s\n%s", code, errOut, out)
	}
	for _, w := range []string{
		"cycle/b/kustomization.yaml:2:3: error: kustomize build fails: the kustomizations form a cycle (a → b → a) (as cycle/a builds it) [kustomize-build]",
		"cycle/a/kustomization.yaml:2:3: error: not built: ../b/kustomization.yaml: kustomize build fails: the kustomizations form a cycle",
		`missing/kustomization.yaml:2:3: error: kustomize build fails: "deployment.yaml" is not a file or a folder [kustomize-build]`,
		`remote/kustomization.yaml:2:3: info: "https://github.com/org/repo//deploy?ref=v1" is a remote base: kustomize would fetch it`,
		"helm/kustomization.yaml:1:1: info: kustomize inflates Helm charts by running helm: crd-lsp runs no program",
		"exec/kustomization.yaml:2:3: info: example.com/v1 Gen is a plugin kustomize runs as a program or a container: crd-lsp runs none",
		"huger/kustomization.yaml:2:3: info: not built: the generators name more than 4000 literals and files",
	} {
		if !strings.Contains(out, filepath.Join(dir, "")+string(filepath.Separator)+filepath.FromSlash(w[:strings.Index(w, ":")])+w[strings.Index(w, ":"):]) {
			t.Errorf("output lacks %s:\n%s", w, out)
		}
	}
	if strings.Contains(out, filepath.Join("huge", "kustomization.yaml")) {
		t.Errorf("the huge generator's valid ConfigMap has findings:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "exec", "touch-me.sh")); err == nil {
		t.Error("something was written")
	}
}

// TestCheckKustomizeRemote: --kustomize-remote builds an overlay whose
// base is a real git repository, fetched over file:// with git: the
// base's missing selector, which the overlay's patch sets, is no error;
// the patch's misspelt field is on its line; the remote base's wrong
// value is on the overlay's entry naming the URL. Without the flag, the
// entry says the overlay is not built and how to ask. --kustomize-helm
// with a helm that is not there says so on helmCharts.
func TestCheckKustomizeRemote(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	repo := testfixtures.GitRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  revisionHistoryLimit: ten\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
	})
	url := "file://" + filepath.ToSlash(repo) + "//base"
	dir := t.TempDir()
	for rel, text := range map[string]string{
		"prod/kustomization.yaml":    "resources:\n- " + url + "\npatches:\n- path: selector.yaml\n",
		"prod/selector.yaml":         "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  minReadySecond: 5\n",
		"helm/kustomization.yaml":    "helmCharts:\n- name: web\n",
		"helm/charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prod := filepath.Join(dir, "prod", "kustomization.yaml")
	patch := filepath.Join(dir, "prod", "selector.yaml")
	helm := filepath.Join(dir, "helm", "kustomization.yaml")
	noHelm := filepath.Join(dir, "no-helm")
	code, out, errOut := runCmd(t, "", "check", "--kustomize-remote", "--kustomize-helm", "--helm-command", noHelm, dir)
	want := []string{
		helm + `:1:1: info: not built: inflating helmCharts runs "` + noHelm + `", which is not there`,
		prod + `:2:3: error: Deployment "web" of the remote base ` + url + ` (base/deployment.yaml): spec.revisionHistoryLimit: must be of type integer: "string" [type]`,
		patch + `:9:3: error: unknown field "minReadySecond"; did you mean "minReadySeconds"? [unknown-field]`,
		"4 files checked: 2 errors, 0 warnings, 1 info",
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != len(want) {
		t.Fatalf("exit %d, %d lines, want 1 and %d:\n%s\n%s", code, len(lines), len(want), out, errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n%s\nwant:\n%s", i+1, lines[i], w)
		}
	}

	_, out, _ = runCmd(t, "", "check", dir)
	if !strings.Contains(out, prod+`:2:3: info: "`+url+`" is a remote base: kustomize would fetch it (git or HTTP) and crd-lsp fetches nothing unless asked (check --kustomize-remote, crdLsp.kustomize.allowRemote)`) ||
		!strings.Contains(out, helm+":1:1: info: kustomize inflates Helm charts by running helm: crd-lsp runs no program unless asked (check --kustomize-helm") {
		t.Errorf("not asked:\n%s", out)
	}
}
