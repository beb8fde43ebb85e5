// This file builds the binary once per test process and locates the module and
// the shared corpus.

package lsptest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// BuildBinary builds ./cmd/crd-lsp once per test process and returns the
// binary's path. It goes to the user cache folder (keyed by module root,
// and replaced atomically, so concurrent test processes do not disturb one
// another and nothing piles up in the temp folder).
func BuildBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { binPath, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("building crd-lsp: %v", buildErr)
	}
	return binPath
}

func build() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "crd-lsp-lsptest", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = filepath.Join(os.TempDir(), "crd-lsp-lsptest", hex.EncodeToString(sum[:8]))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	name := "crd-lsp"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return "", err
	}
	tmpName := tmp.Name()
	_ = tmp.Close()
	defer os.Remove(tmpName) // only left behind when the build failed
	// go test puts its own GOROOT/bin first on PATH.
	// Bounded: a stuck build fails the tests that need the binary, by
	// name, instead of hanging them.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmpName, "./cmd/crd-lsp")
	cmd.Dir = root
	cmd.WaitDelay = 10 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("still running after 15 minutes; killed")
		}
		return "", fmt.Errorf("go build ./cmd/crd-lsp in %s: %v\n%s", root, err, out)
	}
	final := filepath.Join(dir, name)
	if err := os.Rename(tmpName, final); err != nil {
		return "", err
	}
	return final, nil
}

// ModuleRoot is the folder holding the go.mod above this package's source
// (or, when the source is not around, above the working directory).
func ModuleRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("no go.mod above the lsptest package or the working directory")
}

// CorpusDir locates ../shared/corpus beside the checkout (CRD_LSP_CORPUS
// overrides). Without it the test is skipped, except under CI=true.
func CorpusDir(t testing.TB) string {
	t.Helper()
	return corpus.Dir(t)
}

// lockedWriter serialises writes to the binary's stdin (the connection's
// and WriteRaw's).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	werr := p.w.Close()
	rerr := p.r.Close()
	return errors.Join(werr, rerr)
}

// pipe is an in-memory one-way byte stream with an unbounded buffer: like
// an OS pipe (and unlike net.Pipe) a write never waits for the reader, so
// a server writing a notification while its peer writes a response cannot
// deadlock the two read loops.
type pipe struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    bytes.Buffer
	closed bool
}

func newPipe() *pipe {
	p := &pipe{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.buf.Len() == 0 {
		if p.closed {
			return 0, io.EOF
		}
		p.cond.Wait()
	}
	return p.buf.Read(b)
}

func (p *pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	p.buf.Write(b)
	p.cond.Broadcast()
	return len(b), nil
}

// Close ends the stream: the reader gets what is buffered, then io.EOF.
func (p *pipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.cond.Broadcast()
	return nil
}
