package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// maxTemplateFiles bounds the files of one FileSystem template folder.
const maxTemplateFiles = 1000

// templateFiles reads a function-go-templating FileSystem source's folder
// for a Composition of the file at path: dirPath relative to that file's
// folder, or absolute, and in either case inside one of the World's
// roots (nothing outside the workspace is read). It is the one place a
// World reads the disk for analysis, when asked, through
// workspace.ReadFile: regular files only, hidden folders skipped (the
// function skips them), the total bounded by gotemplate's template limit.
func (w *World) templateFiles(path string) func(dir string) ([]gotemplating.File, error) {
	roots := w.cfg.Roots
	return func(dir string) ([]gotemplating.File, error) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(path), dir)
		}
		dir, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		inside := false
		for _, r := range roots {
			abs, err := filepath.Abs(r)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(abs, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside {
			return nil, fmt.Errorf("%s is not in the workspace", dir)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder of the workspace", dir)
		}
		var out []gotemplating.File
		total := 0
		errStop := errors.New("stop")
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || !d.Type().IsRegular() {
				return nil
			}
			if len(out) >= maxTemplateFiles || total > gotemplating.MaxTemplateSize {
				return errStop
			}
			b, err := workspace.ReadFile(p, int64(gotemplating.MaxTemplateSize+1-total))
			if err != nil {
				return err
			}
			total += len(b)
			rel, _ := filepath.Rel(dir, p)
			out = append(out, gotemplating.File{Path: filepath.ToSlash(rel), Text: string(b)})
			return nil
		})
		if errors.Is(err, errStop) {
			return nil, fmt.Errorf("%s holds more than %d files or %d bytes of templates", dir, maxTemplateFiles, gotemplating.MaxTemplateSize)
		}
		return out, err
	}
}
