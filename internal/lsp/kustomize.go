// This file is what the server asks of the workspace's kustomizations
// (internal/overlays): the snapshot's view of them, with open buffers in
// place of their disk copies, and how their findings are worded.

package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/overlays"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// kustomizeOn reports whether kustomizations are built
// (crdLsp.kustomize.build, default true).
func (s Settings) kustomizeOn() bool { return s.Kustomize.Build == nil || *s.Kustomize.Build }

// helm is the helm program builds inflate helmCharts with
// (crdLsp.kustomize.enableHelm, .helmCommand: a name on PATH, or a path:
// ~/…, absolute or relative to a workspace folder), "" when not asked.
func (s Settings) helm(roots []string) string {
	c := s.Kustomize.HelmCommand
	switch {
	case !s.Kustomize.EnableHelm:
		return ""
	case c == "":
		return "helm"
	case strings.ContainsAny(c, `/\`) || strings.HasPrefix(c, "~"):
		return resolvePath(c, roots)
	}
	return c
}

// overlayRequest is the snapshot's view of the workspace for
// overlays.Builder.Run: the open buffers' texts over the disk, reads
// confined to the workspace folders, each built object diagnosed with the
// Env its file would get (the function pipeline included when the
// snapshot carries one), kustomizations named by their folder relative to
// the workspace folder.
func (sn snapshot) overlayRequest() overlays.Request {
	texts := make(map[string][]byte, len(sn.open))
	for u, f := range sn.open {
		if p := filePath(u); p != "" && f != nil {
			if _, skipped := f.NotParsed(); !skipped {
				texts[p] = f.Text
			}
		}
	}
	var named []string
	for _, p := range sn.settings.Kustomize.Paths {
		if p != "" {
			named = append(named, resolvePath(p, sn.roots))
		}
	}
	roots := sn.roots
	return overlays.Request{
		World:       sn.world,
		Texts:       texts,
		Within:      roots,
		MaxFileSize: sn.settings.MaxFileSize,
		Settings:    overlays.Settings{Off: !sn.settings.kustomizeOn(), Named: named, AllowRemote: sn.settings.Kustomize.AllowRemote, Helm: sn.settings.helm(sn.roots)},
		Env:         sn.envFor,
		// What Env gives besides the World: the analysis settings and
		// the function runner.
		EnvKey: envKey{world: sn.world, pipeline: sn.pipeline, settings: fmt.Sprint(sn.settings.analysis())},
		Name: func(k string) string {
			dir := filepath.Dir(k)
			for _, r := range roots {
				if workspace.IsUnder(r, dir) {
					rel, err := filepath.Rel(r, dir)
					if err == nil && rel != "." {
						return filepath.ToSlash(rel)
					}
					return filepath.Base(dir)
				}
			}
			return dir
		},
	}
}

// envKey identifies what an overlayRequest's Env gives.
type envKey struct {
	world    any
	pipeline analysis.Pipeline
	settings string
}

// withOverlays merges what the kustomizations that read the snapshot's
// file build into its findings (overlays.Result.Merge), and names the
// other open files those builds read when they were built anew (their
// findings may have changed too). ok is false when ctx was cancelled.
func (d *diagnoser) withOverlays(ctx context.Context, sn snapshot, found []analysis.Diagnostic) ([]analysis.Diagnostic, []uri.URI, bool) {
	path := sn.path()
	if !sn.ready() || !sn.settings.kustomizeOn() || path == "" || document.IsURI(path) {
		return found, nil, true
	}
	res, rebuilt := d.overlays.Run(ctx, sn.overlayRequest(), path)
	if res == nil {
		return nil, nil, false
	}
	reads := map[string]bool{}
	for _, root := range rebuilt {
		for _, p := range res.Reads(root) {
			reads[p] = true
		}
	}
	var others []uri.URI
	if len(reads) > 0 {
		for u := range sn.open {
			if p := filePath(u); p != path && reads[p] {
				others = append(others, u)
			}
		}
	}
	return res.Merge(path, found), others, true
}
