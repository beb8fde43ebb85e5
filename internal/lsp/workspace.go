// This file defines the workspace notifications: folders, watched files and
// configuration, and the (re)loading of the schema store they drive.

package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

func (s *server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	for _, r := range params.Event.Removed {
		kept := s.folders[:0]
		for _, f := range s.folders {
			if f.uri != r.URI {
				kept = append(kept, f)
			}
		}
		s.folders = kept
	}
	for _, a := range params.Event.Added {
		s.folders = appendFolder(s.folders, a.URI)
	}
	s.mu.Unlock()
	s.goBackground(func(ctx context.Context) { s.reloadSchemas(ctx) })
	return nil
}

func (s *server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	pull := s.caps.configuration
	s.mu.Unlock()
	if pull {
		s.goBackground(func(ctx context.Context) { s.pullConfiguration(ctx) })
		return nil
	}
	if len(params.Settings) > 0 {
		set, err := parseSettings(params.Settings)
		if err != nil {
			s.log.Warn("ignoring didChangeConfiguration settings", "error", err)
			return nil
		}
		s.applySettings(set)
	}
	return nil
}

// pullConfiguration asks the client for the crdLsp section.
func (s *server) pullConfiguration(ctx context.Context) {
	section := "crdLsp"
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil {
		s.log.Warn("workspace/configuration failed", "error", err)
		return
	}
	if len(res) == 0 || len(res[0]) == 0 || string(res[0]) == "null" {
		return // the client has no crdLsp settings; keep initializationOptions
	}
	set, err := parseSettings(res[0])
	if err != nil {
		s.log.Warn("ignoring crdLsp configuration", "error", err)
		s.showMessage(protocol.MessageTypeWarning, "crd-lsp: "+err.Error())
		return
	}
	s.applySettings(set)
}

func (s *server) applySettings(set Settings) {
	s.mu.Lock()
	old := s.settings
	s.settings = set
	s.changedLocked()
	s.mu.Unlock()
	s.log.Info("settings applied", "crossplaneVersion", set.CrossplaneVersion, "unknownKind", set.Validation.UnknownKind)
	if old.documentLimits() != set.documentLimits() {
		s.goBackground(s.reparseOpen)
	}
	if old.CrossplaneVersion != set.CrossplaneVersion || !equalStrings(old.Schemas.Include, set.Schemas.Include) ||
		!equalStrings(old.Schemas.Exclude, set.Schemas.Exclude) || old.Schemas.MaxFileSize != set.Schemas.MaxFileSize ||
		!equalStrings(old.SchemaCatalogs, set.SchemaCatalogs) || old.SchemaCatalogRefresh != set.SchemaCatalogRefresh ||
		!equalStrings(old.CRDSources, set.CRDSources) {
		s.goBackground(func(ctx context.Context) { s.reloadSchemas(ctx) })
		return
	}
	s.diag.scheduleAll()
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// registerWatchers asks the client to report changes to YAML files made
// outside the editor.
func (s *server) registerWatchers(ctx context.Context) {
	opts := protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{
		{GlobPattern: protocol.Pattern("**/*.{yaml,yml}")},
	}}
	raw, err := protocol.Marshal(&opts)
	if err != nil {
		s.log.Error("marshal watcher registration", "error", err)
		return
	}
	err = s.client.RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:              "crd-lsp-watch-yaml",
		Method:          protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: raw,
	}}})
	if err != nil {
		s.log.Warn("client/registerCapability for file watching failed", "error", err)
	}
}

func (s *server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	type change struct {
		uri     uri.URI
		path    string
		deleted bool
		content []byte
		problem *fileProblem
	}
	var todo []change
	var goneDirs []string
	rescan := false
	s.mu.Lock()
	limit := s.settings.Schemas.MaxFileSize
	for _, ev := range params.Changes {
		p := ev.URI.FsPath()
		if p == "" || !s.inWorkspaceLocked(p) {
			continue
		}
		deleted := ev.Type == protocol.FileChangeTypeDeleted
		if !workspace.IsYAML(p) {
			// Editors report a folder deleted, moved or copied in as the
			// folder alone: what it held goes, or is scanned.
			if deleted {
				goneDirs = append(goneDirs, p)
			} else if info, err := os.Stat(p); err == nil && info.IsDir() {
				rescan = true
			}
			continue
		}
		todo = append(todo, change{uri: ev.URI, path: p, deleted: deleted})
	}
	for _, dir := range goneDirs {
		var gone []string
		if s.world != nil {
			gone = s.world.PathsUnder(dir)
		}
		for p := range s.fileProblems {
			if workspace.IsUnder(dir, p) {
				gone = append(gone, p)
			}
		}
		for _, p := range gone {
			todo = append(todo, change{uri: uri.File(p), path: p, deleted: true})
		}
	}
	s.mu.Unlock()
	if rescan {
		s.goBackground(func(ctx context.Context) { s.reloadSchemas(ctx) })
	}
	// Read without holding the session: what the scan would not read (a
	// pipe, a device, a file over crdLsp.schemas.maxFileSize) is not read
	// here either.
	for i, c := range todo {
		if c.deleted {
			continue
		}
		b, err := workspace.ReadFile(c.path, limit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Info("not reading changed file", "file", c.path, "reason", err)
			pr := problemFor(c.path, err)
			todo[i].problem = &pr
		}
		todo[i].content = b
	}
	changed, metaChanged := false, false
	var problemsChanged []string
	var files []workspace.File
	s.mu.Lock()
	for _, c := range todo {
		if s.setFileProblemLocked(c.path, c.problem) {
			problemsChanged = append(problemsChanged, c.path)
		}
		if _, open := s.open[c.uri]; open || s.world == nil {
			continue // the buffer wins while the file is open; a load under way reads the disk
		}
		files = append(files, workspace.File{Path: c.path, Content: c.content})
		metaChanged = metaChanged || packages.IsMetaFile(c.path)
	}
	if len(files) > 0 {
		// One new World for the whole batch (a branch switch reports
		// hundreds of files).
		gen, before := s.world.SchemaGen(), s.world
		s.world = s.world.WithDiskFiles(files, limit)
		s.changedLocked()
		changed = s.world.SchemaGen() != gen || functionsChanged(before, s.world)
		if s.world != before {
			s.catalogsNeededLocked()
		}
	}
	s.mu.Unlock()
	s.publishFileProblems(problemsChanged)
	if metaChanged {
		// Its dependencies may have changed too.
		s.goBackground(s.refreshPackages)
	}
	if changed {
		s.diag.scheduleAll()
	}
	return nil
}

// testLoadHook, when set (by tests), runs in every load after the disk is
// read, before the World is served.
var testLoadHook atomic.Pointer[func()]

// reloadSchemas loads the workspace from scratch (internal/loader):
// built-ins for the Crossplane version each file targets, every schema
// file, package metadata and example object under the workspace folders,
// the cached packages (indexed here, outside the session's lock), and open
// buffers over their disk copies. A newer reload supersedes an older one
// still running.
func (s *server) reloadSchemas(ctx context.Context) {
	s.mu.Lock()
	s.scanGen++
	gen := s.scanGen
	var roots []string
	for _, f := range s.folders {
		if info, err := os.Stat(f.path); err != nil || !info.IsDir() {
			s.log.Warn("not scanning workspace folder", "folder", f.path, "error", err)
			continue
		}
		roots = append(roots, f.path)
	}
	set := s.settings
	s.mu.Unlock()

	w, _, skipped, err := loader.Load(ctx, set.loaderConfig(roots))
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.log.Error("loading the workspace", "error", err)
		s.showMessage(protocol.MessageTypeError, "crd-lsp: "+err.Error())
		if w, _, _, err = loader.Load(ctx, set.loaderConfig(nil)); err != nil {
			return
		}
	}
	problems := map[string]fileProblem{}
	for _, sk := range skipped {
		s.log.Info("skipped while scanning", "file", sk.Path, "reason", sk.Reason)
		if workspace.IsYAML(sk.Path) && sk.Err != nil {
			problems[sk.Path] = problemFor(sk.Path, sk.Err)
		}
	}
	if hook := testLoadHook.Load(); hook != nil {
		(*hook)()
	}
	pkgFiles, pkgResults := s.loadCachedPackages(w.Metas(), set)
	w = w.WithPackages(pkgResults, pkgFiles)
	w = s.cachedCRDSources(w, set)
	w.Warm() // not under s.mu: with a large package, listing the kinds takes a while
	major, from := 0, "the default"
	if len(roots) > 0 {
		major, from = w.MajorOf(filepath.Join(roots[0], "crossplane.yaml"))
	} else {
		major, from = w.MajorOf("")
	}
	kinds := len(w.Store(major).Kinds())
	s.mu.Lock()
	if gen != s.scanGen {
		s.mu.Unlock()
		return
	}
	s.pkgs.refreshed = false
	for u, f := range s.open {
		if p := u.FsPath(); p != "" && workspace.IsYAML(p) {
			w = w.WithFile(p, bufferText(f))
		}
	}
	s.world = w
	s.changedLocked()
	s.catalogsNeededLocked()
	problemsChanged := s.replaceFileProblemsLocked(problems)
	s.mu.Unlock()
	s.publishFileProblems(problemsChanged)
	s.diag.scheduleAll()
	s.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("schemas loaded: %d kinds (Crossplane v%d, from %s; %d schema files in the workspace, %d packages from the cache)", kinds, major, from, w.SchemaFiles(), len(pkgFiles)))
	// Then ask the registries, without holding anything up.
	s.goBackground(s.refreshPackages)
	if len(set.CRDSources) > 0 {
		s.goBackground(s.refreshCRDSources)
	}
}
