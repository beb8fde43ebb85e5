package release

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// codeServer is the VS Code (code-server, at the version
// editors/vscode/code-server/package.json locks) that
// editors/vscode/scripts/install-workbench.sh installs, as the workbench
// test finds it; "" when it is not installed.
func codeServer(t *testing.T) string {
	t.Helper()
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(repoFile(t, "editors/vscode/code-server/package.json"), &pkg); err != nil {
		t.Fatal(err)
	}
	tools := os.Getenv("CRD_LSP_TOOLS")
	if tools == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		tools = filepath.Join(cache, "crd-lsp-tools")
	}
	dir := filepath.Join(tools, "code-server-"+pkg.Dependencies["code-server"])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		return ""
	}
	return filepath.Join(dir, "node_modules", ".bin", "code-server")
}

// TestVSIXInstallsAsREADMESays: README's `code --install-extension
// crd-lsp_VERSION_linux-x64.vsix`, with VS Code's own installer (code-server's
// --install-extension, the same command line) into a fresh extensions
// folder: VS Code accepts the snapshot's .vsix for this machine, and the
// server it unpacks is the snapshot's, starting from where VS Code put it.
// (The extension driving that server in a workbench is
// editors/vscode/workbench's test, on a .vsix packaged the same way.)
func TestVSIXInstallsAsREADMESays(t *testing.T) {
	s := distDir(t)
	if runtime.GOOS != "linux" {
		t.Skipf("the snapshot's Linux .vsix does not run on %s", runtime.GOOS)
	}
	cs := codeServer(t)
	if cs == "" {
		msg := "code-server not installed: run editors/vscode/scripts/install-workbench.sh (.ci/run does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	vscode := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	vsix := s.vsix(target{"linux", runtime.GOARCH, "linux-" + vscode})
	tmp := t.TempDir()
	ext := filepath.Join(tmp, "extensions")
	cmd := exec.Command(cs, "--user-data-dir", filepath.Join(tmp, "user-data"), "--extensions-dir", ext, "--install-extension", vsix)
	cmd.Env = append(os.Environ(), "HOME="+tmp, "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	out, err := testfixtures.CombinedOutput(t, cmd, 5*time.Minute)
	if err != nil || !strings.Contains(string(out), "was successfully installed") {
		t.Fatalf("code-server --install-extension %s: %v\n%s", filepath.Base(vsix), err, out)
	}
	servers, _ := filepath.Glob(filepath.Join(ext, "*", "bin", "linux-"+vscode, "crd-lsp"))
	if len(servers) != 1 {
		entries, _ := os.ReadDir(ext)
		t.Fatalf("the installed extension's server: %v (extensions folder: %v)", servers, entries)
	}
	v, err := exec.Command(servers[0], "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "crd-lsp "+s.version+"\n") {
		t.Errorf("%s version: %v\n%s", servers[0], err, v)
	}
}
