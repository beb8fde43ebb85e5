package loader

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// A persistent index of each --schemas folder (issue 24), kept in the
// decoded schema cache when the binary turned it on: per YAML file, its
// size and modification time as seen before it was read, whether it may
// define schemas and what its definitions are (schemas.IndexPersisted).
// A later run reads and scans only files whose size or modification time
// changed, and new ones; a file changed behind an unchanged size and time
// is still caught when one of its schemas is first used (its definition's
// checksum), as "changed on disk since it was indexed".

type dirIndex struct {
	Files map[string]dirIndexFile `json:"files"`
}

type dirIndexFile struct {
	Size int64           `json:"size"`
	Mod  int64           `json:"mod"` // UnixNano
	May  bool            `json:"may,omitempty"`
	Defs json.RawMessage `json:"defs,omitempty"`
}

// loadSchemaDir indexes the schema files under dir into the World's file records, through
// the persistent index when there is one.
func (w *World) loadSchemaDir(ctx context.Context, dir string, limit int64) ([]workspace.Skipped, error) {
	opts := workspace.Options{MaxFileSize: limit}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	key := schemas.CacheKey("schema folder index", abs, strconv.FormatInt(limit, 10))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		key = "" // one file (or an error visitPath reports): no index
	}
	if key == "" {
		// No cache: each file is indexed as it is read (into one reused
		// buffer) and its content dropped.
		return visitPath(ctx, dir, opts, true, func(p string, c []byte) {
			if workspace.MayDefineSchemas(c) {
				in := indexFile(p, c, reopen(p, limit))
				w.files[p] = &fileFacts{schema: &in}
			}
		})
	}
	var old dirIndex
	if data := schemas.LoadCached(key); data != nil {
		_ = json.Unmarshal(data, &old) // a bad index is no index
	}
	fresh := dirIndex{Files: map[string]dirIndexFile{}}
	seen := map[string]dirIndexFile{} // size and time before reading
	known := func(p string, size int64, mod time.Time) bool {
		e, ok := old.Files[p]
		if !ok || e.Size != size || e.Mod != mod.UnixNano() {
			seen[p] = dirIndexFile{Size: size, Mod: mod.UnixNano()}
			return false
		}
		if e.May {
			ix, err := schemas.DecodeIndexed(workspace.Source(p), p, e.Defs, reopen(p, limit))
			if err != nil {
				seen[p] = dirIndexFile{Size: size, Mod: mod.UnixNano()}
				return false
			}
			w.files[p] = &fileFacts{schema: &schemas.FileInput{Source: workspace.Source(p), Path: p, Indexed: ix}}
		}
		fresh.Files[p] = e
		return true
	}
	read := 0
	skipped, err := workspace.ScanTransientKnown(ctx, dir, opts, known, func(p string, c []byte) {
		read++
		e, stat := seen[p]
		may := workspace.MayDefineSchemas(c)
		var defs []byte
		if may {
			in := schemas.FileInput{Source: workspace.Source(p), Path: p, Content: c, Open: reopen(p, limit)}
			in.Indexed, defs = schemas.IndexPersisted(in)
			in.Content, in.Open = nil, nil
			w.files[p] = &fileFacts{schema: &in}
		}
		if stat && e.Size == int64(len(c)) && (!may || defs != nil) {
			e.May, e.Defs = may, defs
			fresh.Files[p] = e
		}
	})
	if err != nil {
		return skipped, err
	}
	if read > 0 || len(fresh.Files) != len(old.Files) {
		if data, err := json.Marshal(fresh); err == nil {
			schemas.StoreCached(key, data)
		}
	}
	return skipped, nil
}
