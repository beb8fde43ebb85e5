package release

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

const modulePath = "github.com/crd-lsp/crd-lsp"

// TestGoInstallAtVersion: README's `go install
// github.com/crd-lsp/crd-lsp/cmd/crd-lsp@VERSION` works for this commit.
// The module is served, as the Go module proxy would serve it once
// tagged, from a file proxy made of the committed tree (x/mod's module
// zip, as the proxy makes it), the dependencies from the usual proxy;
// go install refuses a module whose go.mod has replace or exclude
// directives, so this also holds go.mod free of them. The binary it
// installs names the version and checks the quickstart example.
func TestGoInstallAtVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds crd-lsp from a module proxy (minutes)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%H %cd", "--date=format-local:%Y%m%d%H%M%S").Output()
	if err != nil {
		msg := fmt.Sprintf("no git history to make the module from: %v", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	hash, stamp, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	// A pseudo-version of this commit: unique to it, so the module cache
	// never serves another commit's tree under this name.
	version := "v0.0.0-" + stamp + "-" + hash[:12]
	if err := module.Check(modulePath, version); err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// The committed tree (git archive: nothing untracked, no node_modules),
	// zipped by x/mod as the proxy zips a module (nested modules, such as
	// the test functions' under testdata, left out).
	tree := t.TempDir()
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, hash, tree)
	if b, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", hash, err, b)
	}
	if err := modzip.CreateFromDir(zf, module.Version{Path: modulePath, Version: version}, tree); err != nil {
		t.Fatalf("module zip of %s: %v", hash, err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := exec.Command("git", "-C", root, "show", hash+":go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	when, _ := time.Parse("20060102150405", stamp)
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": when})
	for name, b := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", modulePath+"/cmd/crd-lsp@"+version)
	cmd.Dir = t.TempDir() // outside any module, as a user runs it
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+strings.TrimSpace(string(upstream)),
		"GONOSUMDB="+modulePath, "GOFLAGS=", "GOBIN="+gobin)
	if b, err := testfixtures.CombinedOutput(t, cmd, 15*time.Minute); err != nil { // a cold build of the module
		t.Fatalf("go install %s/cmd/crd-lsp@%s: %v\n%s", modulePath, version, err, b)
	}
	bin := filepath.Join(gobin, "crd-lsp")
	v, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "crd-lsp "+version+"\n") {
		t.Errorf("crd-lsp version: %v\n%s", err, v)
	}
	check := exec.Command(bin, "check", filepath.Join(root, "examples", "quickstart"))
	check.Env = append(os.Environ(), "CRD_LSP_SCHEMA_CACHE=off")
	res, _ := testfixtures.Output(t, check, 5*time.Minute)
	if check.ProcessState.ExitCode() != 1 || !strings.Contains(string(res), "4 files checked: 8 errors, 2 warnings, 1 info") {
		t.Errorf("crd-lsp check examples/quickstart: exit %d\n%s", check.ProcessState.ExitCode(), res)
	}
}
