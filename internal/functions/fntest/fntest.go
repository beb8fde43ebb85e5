// Package fntest builds the real composition functions that tests run:
// crd-lsp's own test function (internal/functions/testdata/fn, built with
// function-sdk-go) and function-patch-and-transform, built from the Go
// module proxy in a scratch module. Binaries are cached under the user
// cache folder (crd-lsp-test/), keyed by their sources (or version) and the
// Go version, so only the first run pays for the build. When a build
// cannot be done (no module proxy) the test is skipped, except under
// CI=true, where it fails.
package fntest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/flock"
)

// PatchAndTransformVersion is the function-patch-and-transform release the
// tests run.
const PatchAndTransformVersion = "v0.10.7"

const ptModule = "github.com/crossplane-contrib/function-patch-and-transform"

var (
	mu    sync.Mutex
	built = map[string]result{}
)

type result struct {
	path string
	err  error
}

// TestFunction returns the path of crd-lsp's test function binary.
func TestFunction(t testing.TB) string {
	t.Helper()
	src := filepath.Join(sourceDir(), "..", "testdata", "fn")
	h := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatalf("test function source: %v", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	key := "fn-" + hex.EncodeToString(h.Sum(nil))[:16]
	return build(t, key, func(goBin, out string) error {
		return run(src, nil, goBin, "build", "-o", out, ".")
	})
}

// PatchAndTransform returns the path of function-patch-and-transform
// (PatchAndTransformVersion), built from the module proxy on first use.
func PatchAndTransform(t testing.TB) string {
	t.Helper()
	return proxyBuild(t, "function-patch-and-transform-"+PatchAndTransformVersion, ptModule, PatchAndTransformVersion)
}

// AutoReadyVersion is the function-auto-ready tests run for real.
const AutoReadyVersion = "v0.5.1"

const autoReadyModule = "github.com/crossplane-contrib/function-auto-ready"

// AutoReady returns the path of function-auto-ready (AutoReadyVersion),
// built from the module proxy on first use.
//
// Its go.mod names it github.com/crossplane/function-auto-ready, which the
// proxy does not serve, so it cannot be required by the name it is served
// under: its source is downloaded and built as a main module of its own.
func AutoReady(t testing.TB) string {
	t.Helper()
	return autoReady(t, "function-auto-ready-"+AutoReadyVersion, nil)
}

// AutoReadyStatic is AutoReady built with CGO_ENABLED=0, a statically
// linked program as function images ship it (their Dockerfiles build so
// for a distroless base): what a Function package's runtime layer holds.
func AutoReadyStatic(t testing.TB) string {
	t.Helper()
	return autoReady(t, "function-auto-ready-"+AutoReadyVersion+"-static", []string{"CGO_ENABLED=0"})
}

func autoReady(t testing.TB, key string, env []string) string {
	t.Helper()
	return build(t, key, func(goBin, out string) error {
		dir, err := os.MkdirTemp(filepath.Dir(out), "fn-module-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var dl bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), goLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", autoReadyModule+"@"+AutoReadyVersion)
		cmd.Dir, cmd.Stdout = dir, &dl
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("still running after %v; killed", goLimit)
			}
			return fmt.Errorf("go mod download %s@%s: %w", autoReadyModule, AutoReadyVersion, err)
		}
		var mod struct{ Dir string }
		if err := json.Unmarshal(dl.Bytes(), &mod); err != nil || mod.Dir == "" {
			return fmt.Errorf("go mod download %s@%s: no source folder (%v)", autoReadyModule, AutoReadyVersion, err)
		}
		src := filepath.Join(dir, "src")
		if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
			return err
		}
		return run(src, append([]string{"GOFLAGS=-mod=mod"}, env...), goBin, "build", "-o", out, ".")
	})
}

// proxyBuild builds module@version's main package in a scratch module.
func proxyBuild(t testing.TB, key, module, version string) string {
	t.Helper()
	return build(t, key, func(goBin, out string) error {
		dir, err := os.MkdirTemp(filepath.Dir(out), "fn-module-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		gomod := "module crd-lsp-test/fn\n\ngo 1.25\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			return err
		}
		env := []string{"GOFLAGS=-mod=mod"}
		if err := run(dir, env, goBin, "get", module+"@"+version); err != nil {
			return err
		}
		return run(dir, env, goBin, "build", "-o", out, module)
	})
}

// build returns the cached binary named key, building it when missing.
func build(t testing.TB, key string, do func(goBin, out string) error) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	goBin, goVersion := goTool()
	full := key + "-" + goVersion + "-" + runtime.GOOS + "-" + runtime.GOARCH
	if r, ok := built[full]; ok {
		return check(t, r)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "crd-lsp-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, full)
	if _, err := os.Stat(final); err == nil {
		built[full] = result{path: final}
		return final
	}
	// One test process builds it while the others (go test runs packages'
	// tests in parallel) wait for it: a cold first run builds each binary
	// once, not once per package, on a machine with few cores.
	unlock, err := flock.Lock(filepath.Join(dir, full+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(final); err == nil {
		built[full] = result{path: final}
		return final
	}
	// Build under a unique name and rename: a process killed mid-build
	// (a test timeout) leaves no partial binary under the final name.
	tmp, err := os.CreateTemp(dir, full+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	start := time.Now()
	err = do(goBin, tmp.Name())
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	r := result{path: final, err: err}
	if err == nil {
		t.Logf("built %s in %s (cached as %s)", key, time.Since(start).Round(time.Millisecond), final)
	}
	built[full] = r
	return check(t, r)
}

func check(t testing.TB, r result) string {
	t.Helper()
	if r.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot build a test function: %v", r.err)
		}
		t.Skipf("cannot build a test function (no Go module proxy?): %v", r.err)
	}
	return r.path
}

// goLimit bounds each go command a build runs (a cold download and build
// of a function takes a few minutes on a loaded CI machine): a stuck one
// fails the test that asked for the function instead of hanging it.
const goLimit = 15 * time.Minute

func run(dir string, env []string, goBin string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), goLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("still running after %v; killed", goLimit)
		}
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// goTool finds the go command of the toolchain running the tests and its
// version.
func goTool() (string, string) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	return goBin, runtime.Version()
}

func sourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}
