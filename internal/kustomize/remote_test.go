package kustomize

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestRemoteBase: with AllowRemote, a base in a real git repository named
// by a file:// URL is cloned with git and built; what the overlay's patch
// writes is found in the patch, what the remote base wrote on the
// overlay's entry naming it; the clone is gone after the build and is no
// file the build says it read. Without AllowRemote the kustomization is
// not built and the entry says how to ask.
func TestRemoteBase(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // where clones go: this test's own
	repo := testfixtures.GitRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    baseDeployment,
	})
	url := "file://" + filepath.ToSlash(repo) + "//base"
	dir := tree(t, map[string]string{
		"overlay/kustomization.yaml": "resources:\n- " + url + "\npatches:\n- path: patch.yaml\n",
		"overlay/patch.yaml":         "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
	})
	root := filepath.Join(dir, "overlay", "kustomization.yaml")

	b := Run(context.Background(), &Source{AllowRemote: true, Within: []string{dir}}, root, Limits{})
	for _, p := range b.Problems {
		t.Errorf("problem: %s %v %s", p.File, p.Span, p.Message)
	}
	if !b.Built() || len(b.Resources) != 1 {
		t.Fatalf("not built (%d objects)", len(b.Resources))
	}
	r := b.Resources[0]
	if r.Remote != url || r.RemotePath != "base/deployment.yaml" || r.Origin != "" {
		t.Errorf("the Deployment came from %q %q (origin %q), want the remote base's base/deployment.yaml", r.Remote, r.RemotePath, r.Origin)
	}
	if got, want := where(t, b, "Deployment", "spec.replicas", false, false), "overlay/patch.yaml:6: 3 (exact)"; got != want {
		t.Errorf("spec.replicas: %s, want %s", got, want)
	}
	if got, want := where(t, b, "Deployment", "spec.template.spec.containers[0].image", false, false), "overlay/kustomization.yaml:2: "+url; got != want {
		t.Errorf("an image the remote base wrote: %s, want %s", got, want)
	}
	for p := range b.Reads {
		if !strings.HasPrefix(p, dir) {
			t.Errorf("the build says it read %s", p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "crd-lsp-remote-*"))
	for _, l := range left {
		t.Errorf("a clone is left: %s", l)
	}

	// Off unless asked.
	b = Run(context.Background(), &Source{Within: []string{dir}}, root, Limits{})
	if b.Built() || len(b.Problems) != 1 || b.Problems[0].Code != CodeNotBuilt || !strings.Contains(b.Problems[0].Message, "--kustomize-remote") {
		t.Errorf("without AllowRemote: built %v, %+v", b.Built(), b.Problems)
	}
}

// TestRemoteBaseFails: a repository that is not there, a fetch past its
// time, a URL kustomize would not clone and no git to clone with are said
// on the entry naming the URL; nothing is built.
func TestRemoteBaseFails(t *testing.T) {
	testfixtures.Need(t, "git")
	gone := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "nothing")) + "//base"
	repo := testfixtures.GitRepo(t, map[string]string{"base/kustomization.yaml": "resources: []\n", "broken/kustomization.yaml": "resources:\n- missing.yaml\n"})
	slow := "file://" + filepath.ToSlash(repo) + "//base"
	broken := "file://" + filepath.ToSlash(repo) + "//broken"
	dir := tree(t, map[string]string{
		"broken/kustomization.yaml": "resources:\n- " + broken + "\n",
		"gone/kustomization.yaml":   "resources:\n- " + gone + "\n",
		"slow/kustomization.yaml":   "resources:\n- " + slow + "\n",
		"bad/kustomization.yaml":    "resources:\n- https://example.com\n",
		"file/kustomization.yaml":   "resources:\n- https://example.com/deploy/app.yaml\n",
	})
	// No git to fetch with.
	t.Run("no git", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		root := filepath.Join(dir, "slow", "kustomization.yaml")
		b := Run(context.Background(), &Source{AllowRemote: true}, root, Limits{})
		if b.Built() || len(b.Problems) != 1 || b.Problems[0].Code != CodeNotBuilt || !strings.Contains(b.Problems[0].Message, "fetching the remote base \""+slow+"\" needs git: git is not installed") {
			t.Errorf("built %v, %+v", b.Built(), b.Problems)
		}
	})
	for _, c := range []struct {
		dir, entry, code, want string
		lim                    Limits
	}{
		{"gone", gone, CodeBuild, "kustomize build fails: fetching the remote base \"" + gone + "\": git fetch: ", Limits{}},
		{"slow", slow, CodeNotBuilt, "not built: fetching the remote base \"" + slow + "\" took longer than 1ns", Limits{FetchTimeout: time.Nanosecond}},
		{"bad", "https://example.com", CodeBuild, "is neither a file, a folder nor a remote base kustomize can clone", Limits{}},
		// A remote file is never downloaded.
		{"file", "https://example.com/deploy/app.yaml", CodeNotBuilt, "is a remote file: kustomize would download it, and crd-lsp downloads no file (--kustomize-remote fetches git bases only)", Limits{}},
		// The remote base's own mistake, named by its URL (its clone is gone).
		{"broken", broken, CodeBuild, "not built: file://" + filepath.ToSlash(repo) + "//broken/kustomization.yaml: kustomize build fails: \"missing.yaml\" is not a file or a folder", Limits{}},
	} {
		root := filepath.Join(dir, c.dir, "kustomization.yaml")
		b := Run(context.Background(), &Source{AllowRemote: true}, root, c.lim)
		if b.Built() || len(b.Problems) != 1 {
			t.Errorf("%s: built %v, %+v", c.dir, b.Built(), b.Problems)
			continue
		}
		p := b.Problems[0]
		text, _ := os.ReadFile(root)
		if p.File != root || string(text[p.Span.Start:p.Span.End]) != c.entry || p.Code != c.code || !strings.Contains(p.Message, c.want) {
			t.Errorf("%s: %s %q [%s] %s, want on %q [%s] %q", c.dir, p.File, text[p.Span.Start:p.Span.End], p.Code, p.Message, c.entry, c.code, c.want)
		}
	}
}

func TestParseRemote(t *testing.T) {
	for _, c := range []struct{ raw, clone, path, ref string }{
		{"https://github.com/org/repo//deploy?ref=v1", "https://github.com/org/repo", "deploy", "v1"},
		{"github.com/org/repo/deploy/prod?version=v2", "https://github.com/org/repo", "deploy/prod", "v2"},
		{"git@github.com:org/repo.git/deploy", "git@github.com:org/repo.git", "deploy", ""},
		{"ssh://git@example.com/org/repo.git//x?ref=main", "ssh://git@example.com/org/repo.git", "x", "main"},
		{"https://dev.azure.com/org/project/_git/repo/path/to", "https://dev.azure.com/org/project/_git/repo", "path/to", ""},
		{"file:///srv/repos/app//base?ref=main", "file:///srv/repos/app", "base", "main"},
		{"file:///srv/repos/app", "file:///srv/repos/app", "", ""},
	} {
		s, err := parseRemote(c.raw)
		if err != nil || s.clone != c.clone || s.path != c.path || s.ref != c.ref {
			t.Errorf("%s: %+v %v, want %s %s %s", c.raw, s, err, c.clone, c.path, c.ref)
		}
	}
	for _, raw := range []string{"../base", "/abs/path", "https://example.com", "github.com/org//..", "example.com/org/repo"} {
		if s, err := parseRemote(raw); err == nil {
			t.Errorf("%s: parsed as %+v", raw, s)
		}
	}
}

// TestHelm: helmCharts are not inflated unless asked; asked, a helm that
// is not there and a chart not in the chart home are said on the
// kustomization, and otherwise krusty is given helm, enabled, with the
// command asked for. (Debian has no helm package: the inflation itself is
// not run here.)
func TestHelm(t *testing.T) {
	dir := tree(t, map[string]string{
		"app/kustomization.yaml":    "helmCharts:\n- name: web\n  releaseName: web\n",
		"app/charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"pull/kustomization.yaml":   "helmGlobals:\n  chartHome: vendored\nhelmCharts:\n- name: web\n  repo: https://charts.example.com\n",
	})
	root := filepath.Join(dir, "app", "kustomization.yaml")
	text, _ := os.ReadFile(root)
	at := func(p Problem) string { return string(text[p.Span.Start:p.Span.End]) }

	b := Run(context.Background(), &Source{}, root, Limits{})
	if b.Built() || len(b.Problems) != 1 || at(b.Problems[0]) != "helmCharts" || !strings.Contains(b.Problems[0].Message, "--kustomize-helm") {
		t.Errorf("off: built %v, %+v", b.Built(), b.Problems)
	}
	missing := filepath.Join(dir, "no-such-helm")
	b = Run(context.Background(), &Source{Helm: missing}, root, Limits{})
	if b.Built() || len(b.Problems) != 1 || at(b.Problems[0]) != "helmCharts" || b.Problems[0].Code != CodeNotBuilt ||
		!strings.Contains(b.Problems[0].Message, "runs \""+missing+"\", which is not there") || !strings.Contains(b.Problems[0].Message, "--helm-command") {
		t.Errorf("no helm: built %v, %+v", b.Built(), b.Problems)
	}

	helm := testfixtures.Need(t, "false") // a helm that fails, so kustomize's own error is seen
	pull := filepath.Join(dir, "pull", "kustomization.yaml")
	b = Run(context.Background(), &Source{Helm: helm}, pull, Limits{})
	ptext, _ := os.ReadFile(pull)
	if b.Built() || len(b.Problems) != 1 || string(ptext[b.Problems[0].Span.Start:b.Problems[0].Span.End]) != "web" || !strings.Contains(b.Problems[0].Message, `the chart "web" is not in vendored/web`) {
		t.Errorf("a chart to download: built %v, %+v", b.Built(), b.Problems)
	}

	var got krusty.Options
	testHookOptions = func(o *krusty.Options) { got = *o }
	t.Cleanup(func() { testHookOptions = func(*krusty.Options) {} })
	b = Run(context.Background(), &Source{Helm: helm}, root, Limits{})
	if !got.PluginConfig.HelmConfig.Enabled || got.PluginConfig.HelmConfig.Command != helm {
		t.Errorf("krusty was given helm %+v", got.PluginConfig.HelmConfig)
	}
	if b.Built() || len(b.Problems) != 1 || b.Problems[0].Code != CodeBuild || !strings.Contains(b.Problems[0].Message, helm+" version") {
		t.Errorf("a failing helm: built %v, %+v", b.Built(), b.Problems)
	}
}

// TestRemoteBaseHangs: a server that accepts git's connection and never
// answers: past FetchTimeout the build says so on the entry, and git's
// helper holding the connection is killed too (the server sees it
// close).
func TestRemoteBaseHangs(t *testing.T) {
	testfixtures.Need(t, "git")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	url := "http://" + ln.Addr().String() + "/org/repo.git//base"
	dir := tree(t, map[string]string{"app/kustomization.yaml": "resources:\n- " + url + "\n"})
	root := filepath.Join(dir, "app", "kustomization.yaml")
	b := Run(context.Background(), &Source{AllowRemote: true}, root, Limits{FetchTimeout: 2 * time.Second})
	if b.Built() || len(b.Problems) != 1 || b.Problems[0].Code != CodeNotBuilt || !strings.Contains(b.Problems[0].Message, "fetching the remote base \""+url+"\" took longer than 2s") {
		t.Fatalf("built %v, %+v", b.Built(), b.Problems)
	}
	select {
	case c := <-conns:
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Error("git's connection is still open 20 s after the build gave up: its helper was not killed")
				}
				return
			}
		}
	default:
		t.Fatal("git never connected")
	}
}
