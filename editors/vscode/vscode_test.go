// Package vscode holds the VS Code extension (TypeScript, built with npm);
// this Go test runs its own test suite and packaging from `go test ./...`,
// so the README's single test command covers the extension too.
package vscode

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/flock"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

func npm(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := testfixtures.CombinedOutput(t, cmd, 20*time.Minute) // a cold npm ci downloads hundreds of packages
	if err != nil {
		t.Fatalf("npm %v: %v\n%s", args, err, out)
	}
	t.Logf("npm %v:\n%s", args, out)
}

// lockExtension serializes the installs of node_modules (by this test and
// ./workbench's, which go test runs in parallel); unlock ends it.
func lockExtension(t *testing.T) (unlock func()) {
	t.Helper()
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	unlock, err = flock.Lock(filepath.Join(os.TempDir(), "crd-lsp-vscode-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}

// npmCI installs the locked dependencies unless a previous install holds
// every one of them.
func npmCI(t *testing.T) {
	t.Helper()
	for _, dep := range []string{"vscode-languageclient", "@vscode/vsce", "typescript", "playwright-core"} {
		if _, err := os.Stat(filepath.Join("node_modules", dep, "package.json")); err != nil {
			npm(t, nil, "ci", "--no-audit", "--no-fund")
			return
		}
	}
}

// TestExtension installs the extension's locked dependencies, runs its unit
// tests and its end-to-end test against the built server, and packages the
// .vsix.
func TestExtension(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm not found")
		}
		t.Skip("npm not installed")
	}
	if testing.Short() {
		t.Skip("installs npm packages")
	}
	bin := lsptest.BuildBinary(t)
	unlock := lockExtension(t)
	npmCI(t)
	unlock()
	npm(t, []string{"CRD_LSP_BIN=" + bin}, "test")
	os.Remove("crd-lsp.vsix")
	npm(t, nil, "run", "package")
	info, err := os.Stat(filepath.Join(".", "crd-lsp.vsix"))
	if err != nil || info.Size() < 10<<10 {
		t.Fatalf("no .vsix produced: %v", err)
	}
	checkVSIX(t, "crd-lsp.vsix")
}
