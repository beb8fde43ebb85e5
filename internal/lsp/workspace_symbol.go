// This file defines workspace/symbol.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// maxSymbolFiles bounds how many workspace files one workspace/symbol
// request reads (those the World's index says hold objects).
const maxSymbolFiles = 5000

func (s *server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	sn := s.snapshot("")
	w, enc, set := sn.world, sn.enc, sn.settings
	open := map[string]*document.File{}
	for u, f := range sn.open {
		open[filePath(u)] = f
	}
	// Kinds are listed from the store of files no crossplane.yaml pins.
	env := sn.envFor("")

	var files []*document.File
	for _, f := range open {
		files = append(files, f)
	}
	// The World's file index lists the workspace's files holding objects
	// (everywhere the scan goes: crdLsp.schemas.include and exclude limit
	// only where CRDs are searched); only those are read, no folder is
	// walked.
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
			content, err := workspace.ReadFile(p, set.Schemas.MaxFileSize)
			if err != nil {
				continue // gone or grown since the World indexed it
			}
			files = append(files, document.Parse(string(uri.File(p)), 0, content))
		}
	}
	syms := analysis.WorkspaceSymbols(ctx, params.Query, env, files, sn.readFile)
	out := protocol.SymbolInformationSlice{}
	for _, sym := range syms {
		kind := protocol.SymbolKindObject
		if sym.DefinesKind {
			kind = protocol.SymbolKindClass
		}
		u := sn.locationURI(sym.Location.File)
		detail := sym.Detail
		out = append(out, protocol.SymbolInformation{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: sym.Name, Kind: kind, ContainerName: &detail},
			Location:              protocol.Location{URI: u, Range: toProtocolRange(sym.Location.File, sym.Location.Span, enc)},
		})
	}
	return out, nil
}
