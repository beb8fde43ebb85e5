// This file is the content-addressed package cache shared by processes: blobs
// by digest, an index under a file lock, atomic writes, digest-checked reads.

package packages

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/flock"
	"github.com/opencontainers/go-digest"
)

// The cache folder:
//
//	index.json            resolutions and manifests (below)
//	lock                  flock'ed by writers of index.json
//	blobs/sha256/<hex>    package.yaml contents, named by their own digest
//	runtimes/<hex>/       a Function package's runtime image, unpacked
//	                      (runtime.go), named by its image manifest digest
//
// Blobs are written to a temporary file and renamed, so a reader sees a
// whole file or none; their digest is checked on every read from disk, so a
// corrupt or truncated blob is never served (it is deleted and refetched).
// index.json is rewritten (temp file + rename) under the lock after
// re-reading it, so concurrent processes merge their entries.

const indexVersion = 1

type index struct {
	Version int `json:"version"`
	// Resolutions: "<package> <constraint>" → what it resolved to.
	Resolutions map[string]resolution `json:"resolutions"`
	// Manifests: manifest digest → the package.yaml extracted from it.
	Manifests map[string]manifestEntry `json:"manifests"`
	// Runtimes: "<package>:<tag> <os>/<arch>" (or "<package>@<digest>
	// <os>/<arch>") → the Function runtime unpacked for it (runtime.go).
	Runtimes map[string]runtimeRef `json:"runtimes,omitempty"`
}

type resolution struct {
	Package    string    `json:"package"`
	Constraint string    `json:"constraint"`
	Version    string    `json:"version"` // tag, or the digest for digest pins
	Digest     string    `json:"digest"`  // manifest digest
	Checked    time.Time `json:"checked"` // last confirmed with the registry
}

type manifestEntry struct {
	Layer   string `json:"layer"`   // base layer digest
	Package string `json:"package"` // sha256 digest of package.yaml (the blob)
	Size    int64  `json:"size"`    // package.yaml size
}

func resKey(pkg, constraint string) string { return pkg + " " + constraint }

type cache struct {
	dir string
	mu  sync.Mutex // serialises this process's index writes
}

func openCache(dir string) (*cache, error) {
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return nil, fmt.Errorf("package cache: %w", err)
	}
	return &cache{dir: dir}, nil
}

func (c *cache) indexPath() string { return filepath.Join(c.dir, "index.json") }

// readIndex reads the index; a missing or unreadable index is empty.
func (c *cache) readIndex() (*index, error) {
	ix := &index{Version: indexVersion, Resolutions: map[string]resolution{}, Manifests: map[string]manifestEntry{}, Runtimes: map[string]runtimeRef{}}
	b, err := os.ReadFile(c.indexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return ix, nil
	}
	if err != nil {
		return ix, err
	}
	var got index
	if err := json.Unmarshal(b, &got); err != nil || got.Version != indexVersion {
		if err == nil {
			err = fmt.Errorf("version %d", got.Version)
		}
		return ix, fmt.Errorf("package cache index %s is unreadable (%v); starting afresh", c.indexPath(), err)
	}
	if got.Resolutions != nil {
		ix.Resolutions = got.Resolutions
	}
	if got.Manifests != nil {
		ix.Manifests = got.Manifests
	}
	if got.Runtimes != nil {
		ix.Runtimes = got.Runtimes
	}
	return ix, nil
}

// update applies fn to the freshly read index under the file lock and
// writes it back atomically.
func (c *cache) update(fn func(*index)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	unlock, err := flock.Lock(filepath.Join(c.dir, "lock"))
	if err != nil {
		return fmt.Errorf("package cache lock: %w", err)
	}
	defer unlock()
	ix, _ := c.readIndex() // a corrupt index is replaced
	fn(ix)
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(c.indexPath(), b)
}

func (c *cache) blobPath(d string) (string, error) {
	dg, err := digest.Parse(d)
	if err != nil || dg.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("bad blob digest %q", d)
	}
	return filepath.Join(c.dir, "blobs", "sha256", dg.Encoded()), nil
}

// putBlob stores data under its sha256 digest and returns the digest.
func (c *cache) putBlob(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	d := "sha256:" + hex.EncodeToString(sum[:])
	p, _ := c.blobPath(d)
	// Always rewrite: a file already there may be corrupt; the rename
	// makes identical concurrent writes harmless.
	return d, writeAtomic(p, data)
}

// errCorrupt: a blob's content does not match its name; it was removed.
var errCorrupt = errors.New("cached package content is corrupt")

// getBlob reads a blob and checks its digest and size. A corrupt blob is
// removed so that it is fetched again.
func (c *cache) getBlob(d string, size int64) ([]byte, error) {
	p, err := c.blobPath(d)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	if "sha256:"+hex.EncodeToString(sum[:]) != d || (size > 0 && int64(len(b)) != size) {
		_ = os.Remove(p)
		return nil, errCorrupt
	}
	return b, nil
}

// writeAtomic writes to a temporary file beside path, syncs it, and
// renames it over path.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// DefaultCacheDir is os.UserCacheDir()/crd-lsp/packages.
func DefaultCacheDir() (string, error) { return userCacheDir("packages") }

// UserCacheDir is os.UserCacheDir()/crd-lsp/name: where crd-lsp keeps
// what it fetched (packages, catalog answers, clusters' CRDs) and what it
// derived and keeps across processes (decoded schemas).
func UserCacheDir(name string) (string, error) { return userCacheDir(name) }

func userCacheDir(name string) (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "crd-lsp", name), nil
}
