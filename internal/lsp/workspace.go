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
	"slices"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/document"
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
		s.addFolderLocked(a.URI)
	}
	s.mu.Unlock()
	s.requestReload()
	return nil
}

func (s *server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	pull := s.caps.configuration
	s.mu.Unlock()
	if pull {
		s.goBackground(func(ctx context.Context) { s.pullConfiguration(ctx, false) })
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

// pullConfiguration asks the client for the crdLsp section (probe: a
// client that did not say it answers; its refusal is no problem).
func (s *server) pullConfiguration(ctx context.Context, probe bool) {
	section := "crdLsp"
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil {
		if probe {
			s.log.Debug("workspace/configuration not answered", "error", err)
			return
		}
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
	s.commitLocked(commit{settings: &set})
	s.mu.Unlock()
	s.log.Info("settings applied", "crossplaneVersion", set.CrossplaneVersion, "unknownKind", set.Validation.UnknownKind)
	if old.documentLimits() != set.documentLimits() {
		s.goBackground(s.reparseOpen)
	}
	if old.CrossplaneVersion != set.CrossplaneVersion || old.KubernetesVersion != set.KubernetesVersion || !equalStrings(old.Schemas.Include, set.Schemas.Include) ||
		!equalStrings(old.Schemas.Exclude, set.Schemas.Exclude) || !equalStrings(old.Schemas.Paths, set.Schemas.Paths) ||
		old.Schemas.MaxFileSize != set.Schemas.MaxFileSize ||
		!equalStrings(old.SchemaCatalogs, set.SchemaCatalogs) || old.SchemaCatalogRefresh != set.SchemaCatalogRefresh ||
		!equalStrings(old.CRDSources, set.CRDSources) || old.Cluster != set.Cluster {
		s.requestReload()
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

// kustomizeInputsGlob are the files besides YAML the client is asked to
// watch: what kustomize generators usually read.
const kustomizeInputsGlob = "**/*.{env,properties,txt,json,conf,cfg,ini,toml,sh,pem,crt,key}"

// registerWatchers asks the client to report changes to YAML files made
// outside the editor, and to the files kustomize generators usually read.
func (s *server) registerWatchers(ctx context.Context) {
	opts := protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{
		{GlobPattern: protocol.Pattern("**/*.{yaml,yml}")},
		{GlobPattern: protocol.Pattern("**/Kustomization")},
		// What kustomizations' generators usually read (envs, files):
		// a change builds the kustomizations that read it again.
		{GlobPattern: protocol.Pattern(kustomizeInputsGlob)},
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

// watched coalesces watched-file events: a notification only records
// them (the latest event per path wins), and one background worker reads
// the files and updates the World in batches, without holding the session
// while it reads or indexes. However many events a branch switch or a
// generator sends, and however fast, the read loop stays free (hover,
// shutdown and edits are answered), at most one batch is being read, and
// at most one is waiting.
type watched struct {
	mu      sync.Mutex
	pending map[string]watchEvent // by file path
	running bool
}

type watchEvent struct {
	uri     uri.URI
	deleted bool
}

// testWatchHook, when set (by tests), runs in the watch worker before it
// reads each batch, with the batch's size.
var testWatchHook atomic.Pointer[func(int)]

func (s *server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	s.watched.mu.Lock()
	defer s.watched.mu.Unlock()
	for _, ev := range params.Changes {
		p := filePath(ev.URI)
		if p == "" {
			continue
		}
		if s.watched.pending == nil {
			s.watched.pending = map[string]watchEvent{}
		}
		s.watched.pending[p] = watchEvent{uri: ev.URI, deleted: ev.Type == protocol.FileChangeTypeDeleted}
	}
	if len(s.watched.pending) == 0 || s.watched.running {
		return nil
	}
	s.watched.running = true
	s.goBackground(s.drainWatched)
	return nil
}

// drainWatched applies the pending watched-file events, batch after batch,
// until none are left.
func (s *server) drainWatched(ctx context.Context) {
	done := false
	defer func() {
		if !done { // a panic: the next event starts a worker again
			s.watched.mu.Lock()
			s.watched.running = false
			s.watched.mu.Unlock()
		}
	}()
	for {
		s.watched.mu.Lock()
		batch := s.watched.pending
		s.watched.pending = nil
		if len(batch) == 0 || ctx.Err() != nil {
			s.watched.running, done = false, true
			s.watched.mu.Unlock()
			return
		}
		s.watched.mu.Unlock()
		if hook := testWatchHook.Load(); hook != nil {
			(*hook)(len(batch))
		}
		s.applyWatched(ctx, batch)
	}
}

// watchedChange is one file a batch of watched-file events changes.
type watchedChange struct {
	uri     uri.URI
	path    string
	deleted bool
	content []byte
	problem *fileProblem
}

// applyWatched brings one batch of watched-file events into the World in
// one pass: which files change (planWatchedLocked), their text read
// without holding the session (readWatched), the files not read reported,
// and one new World for the batch, committed through the one writer.
func (s *server) applyWatched(ctx context.Context, batch map[string]watchEvent) {
	s.mu.Lock()
	limit := s.settings.Schemas.MaxFileSize
	todo, others := s.planWatchedLocked(batch)
	s.mu.Unlock()
	for _, p := range others {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			s.requestReload() // a folder copied or moved in: scan again
			break
		}
	}
	// A file that is no YAML (a generator's .env or .properties) a
	// kustomization build read changed, or went: the builds that read it
	// are stale (kustomize.go).
	var inputs []string
	for p := range batch {
		if !workspace.IsYAML(p) {
			inputs = append(inputs, p)
		}
	}
	if len(inputs) > 0 && s.diag.overlays.ReadAny(inputs) {
		s.diag.scheduleAll()
	}
	if !s.readWatched(ctx, todo, limit) {
		return
	}
	var problemsChanged []string
	s.mu.Lock()
	for _, c := range todo {
		if s.setFileProblemLocked(c.path, c.problem) {
			problemsChanged = append(problemsChanged, c.path)
		}
	}
	s.mu.Unlock()
	s.publishFileProblems(problemsChanged)

	// One new World for the whole batch (a branch switch reports
	// hundreds of files); an open buffer wins over its disk copy.
	metaChanged := false
	base, next := s.updateWorld(ctx, worldUpdate{
		build: func(base *loader.World, open map[uri.URI]*document.File) *loader.World {
			var files []workspace.File
			metaChanged = false
			for _, c := range todo {
				if _, isOpen := open[c.uri]; isOpen {
					continue
				}
				files = append(files, workspace.File{Path: c.path, Content: c.content})
				metaChanged = metaChanged || packages.IsMetaFile(c.path)
			}
			if len(files) == 0 {
				return nil
			}
			return base.WithDiskFiles(files, limit)
		},
		locked: func(_, _ *loader.World) { s.sourcesDueLocked(loader.KindsChanged) },
	})
	// A file a kustomization build read changed on disk: what the builds
	// say of the open files may have changed (kustomize.go).
	changedPaths := make([]string, len(todo))
	for i, c := range todo {
		changedPaths[i] = c.path
	}
	built := s.diag.overlays.ReadAny(changedPaths)
	if next == nil {
		if built {
			s.diag.scheduleAll()
		}
		return
	}
	changed := next.SchemaGen() != base.SchemaGen() || functionsChanged(base, next)
	if metaChanged {
		// Its dependencies may have changed too.
		s.mu.Lock()
		s.sourcesDueLocked(loader.MetaChanged)
		s.mu.Unlock()
	}
	if changed || built {
		s.diag.scheduleAll()
	}
}

// planWatchedLocked says which files of the workspace a batch changes:
// YAML files changed or deleted, and everything a deleted folder held
// (editors report a folder deleted, moved or copied in as the folder
// alone); others are the paths that may be folders copied in. s.mu is
// held.
func (s *server) planWatchedLocked(batch map[string]watchEvent) (todo []watchedChange, others []string) {
	var goneDirs []string
	for p, ev := range batch {
		if !s.inWorkspaceLocked(p) {
			continue
		}
		if !workspace.IsYAML(p) {
			if ev.deleted {
				goneDirs = append(goneDirs, p)
			} else {
				others = append(others, p)
			}
			continue
		}
		todo = append(todo, watchedChange{uri: ev.uri, path: p, deleted: ev.deleted})
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
			if _, dup := batch[p]; !dup {
				todo = append(todo, watchedChange{uri: pathURI(p), path: p, deleted: true})
			}
		}
	}
	return todo, others
}

// readWatched reads the changed files' text into todo, recording why a
// file is not read (the scan would not read it either: a pipe, a device, a
// file over crdLsp.schemas.maxFileSize). false: ctx ended.
func (s *server) readWatched(ctx context.Context, todo []watchedChange, limit int64) bool {
	for i, c := range todo {
		if ctx.Err() != nil {
			return false
		}
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
	return true
}

// reloads coalesces workspace loads: at most one runs at a time, and the
// requests that arrive while it runs make one more load after it, however
// many they are (a client adding and removing folders in a loop must not
// pile up loads, each holding a workspace in memory).
type reloads struct {
	mu      sync.Mutex
	running bool
	again   bool
}

// requestReload loads the workspace again, in the background (see
// reloads).
func (s *server) requestReload() {
	s.reloads.mu.Lock()
	defer s.reloads.mu.Unlock()
	if s.reloads.running {
		s.reloads.again = true
		return
	}
	s.reloads.running = true
	s.goBackground(func(ctx context.Context) {
		done := false
		defer func() {
			if !done { // a panic: let the next request load again
				s.reloads.mu.Lock()
				s.reloads.running, s.reloads.again = false, false
				s.reloads.mu.Unlock()
			}
		}()
		for {
			s.reloadSchemas(ctx)
			s.reloads.mu.Lock()
			if !s.reloads.again || ctx.Err() != nil {
				s.reloads.running, s.reloads.again, done = false, false, true
				s.reloads.mu.Unlock()
				return
			}
			s.reloads.again = false
			s.reloads.mu.Unlock()
		}
	})
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
	folders := slices.Clone(s.folders)
	set := s.settings
	s.mu.Unlock()
	var roots []string
	for _, f := range folders { // (stat outside the lock: no disk IO under s.mu)
		if info, err := os.Stat(f.path); err != nil || !info.IsDir() {
			s.log.Warn("not scanning workspace folder", "folder", f.path, "error", err)
			continue
		}
		roots = append(roots, f.path)
	}

	dirs, missing := set.schemaDirs(roots)
	for _, m := range missing {
		s.log.Warn("crdLsp.schemas.paths names nothing", "path", m)
		s.showMessage(protocol.MessageTypeWarning, "crd-lsp: crdLsp.schemas.paths: "+m+" does not exist")
	}
	cfg := set.loaderConfig(roots, dirs)
	// Load serves the cached packages, indexed by this goroutine (not
	// under s.mu), with the server's index kept across loads.
	if c, err := s.pkgClient(set); err != nil {
		s.log.Warn("package cache unavailable", "error", err)
	} else {
		cfg.Packages, cfg.PackageIndex = c, s.pkgs.index
	}
	cfg.CatalogAsked = s.catalogAsked(set)
	w, _, skipped, err := loader.Load(ctx, cfg)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.log.Error("loading the workspace", "error", err)
		s.showMessage(protocol.MessageTypeError, "crd-lsp: "+err.Error())
		bare := cfg // the settings' sources without the folders
		bare.Roots, bare.SchemaDirs = nil, nil
		if w, _, _, err = loader.Load(ctx, bare); err != nil {
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
		if p := filePath(u); p != "" && workspace.IsYAML(p) {
			w = w.WithFile(p, bufferText(f))
		}
	}
	s.commitLocked(commit{world: w})
	s.sourcesDueLocked(loader.KindsChanged)
	problemsChanged := s.replaceFileProblemsLocked(problems)
	s.mu.Unlock()
	s.publishFileProblems(problemsChanged)
	s.kubernetesNote(w)
	s.diag.scheduleAll()
	s.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("schemas loaded: %d kinds (Crossplane v%d, from %s; %d schema files in the workspace, %d packages from the cache)", kinds, major, from, w.SchemaFiles(), len(w.Packages())))
	// Then fetch the sources (registries, CRD sources, the cluster),
	// without holding anything up.
	s.mu.Lock()
	s.sourcesDueLocked(loader.AfterLoad)
	s.mu.Unlock()
}
