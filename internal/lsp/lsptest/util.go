package lsptest

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// BuildBinary builds ./cmd/crd-lsp once per test process and returns its path.
func BuildBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "crd-lsp-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "crd-lsp")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/crd-lsp")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building crd-lsp: %v", buildErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// ModuleRoot walks up from the working directory to the folder with go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// CorpusDir locates ../shared/corpus beside the checkout (CRD_LSP_CORPUS
// overrides). Without it the test is skipped, except under CI=true.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CRD_LSP_CORPUS")
	if dir == "" {
		if root, err := ModuleRoot(); err == nil {
			dir = filepath.Join(filepath.Dir(root), "shared", "corpus")
		}
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared corpus not found at %q (set CRD_LSP_CORPUS)", dir)
		}
		t.Skipf("shared corpus not found at %q", dir)
	}
	return dir
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	_ = p.w.Close()
	return p.r.Close()
}

// testWriter sends server logs to the test log.
type testWriter struct {
	t    testing.TB
	done *atomic.Bool // set once the test no longer accepts logs
}

func (w testWriter) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
