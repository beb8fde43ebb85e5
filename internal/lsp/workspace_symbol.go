// This file defines workspace/symbol.

package lsp

import (
	"context"
	"os"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// maxSymbolFiles bounds how many workspace files one workspace/symbol
// request searches for objects (those the World's index says hold
// objects).
const maxSymbolFiles = 5000

func (s *server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	sn := s.snapshot("")
	w, enc, set := sn.world, sn.enc, sn.settings
	// Kinds are listed from the store of files no crossplane.yaml pins.
	env := sn.envFor("")
	// ranges converts a symbol's span to the range the client gets, by
	// the file it was found in (FileSymbols.File); uris gives its URI.
	ranges := map[string]func(document.Span) protocol.Range{}
	uris := map[string]uri.URI{}
	fromBuffer := func(f *document.File) analysis.FileSymbols {
		fs := analysis.SymbolsOfFile(f)
		ranges[fs.File] = func(sp document.Span) protocol.Range { return toProtocolRange(f, sp, enc) }
		uris[fs.File] = fileURI(f)
		return fs
	}
	// fromDisk gives a file's symbols from the cache, as of one stat per
	// request (a file both holding objects and defining kinds is one
	// entry).
	gen := sn.symbols.begin()
	entries := map[string]*symbolEntry{}
	fromDisk := func(path string, read func(string) ([]byte, error)) (analysis.FileSymbols, bool) {
		e, ok := entries[path]
		if !ok {
			e, _ = sn.symbols.get(path, read, enc, gen)
			entries[path] = e
		}
		if e == nil {
			return analysis.FileSymbols{}, false
		}
		ranges[e.syms.File] = func(sp document.Span) protocol.Range { return e.ranges[sp] }
		uris[e.syms.File] = pathURI(e.syms.File)
		return e.syms, true
	}

	// Open buffers always win over their files on disk.
	open := map[string]*document.File{}
	var openPaths []string
	for u, f := range sn.open {
		p := filePath(u)
		open[p] = f
		openPaths = append(openPaths, p)
	}
	sort.Strings(openPaths)
	var files []analysis.FileSymbols
	for _, p := range openPaths {
		files = append(files, fromBuffer(open[p]))
	}
	// The World's file index lists the workspace's files holding objects
	// (everywhere the scan goes: crdLsp.schemas.include and exclude limit
	// only where CRDs are searched); only those are searched, no folder
	// is walked. Each is stat'ed, and read and parsed only when it is not
	// in the cache as of its size and modification time.
	readDisk := func(p string) ([]byte, error) { return workspace.ReadFile(p, set.Schemas.MaxFileSize) }
	seen := map[string]bool{}
	for _, root := range sn.roots {
		if w == nil {
			break
		}
		for _, p := range w.PathsUnder(root) {
			if len(files) >= maxSymbolFiles || ctx.Err() != nil {
				break
			}
			if seen[p] || open[p] != nil {
				continue
			}
			seen[p] = true
			if fs, ok := fromDisk(p, readDisk); ok {
				files = append(files, fs)
			} // else gone or grown since the World indexed it
		}
	}
	// A kind's definition is read as snapshot.readFile reads it: an open
	// buffer, a cached package's package.yaml, or the disk.
	kindsIn := func(path string) (analysis.FileSymbols, bool) {
		if _, f, ok := openAt(sn.open, path); ok {
			if _, skipped := f.NotParsed(); skipped {
				return analysis.FileSymbols{}, false
			}
			return fromBuffer(f), true
		}
		real, read := path, readDisk
		if file, ok := packageFile(w, path); ok {
			real, read = file, os.ReadFile
		}
		return fromDisk(real, read)
	}
	syms := analysis.WorkspaceSymbols(ctx, params.Query, env, files, kindsIn)
	out := protocol.SymbolInformationSlice{}
	for _, sym := range syms {
		kind := protocol.SymbolKindObject
		if sym.DefinesKind {
			kind = protocol.SymbolKindClass
		}
		detail := sym.Detail
		out = append(out, protocol.SymbolInformation{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: sym.Name, Kind: kind, ContainerName: &detail},
			Location:              protocol.Location{URI: uris[sym.File], Range: ranges[sym.File](sym.Span)},
		})
	}
	return out, nil
}
