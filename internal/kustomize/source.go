// This file defines what builds read (Source) and the read-only file
// system kustomize is given.

package kustomize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Source is what builds read: texts given by content (the editor's open
// buffers, the files check was given), else the disk through
// workspace.ReadFile (regular files, MaxFileSize at most). It is read
// only.
type Source struct {
	// Texts are files by clean absolute path.
	Texts map[string][]byte
	// MaxFileSize bounds each file read from disk (0: the workspace
	// default).
	MaxFileSize int64
	// Within, when set, are the folders builds may read from (the
	// workspace's roots): a kustomization naming a file elsewhere is not
	// built, as a file outside the workspace is none of its business.
	Within []string
	// AllowRemote lets builds fetch remote bases with the user's git
	// (check --kustomize-remote, crdLsp.kustomize.allowRemote).
	AllowRemote bool
	// Helm, when set, lets builds inflate helmCharts by running this
	// helm program (check --kustomize-helm, crdLsp.kustomize.enableHelm;
	// a name is looked up on PATH).
	Helm string
}

func (s *Source) maxFileSize() int64 {
	if s.MaxFileSize <= 0 {
		return workspace.DefaultMaxFileSize
	}
	return s.MaxFileSize
}

// ReadFile reads path as builds see it.
func (s *Source) ReadFile(path string) ([]byte, error) {
	path = filepath.Clean(path)
	if t, ok := s.Texts[path]; ok {
		return t, nil
	}
	if !s.inside(path) {
		return nil, fmt.Errorf("%s is outside the workspace", path)
	}
	return workspace.ReadFile(path, s.maxFileSize())
}

// kind says what path is: a file (given by content or on disk), a
// folder, or nothing.
func (s *Source) kind(path string) (isFile, isDir bool) {
	path = filepath.Clean(path)
	if _, ok := s.Texts[path]; ok {
		return true, false
	}
	info, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	return info.Mode().IsRegular(), info.IsDir()
}

func (s *Source) inside(path string) bool {
	if len(s.Within) == 0 {
		return true
	}
	for _, r := range s.Within {
		if workspace.IsUnder(r, path) {
			return true
		}
	}
	return false
}

// errReadOnly is every write's answer.
var errReadOnly = errors.New("crd-lsp builds kustomizations without writing anything")

// roFS is the file system one build gives kustomize: reads through the
// Source (the root kustomization as given, with origin tracking turned
// on), recorded; writes refused; every call checks the build's deadline
// and the budget of bytes read.
type roFS struct {
	ctx context.Context
	src *Source
	// root is the root kustomization's path and text (buildMetadata
	// added: plan.go).
	root     string
	rootText []byte
	// texts are the other kustomizations kustomize reads as changed
	// (remote entries replaced by their clones: remote.go), clones the
	// clones it may read besides the Source.
	texts  map[string][]byte
	clones *clones
	budget int64

	mu    sync.Mutex
	reads map[string][]byte
	read  int64
	// stop is the first limit a read hit (the budget, a file outside the
	// workspace): the build's outcome, whatever kustomize then makes of
	// the failed read.
	stop error
}

// stopped records the first limit hit.
func (f *roFS) stopped(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stop == nil {
		f.stop = err
	}
	return err
}

var _ filesys.FileSystem = (*roFS)(nil)

func (f *roFS) check() error {
	if err := f.ctx.Err(); err != nil {
		return f.stopped(fmt.Errorf("stopped: %w", err))
	}
	return nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func (f *roFS) ReadFile(path string) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	path = abs(path)
	if path == f.root {
		return f.rootText, nil
	}
	if t, ok := f.texts[path]; ok {
		return t, nil
	}
	f.mu.Lock()
	t, ok := f.reads[path]
	f.mu.Unlock()
	if ok {
		return t, nil
	}
	_, _, cloned := f.clones.of(path)
	if !cloned && !f.src.inside(path) {
		return nil, f.stopped(limitError{fmt.Sprintf("not built: it reads %s, outside the workspace (crd-lsp reads only the workspace's files)", path)})
	}
	var err error
	if cloned {
		t, err = workspace.ReadFile(path, f.src.maxFileSize())
	} else {
		t, err = f.src.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.read += int64(len(t))
	if f.read > f.budget {
		f.mu.Unlock()
		return nil, f.stopped(limitError{fmt.Sprintf("not built: the build reads more than %s", workspace.Size(f.budget))})
	}
	f.reads[path] = t
	f.mu.Unlock()
	return t, nil
}

func (f *roFS) Open(path string) (filesys.File, error) {
	t, err := f.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &roFile{Reader: bytes.NewReader(t), name: path, size: int64(len(t))}, nil
}

func (f *roFS) IsDir(path string) bool {
	if f.check() != nil {
		return false
	}
	_, dir := f.src.kind(abs(path))
	return dir
}

func (f *roFS) Exists(path string) bool {
	if f.check() != nil {
		return false
	}
	file, dir := f.src.kind(abs(path))
	return file || dir
}

// CleanedAbs is the disk's, without resolving symbolic links (paths stay
// the ones the workspace and the editor name files by) and without the
// disk file system's process exits on odd paths.
func (f *roFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if err := f.check(); err != nil {
		return "", "", err
	}
	p := abs(path)
	file, dir := f.src.kind(p)
	switch {
	case dir:
		return filesys.ConfirmedDir(p), "", nil
	case file:
		return filesys.ConfirmedDir(filepath.Dir(p)), filepath.Base(p), nil
	}
	return "", "", fmt.Errorf("%s: %w", path, fs.ErrNotExist)
}

func (f *roFS) ReadDir(path string) ([]string, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs(path))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, nil
}

func (f *roFS) Glob(pattern string) ([]string, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return filepath.Glob(abs(pattern))
}

func (f *roFS) Walk(path string, walkFn filepath.WalkFunc) error {
	if err := f.check(); err != nil {
		return err
	}
	return filepath.Walk(abs(path), func(p string, info os.FileInfo, err error) error {
		if err := f.check(); err != nil {
			return err
		}
		return walkFn(p, info, err)
	})
}

func (f *roFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (f *roFS) Mkdir(string) error                  { return errReadOnly }
func (f *roFS) MkdirAll(string) error               { return errReadOnly }
func (f *roFS) RemoveAll(string) error              { return errReadOnly }
func (f *roFS) WriteFile(string, []byte) error      { return errReadOnly }

// roFile is a file opened for reading.
type roFile struct {
	*bytes.Reader
	name string
	size int64
}

func (r *roFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (r *roFile) Close() error              { return nil }
func (r *roFile) Stat() (os.FileInfo, error) {
	return fileInfo{name: filepath.Base(r.name), size: r.size}, nil
}

type fileInfo struct {
	name string
	size int64
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

var _ io.ReadWriteCloser = (*roFile)(nil)
