package schemas

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crd-lsp/crd-lsp/internal/flock"
)

// The decoded cache keeps, on disk, what a definition document decodes
// to: the CustomResourceDefinitions a CRD, MRD or XRD document yields (an
// XRD's composite and claim CRDs), in their protobuf form, or the message
// of the error decoding stopped at. Decoding YAML with sigs.k8s.io/yaml is
// the costliest step of a check on few documents of many kinds; protobuf
// decodes about 15 times faster.
//
// An entry's name is the SHA-256 of the build's identity (buildID), the
// definition's kind and its text: content-addressed, so an edited CRD is a
// new entry and a stale one is never read. Entries are written to a
// temporary file and renamed into place (readers see a whole entry or
// none); each carries its length and CRC-32C, and an entry that fails the
// check is ignored and written again. The folder is bounded: past
// maxBytes the least recently used entries (by modification time, which a
// hit refreshes hourly) are removed, under a lock shared by processes.
//
// What is decoded is the same whether it comes from the cache or not: a
// document decoded from YAML is turned into protobuf and back before use,
// so a cold run and a warm run see identical CRDs. The round trip drops
// only what the API server's own storage drops (an empty list or map is
// absent), which is what the server builds its validators from.

// DecodedCacheEnv names the environment variable that sets the folder of
// the decoded cache, or "off" to disable it.
const DecodedCacheEnv = "CRD_LSP_SCHEMA_CACHE"

// DefaultDecodedCacheBytes bounds the decoded cache's folder.
const DefaultDecodedCacheBytes = 256 << 20

type diskCache struct {
	dir      string
	maxBytes int64

	mu      sync.Mutex
	written int64 // bytes written since the last eviction scan
	scanned bool  // a scan ran in this process
}

var (
	diskMu sync.RWMutex
	disk   *diskCache
)

// SetDecodedCache makes the process keep decoded definitions in dir,
// bounded by maxBytes (DefaultDecodedCacheBytes when ≤ 0); dir "" turns
// the cache off (the default). The folder is created on first write.
func SetDecodedCache(dir string, maxBytes int64) {
	diskMu.Lock()
	defer diskMu.Unlock()
	if dir == "" {
		disk = nil
		return
	}
	if maxBytes <= 0 {
		maxBytes = DefaultDecodedCacheBytes
	}
	disk = &diskCache{dir: dir, maxBytes: maxBytes}
}

func currentDisk() *diskCache {
	diskMu.RLock()
	defer diskMu.RUnlock()
	return disk
}

// buildID identifies the code that decodes: the binary's module versions
// and VCS stamp, and its size and modification time (so a rebuilt binary,
// a development build included, never reads another build's entries).
var buildID = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteString("crd-lsp decoded cache v1\n")
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.WriteString(bi.String())
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(&b, "\n%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
})

func diskKey(kind defKind, text []byte) string {
	h := sha256.New()
	h.Write([]byte(buildID()))
	h.Write([]byte{0, byte(kind), 0})
	h.Write(text)
	return hex.EncodeToString(h.Sum(nil))
}

// decodedEntry is what one definition document decodes to, per role.
type decodedEntry struct {
	crds map[role]*apiextensionsv1.CustomResourceDefinition
	errs map[role]error
	// pb: each CRD's protobuf record (set by decodeEntry).
	pb map[role][]byte
}

const entryMagic = "crd-lsp decoded 2\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeEntry lays an entry's payload out (framed with its key by
// frameEntry): a sequence of records: role (1 byte), tag (1 byte: 'c' a
// CRD's protobuf, 'e' an error's message), length (4 bytes), bytes.
func encodeEntry(e *decodedEntry) ([]byte, error) {
	var payload []byte
	rec := func(r role, tag byte, data []byte) {
		payload = append(payload, byte(r), tag)
		payload = binary.BigEndian.AppendUint32(payload, uint32(len(data)))
		payload = append(payload, data...)
	}
	for _, r := range []role{roleMain, roleClaim} {
		if crd := e.crds[r]; crd != nil {
			pb, err := crd.Marshal()
			if err != nil {
				return nil, err
			}
			rec(r, 'c', pb)
		}
		if err := e.errs[r]; err != nil {
			rec(r, 'e', []byte(err.Error()))
		}
	}
	return payload, nil
}

var errCorrupt = errors.New("corrupt decoded cache entry")

func decodeEntry(payload []byte) (*decodedEntry, error) {
	e := &decodedEntry{crds: map[role]*apiextensionsv1.CustomResourceDefinition{}, errs: map[role]error{}, pb: map[role][]byte{}}
	for len(payload) > 0 {
		if len(payload) < 6 {
			return nil, errCorrupt
		}
		r, tag, l := role(payload[0]), payload[1], binary.BigEndian.Uint32(payload[2:])
		payload = payload[6:]
		if uint64(l) > uint64(len(payload)) || (r != roleMain && r != roleClaim) {
			return nil, errCorrupt
		}
		rec := payload[:l]
		payload = payload[l:]
		switch tag {
		case 'c':
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := crd.Unmarshal(rec); err != nil {
				return nil, errCorrupt
			}
			e.crds[r] = crd
			e.pb[r] = rec[:len(rec):len(rec)]
		case 'e':
			e.errs[r] = errors.New(string(rec))
		default:
			return nil, errCorrupt
		}
	}
	return e, nil
}

// normalize turns freshly decoded CRDs into protobuf and back, so what is
// used is what the cache gives a later run; it returns the entry's
// payload (nil when a CRD could not be encoded: then e is used as
// decoded and not cached).
func normalize(e *decodedEntry) []byte {
	enc, err := encodeEntry(e)
	if err != nil {
		return nil
	}
	d, err := decodeEntry(enc)
	if err != nil {
		return nil
	}
	*e = *d
	return enc
}

func (c *diskCache) path(key string) string { return filepath.Join(c.dir, key) }

// load returns the entry under key, or nil when there is none or it is
// corrupt.
func (c *diskCache) load(key string) *decodedEntry {
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	payload, ok := unframeEntry(key, data)
	if !ok {
		return nil
	}
	e, err := decodeEntry(payload)
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Hour {
		now := time.Now()
		_ = os.Chtimes(p, now, now) // recently used: evicted last
	}
	return e
}

// store writes payload under key, framed (a temporary file renamed into
// place), then keeps the folder within its bound.
func (c *diskCache) store(key string, payload []byte) {
	enc := frameEntry(key, payload)
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(enc)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), c.path(key)) != nil {
		os.Remove(f.Name())
		return
	}
	c.mu.Lock()
	c.written += int64(len(enc))
	scan := !c.scanned || c.written > c.maxBytes/8
	if scan {
		c.scanned, c.written = true, 0
	}
	c.mu.Unlock()
	if scan {
		c.evict()
	}
}

// evict removes the least recently used entries past the bound (down to
// 90% of it) and temporary files left by a process that stopped mid-write.
func (c *diskCache) evict() {
	unlock, err := flock.Lock(filepath.Join(c.dir, ".lock"))
	if err != nil {
		return
	}
	defer unlock()
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		size int64
		mod  time.Time
	}
	var entries []entry
	var total int64
	for _, de := range des {
		name := de.Name()
		if name == ".lock" || de.IsDir() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(name, ".tmp-") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(c.dir, name))
			}
			continue
		}
		entries = append(entries, entry{name, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if total <= c.maxBytes {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, e := range entries {
		if total <= c.maxBytes*9/10 {
			break
		}
		if os.Remove(filepath.Join(c.dir, e.name)) == nil {
			total -= e.size
		}
	}
}

// decodeDefinition decodes a definition document's text, through the
// decoded cache when one is set.
func decodeDefinition(kind defKind, text []byte) *decodedEntry {
	c := currentDisk()
	var key string
	if c != nil {
		key = diskKey(kind, text)
		if e := c.load(key); e != nil {
			return e
		}
	}
	e := decodeText(kind, text)
	if enc := normalize(e); enc != nil && c != nil {
		c.store(key, enc)
	}
	return e
}

// CacheKey names an entry of the decoded cache that callers keep there
// (the loader's index of a schema folder): the SHA-256 of the build
// identity and parts. It is "" when the cache is off.
func CacheKey(parts ...string) string {
	if currentDisk() == nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(buildID()))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return "x" + hex.EncodeToString(h.Sum(nil))
}

// LoadCached returns what StoreCached kept under key, or nil when there is
// nothing whole there (or the cache is off).
func LoadCached(key string) []byte {
	c := currentDisk()
	if c == nil || key == "" {
		return nil
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	payload, ok := unframeEntry(key, data)
	if !ok {
		return nil
	}
	return payload
}

// StoreCached keeps data under key in the decoded cache (atomically,
// checksummed, within the cache's bound).
func StoreCached(key string, data []byte) {
	if c := currentDisk(); c != nil && key != "" {
		c.store(key, data)
	}
}

// frameEntry and unframeEntry wrap a payload as entries are: magic,
// length (8 bytes), CRC-32C (4 bytes) of the entry's key then the payload,
// payload. The key in the checksum makes an entry valid under its own
// name only: one copied or renamed from another input's (a file synced
// or restored in the wrong place, a folder filled by hand) is ignored as
// corrupt and written again, never served for the wrong definition.
func frameEntry(key string, payload []byte) []byte {
	out := make([]byte, 0, len(entryMagic)+12+len(payload))
	out = append(out, entryMagic...)
	out = binary.BigEndian.AppendUint64(out, uint64(len(payload)))
	out = binary.BigEndian.AppendUint32(out, entrySum(key, payload))
	return append(out, payload...)
}

func entrySum(key string, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum([]byte(key), castagnoli), castagnoli, payload)
}

func unframeEntry(key string, data []byte) ([]byte, bool) {
	if len(data) < len(entryMagic)+12 || string(data[:len(entryMagic)]) != entryMagic {
		return nil, false
	}
	data = data[len(entryMagic):]
	n, sum := binary.BigEndian.Uint64(data), binary.BigEndian.Uint32(data[8:])
	payload := data[12:]
	if uint64(len(payload)) != n || entrySum(key, payload) != sum {
		return nil, false
	}
	return payload, true
}
