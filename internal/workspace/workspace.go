// Package workspace finds the YAML files of a workspace folder: the files
// that may define schemas (CRDs, XRDs, MRDs) and the files a check run
// validates. It is the only place that walks directories.
//
// Invariants: read-only (never writes user files); skips .git, node_modules,
// vendor and hidden folders; honours include/exclude globs relative to the
// folder; every file is read through ReadFile: files above the size limit,
// pipes and devices are reported, never read.
package workspace

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Options limit a scan.
type Options struct {
	Include     []string // globs relative to the root; empty means every YAML file
	Exclude     []string // globs relative to the root
	MaxFileSize int64    // 0 means no limit
}

// File is one YAML file found by a scan.
type File struct {
	Path    string
	Content []byte
}

// Skipped names a file left out and why, so callers can log it or say so
// on the file.
type Skipped struct {
	Path   string
	Reason string
	Err    error // a *FileError, or the os package's error
}

// IsYAML reports whether name has a .yaml or .yml extension, or is a
// kustomization file kustomize reads without one ("Kustomization").
func IsYAML(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml" || filepath.Base(name) == "Kustomization"
}

// MayDefineSchemas is a cheap pre-filter: content that cannot define a CRD,
// XRD or MRD is not worth indexing.
func MayDefineSchemas(content []byte) bool {
	return bytes.Contains(content, []byte("CustomResourceDefinition")) ||
		bytes.Contains(content, []byte("CompositeResourceDefinition")) ||
		bytes.Contains(content, []byte("ManagedResourceDefinition"))
}

func skipDir(name string) bool {
	return name == "node_modules" || name == "vendor" || (strings.HasPrefix(name, ".") && name != "." && name != "..")
}

// Scan walks root and returns its YAML files (content read when keep
// returns true for the path and size, else Content is nil), sorted by path.
func Scan(ctx context.Context, root string, opts Options, keep func(path string, content []byte) bool) ([]File, []Skipped, error) {
	var files []File
	skipped, err := walk(ctx, root, opts, nil, nil, func(p string, content []byte) {
		if keep == nil || keep(p, content) {
			files = append(files, File{Path: p, Content: content})
		}
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skipped, err
}

// ScanTransient walks root like Scan and hands each YAML file's content to
// visit, in walk order, reading every file into one reused buffer: the
// content is valid only during the call (visit copies what it keeps). A
// large folder then costs the largest file, not the sum.
func ScanTransient(ctx context.Context, root string, opts Options, visit func(path string, content []byte)) ([]Skipped, error) {
	return walk(ctx, root, opts, []byte{}, nil, visit)
}

// ScanTransientKnown is ScanTransient, except that a file for which known
// returns true, given its size and modification time (links followed), is
// neither read nor visited: the caller has what it needs of it already.
func ScanTransientKnown(ctx context.Context, root string, opts Options, known func(path string, size int64, mod time.Time) bool, visit func(path string, content []byte)) ([]Skipped, error) {
	return walk(ctx, root, opts, []byte{}, known, visit)
}

// walk visits root's YAML files; buf non-nil reads them into it; known
// (optional) skips files the caller knows.
func walk(ctx context.Context, root string, opts Options, buf []byte, known func(string, int64, time.Time) bool, visit func(path string, content []byte)) ([]Skipped, error) {
	var skipped []Skipped
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			skipped = append(skipped, Skipped{Path: p, Reason: err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !IsYAML(p) || !Matches(root, p, opts) {
			return nil
		}
		if known != nil {
			var info fs.FileInfo
			var err error
			if d.Type().IsRegular() {
				info, err = d.Info()
			} else {
				info, err = os.Stat(p)
			}
			if err == nil && info.Mode().IsRegular() && known(p, info.Size(), info.ModTime()) {
				return nil
			}
		}
		// Links are followed to regular files; pipes, devices and files
		// over the limit are reported, never read.
		content, err := readFile(p, opts.MaxFileSize, buf, d.Type().IsRegular())
		if err == nil && buf != nil {
			buf = content
		}
		if err != nil {
			reason := err.Error()
			if fe, ok := IsFileError(err); ok {
				reason = fe.Reason
			} else if pe, ok := err.(*fs.PathError); ok {
				reason = pe.Err.Error()
			}
			skipped = append(skipped, Skipped{Path: p, Reason: reason, Err: err})
			return nil
		}
		visit(p, content)
		return nil
	})
	return skipped, err
}

// Matches applies the include/exclude globs to p, a path under root. Globs
// use path.Match syntax per segment plus "**" for any number of segments.
func Matches(root, p string, opts Options) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = p
	}
	rel = filepath.ToSlash(rel)
	for _, g := range opts.Exclude {
		if Glob(g, rel) {
			return false
		}
	}
	if len(opts.Include) == 0 {
		return true
	}
	for _, g := range opts.Include {
		if Glob(g, rel) {
			return true
		}
	}
	return false
}

// Glob matches a slash-separated name against pattern, where "**" matches
// zero or more whole segments and other segments follow path.Match.
//
// Settings come from the repository being edited, so the matching must not
// blow up on patterns like "**/**/**/…/x": it runs in time proportional to
// the number of pattern segments times the number of name segments (a
// set of pattern positions is carried along the name, never a search tree).
func Glob(pattern, name string) bool {
	pat := strings.Split(pattern, "/")
	at := make([]bool, len(pat)+1) // at[i]: pat[:i] matches the name so far
	next := make([]bool, len(pat)+1)
	at[0] = true
	globsAcross(pat, at)
	for _, seg := range strings.Split(name, "/") {
		clear(next)
		alive := false
		for i, p := range pat {
			if !at[i] {
				continue
			}
			if p == "**" {
				next[i], alive = true, true // "**" takes this segment and may take more
				continue
			}
			if ok, err := path.Match(p, seg); err == nil && ok {
				next[i+1], alive = true, true
			}
		}
		if !alive {
			return false
		}
		globsAcross(pat, next)
		at, next = next, at
	}
	return at[len(pat)]
}

// globsAcross lets each "**" match zero segments: a position before one is
// also a position after it.
func globsAcross(pat []string, at []bool) {
	for i, p := range pat {
		if at[i] && p == "**" {
			at[i+1] = true
		}
	}
}

// Header is a document's apiVersion and kind.
type Header struct{ APIVersion, Kind string }

// Headers reads the top-level apiVersion and kind of each YAML document
// with a line scan (no parse): enough to index a workspace's objects by
// kind. Documents without both are left out.
func Headers(content []byte) []Header {
	var out []Header
	var cur Header
	flush := func() {
		if cur.APIVersion != "" && cur.Kind != "" {
			out = append(out, cur)
		}
		cur = Header{}
	}
	for rest := content; len(rest) > 0; {
		// Line by line without splitting: a large file costs no slice of
		// its lines.
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		if len(line) == 0 || (line[0] != '-' && line[0] != 'a' && line[0] != 'k') {
			continue
		}
		line = bytes.TrimRight(line, "\r")
		switch {
		case bytes.HasPrefix(line, []byte("---")):
			flush()
		case bytes.HasPrefix(line, []byte("apiVersion:")):
			cur.APIVersion = scalar(line[len("apiVersion:"):])
		case bytes.HasPrefix(line, []byte("kind:")):
			cur.Kind = scalar(line[len("kind:"):])
		}
	}
	flush()
	return out
}

func scalar(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.Trim(s, `"'`)
}

// IsUnder reports whether p is root or a path below it.
func IsUnder(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
