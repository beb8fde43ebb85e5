// This file defines how the server runs real composition functions: it
// owns the functions.Registry that reaches them (built from the settings
// and the workspace's Development Functions, replaced when they change,
// closed on shutdown), and hands its Pipeline to the analyses that may wait
// for functions (diagnostics, the crdLsp.render command). Hover,
// completion and the other requests get an Env without it: they never
// wait for a function.

package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/loader"
)

// defaultFunctionTimeout is crdLsp.functionTimeout's default: shorter than
// check's, since a diagnosis waits for it (a keystroke cancels it sooner).
const defaultFunctionTimeout = 10 * time.Second

// fnRuntime owns the server's function registry. The current one serves
// new diagnoses; one replaced by a change of settings or workspace
// Functions is closed (its processes stopped) once the diagnoses that
// still use it end. close stops them all.
type fnRuntime struct {
	s *server

	mu sync.Mutex
	// built: cur was built for the state numbered seq, from these
	// settings and workspace Functions.
	built     bool
	seq       uint64
	settings  fnSettings
	workspace []functions.Function
	// sources: the functionsFiles (files and folders) and the files read
	// from them, as they were on disk when the registry was built.
	sources map[string]fileStamp
	cur     *fnHandle // nil: no function is configured
	retired []*fnHandle
	closed  bool
	closing sync.WaitGroup
	// warned: the warnings about functions from packages shown in a
	// popup, by text. A pull that keeps failing (tried again every 30 s)
	// or a package prepared again for a rebuilt registry says the same
	// thing again: to the log only.
	warned map[string]bool
}

// fnHandle is one Registry and the Pipeline over it, with the analyses
// using it.
type fnHandle struct {
	reg     *functions.Registry
	pipe    *functions.Pipeline
	users   int
	retired bool
	done    bool // closed
}

// fnSettings are the settings the registry is built from (comparable with
// reflect.DeepEqual), with relative paths resolved.
type fnSettings struct {
	Executables  map[string]string
	Files        []string
	UseWorkspace bool
	Timeout      time.Duration
	StartTimeout time.Duration
	PreferReal   bool
	Docker       bool
	AllowRemote  bool
	FromPackages bool
	// Packages keys the package client's settings (cache folder,
	// registries), which pull the packages FromPackages runs.
	Packages string
}

func (set Settings) functionSettings(roots []string) fnSettings {
	fs := fnSettings{
		Executables:  map[string]string{},
		UseWorkspace: set.WorkspaceFunctions != nil && *set.WorkspaceFunctions,
		Timeout:      seconds(set.FunctionTimeout, defaultFunctionTimeout),
		StartTimeout: seconds(set.FunctionStartTimeout, 0),
		PreferReal:   set.RealPatchAndTransform,
		Docker:       set.FunctionsDocker,
		AllowRemote:  set.AllowRemoteFunctions,
		FromPackages: set.FunctionsFromPackages,
	}
	if fs.FromPackages {
		fs.Packages = pkgClientKey(set)
	}
	for name, p := range set.Functions {
		if name != "" && p != "" {
			fs.Executables[name] = resolvePath(p, roots)
		}
	}
	for _, p := range set.FunctionsFiles {
		if p != "" {
			fs.Files = append(fs.Files, resolvePath(p, roots))
		}
	}
	return fs
}

func seconds(v float64, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return time.Duration(v * float64(time.Second))
}

// resolvePath expands a leading ~/ and resolves a relative path against
// the first workspace folder that holds it (else the first folder).
func resolvePath(p string, roots []string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) || len(roots) == 0 {
		return filepath.Clean(p)
	}
	for _, r := range roots {
		if _, err := os.Stat(filepath.Join(r, p)); err == nil {
			return filepath.Join(r, p)
		}
	}
	return filepath.Join(roots[0], p)
}

// workspaceFunctions are the world's Function objects (none before the
// workspace is loaded).
func workspaceFunctions(w *loader.World) []functions.Function {
	if w == nil {
		return nil
	}
	return w.Functions()
}

// functionsChanged says whether a world's Function objects differ from
// those of the world it was derived from: the registry is then rebuilt,
// and open Compositions are diagnosed again.
func functionsChanged(before, after *loader.World) bool {
	return before.FunctionsGen() != after.FunctionsGen()
}

// snapshotWithFunctions is snapshot with the function pipeline for
// analyses that may wait for functions; release ends the use (a replaced
// registry is closed when its last user releases it).
func (s *server) snapshotWithFunctions(u uri.URI) (snapshot, func()) {
	sn := s.snapshot(u)
	h := s.fns.acquire(sn, sn.roots)
	if h == nil {
		return sn, func() {}
	}
	sn.pipeline = h.pipe
	var once sync.Once
	return sn, func() { once.Do(func() { s.fns.release(h) }) }
}

// acquire returns the registry for sn's state (nil when no function is
// configured), rebuilding it when the settings or the workspace's
// Functions changed since it was built. An older state than the one it
// was built for gets the current one.
func (r *fnRuntime) acquire(sn snapshot, roots []string) *fnHandle {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if !r.built || sn.seq > r.seq {
		set := sn.settings.functionSettings(roots)
		var ws []functions.Function
		if set.UseWorkspace {
			ws = workspaceFunctions(sn.world)
		}
		if set.FromPackages && sn.world != nil {
			// The workspace's Functions and crossplane.yaml's function
			// dependencies, run from their packages (after those above).
			ws = append(ws, sn.world.PackageFunctions()...)
		}
		if !r.built || !reflect.DeepEqual(set, r.settings) || !reflect.DeepEqual(ws, r.workspace) || sourcesChanged(r.sources) {
			// Stamped before reading: a change made while the registry
			// is built is seen by the next analysis.
			var found map[string]functionFiles
			r.sources, found = stampSources(set.Files)
			r.replaceLocked(r.build(set, ws, found, sn.settings))
			r.settings, r.workspace = set, ws
		}
		r.built, r.seq = true, sn.seq
	}
	if r.cur == nil {
		return nil
	}
	r.cur.users++
	return r.cur
}

// fileStamp is what a stat says of a functions file or folder.
type fileStamp struct {
	exists bool
	size   int64
	mod    int64 // UnixNano
}

func stamp(p string) fileStamp {
	st, err := os.Stat(p)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: st.Size(), mod: st.ModTime().UnixNano()}
}

// functionFiles are the files a functionsFiles entry stands for, or why
// it cannot be read.
type functionFiles struct {
	paths []string
	err   error
}

// stampSources finds and stamps the configured functionsFiles and the
// files read from them (found, for the build to read). An edit of any of
// them, or a file added to or removed from a configured folder itself,
// rebuilds the registry at the next analysis (no watcher covers files
// outside the workspace; a file added to a subfolder is seen with the next
// rebuild).
func stampSources(files []string) (map[string]fileStamp, map[string]functionFiles) {
	st := map[string]fileStamp{}
	found := map[string]functionFiles{}
	for _, p := range files {
		st[p] = stamp(p)
		srcs, err := loader.FunctionSources(p)
		found[p] = functionFiles{srcs, err}
		for _, f := range srcs {
			st[f] = stamp(f)
		}
	}
	return st, found
}

func sourcesChanged(st map[string]fileStamp) bool {
	for p, s := range st {
		if stamp(p) != s {
			return true
		}
	}
	return false
}

func (r *fnRuntime) release(h *fnHandle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.users--
	if h.retired && h.users == 0 {
		r.closeLocked(h)
	}
}

// replaceLocked makes h current and retires the previous registry.
func (r *fnRuntime) replaceLocked(h *fnHandle) {
	if old := r.cur; old != nil {
		old.retired = true
		if old.users == 0 {
			r.closeLocked(old)
		} else {
			r.retired = append(r.retired, old)
		}
	}
	r.cur = h
}

// closeLocked closes h's registry in the background (stopping a process
// may take a moment; close waits for it).
func (r *fnRuntime) closeLocked(h *fnHandle) {
	if h.done {
		return
	}
	h.done = true
	kept := r.retired[:0]
	for _, o := range r.retired {
		if o != h {
			kept = append(kept, o)
		}
	}
	r.retired = kept
	r.closing.Add(1)
	go func() {
		defer r.closing.Done()
		r.closeRegistry(h)
	}()
}

func (r *fnRuntime) closeRegistry(h *fnHandle) {
	if err := h.reg.Close(); err != nil {
		r.s.log.Warn("stopping composition functions", "error", err)
	}
}

// close stops every function process and connection the server started
// and waits for them to be gone; later acquires get no registry.
func (r *fnRuntime) close() {
	r.mu.Lock()
	r.closed = true
	var all []*fnHandle
	if r.cur != nil {
		all = append(all, r.cur)
	}
	all = append(all, r.retired...)
	r.cur, r.retired = nil, nil
	for _, h := range all {
		h.done = true
	}
	r.mu.Unlock()
	for _, h := range all {
		r.closeRegistry(h)
	}
	r.closing.Wait()
}

// build creates the registry the settings and workspace Functions
// describe (nil when they name nothing to run), and tells the user about
// configuration problems (a functions file that cannot be read, a
// Development target outside loopback). found holds the files each
// functionsFiles entry stands for, as stampSources found them.
func (r *fnRuntime) build(set fnSettings, ws []functions.Function, found map[string]functionFiles, all Settings) *fnHandle {
	cfg := functions.Config{
		Executables:  map[string]functions.Executable{},
		AllowRemote:  set.AllowRemote,
		Docker:       set.Docker,
		CallTimeout:  set.Timeout,
		StartTimeout: set.StartTimeout,
		Logf:         func(format string, args ...any) { r.s.log.Debug(fmt.Sprintf(format, args...)) },
	}
	var problems []string
	if set.FromPackages {
		if c, err := r.s.pkgClient(all); err != nil {
			problems = append(problems, fmt.Sprintf("crdLsp.functionsFromPackages: no package cache: %v", err))
		} else {
			cfg.FromPackages, cfg.PullRuntime, cfg.Notify = true, loader.RuntimePuller(c), r.packageReady
		}
	}
	names := make([]string, 0, len(set.Executables))
	for name := range set.Executables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := set.Executables[name]
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			problems = append(problems, fmt.Sprintf("crdLsp.functions.%s: %s is not an executable file", name, p))
		}
		cfg.Executables[name] = functions.Executable{Path: p}
	}
	named := map[string]bool{}
	for name := range cfg.Executables {
		named[name] = true
	}
	for _, p := range set.Files {
		var fns []functions.Function
		err := found[p].err
		if err == nil {
			fns, err = loader.ReadFunctionFiles(found[p].paths)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("crdLsp.functionsFiles: %s: %v", p, err))
		}
		for _, fn := range fns {
			if !named[fn.Name] {
				named[fn.Name] = true
				cfg.Functions = append(cfg.Functions, fn)
			}
		}
	}
	// The workspace's own Functions come last: a setting's function of
	// the same name wins.
	for _, fn := range ws {
		if !named[fn.Name] {
			named[fn.Name] = true
			cfg.Functions = append(cfg.Functions, fn)
		}
	}
	if !runsAnything(cfg) {
		r.report(problems, "")
		return nil
	}
	reg := functions.New(cfg)
	problems = append(problems, reg.ProblemLines()...)
	var reach []string
	for _, n := range sortedNames(cfg) {
		if src, where, ok := reg.Configured(n); ok {
			reach = append(reach, fmt.Sprintf("%s (%s %s)", n, src, where))
		}
	}
	r.report(problems, strings.Join(reach, ", "))
	return &fnHandle{reg: reg, pipe: &functions.Pipeline{Registry: reg, PreferReal: set.PreferReal, Timeout: set.Timeout}}
}

// runsAnything says whether cfg names a function the Registry could run.
func runsAnything(cfg functions.Config) bool {
	if len(cfg.Executables) > 0 {
		return true
	}
	for _, fn := range cfg.Functions {
		if fn.Annotations[functions.AnnotationRuntime] == functions.RuntimeDevelopment || cfg.Docker || cfg.FromPackages && fn.Package != "" {
			return true
		}
	}
	return false
}

// packageReady is told how a Function's package was prepared (pulled,
// unpacked, checked: in the background, for the first call that needed
// it): the user reads it once (a warning in a popup the first time it is
// said, in the log after), and when a call gave up waiting for it, the
// open documents are diagnosed again with it (the calls still waiting go
// on by themselves: they are not cancelled).
func (r *fnRuntime) packageReady(run functions.PackageRun) {
	msg := run.Message()
	r.mu.Lock()
	closed, again := r.closed, r.warned[msg]
	if !run.Runs && !closed {
		if r.warned == nil {
			r.warned = map[string]bool{}
		}
		r.warned[msg] = true
	}
	r.mu.Unlock()
	if closed {
		return // (a pull the shutdown cut short)
	}
	switch {
	case run.Runs:
		r.s.logMessage(protocol.MessageTypeInfo, msg)
		r.s.log.Info("composition function from its package", "message", msg)
	default:
		r.s.log.Warn("composition function from its package", "message", msg)
		if again {
			r.s.logMessage(protocol.MessageTypeWarning, msg)
		} else {
			r.s.showMessage(protocol.MessageTypeWarning, "crd-lsp: "+msg)
		}
	}
	if run.Missed {
		r.s.diag.scheduleAll()
	}
}

func sortedNames(cfg functions.Config) []string {
	seen := map[string]bool{}
	var out []string
	for n := range cfg.Executables {
		seen[n] = true
		out = append(out, n)
	}
	for _, fn := range cfg.Functions {
		if !seen[fn.Name] {
			seen[fn.Name] = true
			out = append(out, fn.Name)
		}
	}
	sort.Strings(out)
	return out
}

// report logs which functions run and warns about problems.
func (r *fnRuntime) report(problems []string, reach string) {
	if reach != "" {
		r.s.logMessage(protocol.MessageTypeInfo, "composition functions: "+reach)
		r.s.log.Info("composition functions configured", "functions", reach)
	}
	if len(problems) > 0 {
		msg := strings.Join(problems, "; ")
		r.s.log.Warn("composition functions", "problems", msg)
		r.s.showMessage(protocol.MessageTypeWarning, "crd-lsp: "+msg)
	}
}
