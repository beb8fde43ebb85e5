// Package overlays validates what the workspace's kustomizations build
// (internal/kustomize) with everything crd-lsp knows — the same
// analysis.Diagnose, with the Env of the file each object was declared
// in, as the files themselves — and says it on the files that wrote it:
// each finding of a built object sits on the line of the base, patch,
// generator or kustomization setting that wrote the field (Build.Locate),
// named for the kustomizations that build it.
//
// The files' own findings change in one way: a document that a build
// uses as a resource is no longer judged alone for what only a whole
// object needs (required fields, CEL rules): those findings come from
// what the builds make of it, so a base that every overlay completes has
// none, and one an overlay leaves incomplete has that overlay's. Its
// wrong values (types, unknown fields, formats…) stay its own findings,
// said once however many overlays build it; a build finding that repeats
// one of the file's own is not said again.
//
// check builds once; the editor keeps a Builder whose builds and
// validations are reused until a file they read changes (an open buffer's
// text, a file's size or modification time on disk, a file appearing
// where a kustomization names one).
package overlays

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/kustomize"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// WholeObject are the codes of findings about what only a whole object
// needs: a document a build uses is not judged alone for them.
// kube-apiserver's own validation (k8s-validation) judges the object as a
// whole (a Deployment's selector against its template's labels), so a
// base's is the builds' to say, each naming the overlay.
var WholeObject = map[string]bool{"required": true, "cel": true, "k8s-validation": true}

// Settings are the user's choices (check's --kustomize and
// --kustomization, the editor's crdLsp.kustomize).
type Settings struct {
	// Off builds nothing: files are checked as written.
	Off bool
	// Named are kustomizations (files or their folders) to build besides
	// those no other kustomization uses as a base.
	Named []string
	// Limits bound each build (zero: kustomize.DefaultLimits).
	Limits kustomize.Limits
	// AllowRemote fetches remote git bases with the user's git (check's
	// --kustomize-remote, crdLsp.kustomize.allowRemote).
	AllowRemote bool
	// Helm, when set, inflates helmCharts by running this helm program
	// (--kustomize-helm and --helm-command, crdLsp.kustomize.enableHelm
	// and .helmCommand).
	Helm string
}

// Request is one call's view of the workspace.
type Request struct {
	World *loader.World
	// Texts are files given by content (open buffers, check's files), by
	// path as the World names them.
	Texts map[string][]byte
	// Within confines what builds read to the workspace's folders (nil:
	// anywhere).
	Within []string
	// MaxFileSize bounds each file read from disk.
	MaxFileSize int64
	Settings    Settings
	// Env is the analysis.Env of a file of the World (its role is
	// replaced: what a build makes is a whole object).
	Env func(path string) analysis.Env
	// EnvKey identifies what Env gives (the World, the settings, the
	// function runner): validations are reused while it stays equal.
	EnvKey any
	// Name words a built kustomization for messages (nil: its folder).
	Name func(kustomization string) string
	// Shown says whether findings on the file at path are shown (check
	// prints the files it checks; nil: all are): a build's finding on a
	// file that is not is shown on the root kustomization's entry that
	// brought the object in, saying where it was written.
	Shown func(path string) bool
}

// Result is what the builds say of the workspace's files.
type Result struct {
	// findings are the builds' findings, by file.
	findings map[string][]found
	// declared are the documents builds used, by file.
	declared map[string][]document.Span
	// roots are the kustomizations built, and the files each read.
	roots map[string][]string
	name  func(string) string
}

// found is one finding of one or more builds.
type found struct {
	d analysis.Diagnostic
	// by are the kustomizations whose builds found it.
	by []string
	// own: in the root kustomization itself, about its own build (no
	// need to name it).
	own bool
}

// Builder builds and validates kustomizations, keeping each root's
// build and findings for the next call while what it read is unchanged.
type Builder struct {
	mu    sync.Mutex
	roots map[string]*rootState
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{roots: map[string]*rootState{}} }

type rootState struct {
	mu     sync.Mutex
	build  *kustomize.Build
	stamps map[string]stamp
	// asked is what the user asked the build to fetch and run
	// (Settings.AllowRemote, Settings.Helm): a change builds again.
	asked  string
	envKey any
	valid  bool // findings are for build and envKey
	// findings are the build's findings by file (absolute paths).
	findings []located
	declared map[string][]document.Span
	// objects are the diagnoses of the build's objects, by text and file.
	objects map[objectKey][]analysis.Diagnostic
}

type located struct {
	file string
	d    analysis.Diagnostic
	own  bool
	// alt is where it is shown when file is not (Request.Shown).
	alt *located
}

type objectKey struct {
	hash uint64
	n    int
	uri  string
}

// stamp is what a file was when a build read it: its text's hash (given
// by content) or its size and modification time (on disk), or whether it
// existed (a path the plan looked for).
type stamp struct {
	given   bool
	hash    uint64
	size    int64
	mod     time.Time
	exists  bool
	probeOK bool
}

func hashOf(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// Run builds the kustomizations of req.World that read the file at path
// (every one when path is ""), validates what they make and returns what
// that says of the workspace's files. rebuilt are the kustomizations
// built or validated anew by this call (the editor diagnoses the open
// files they read again). A cancelled ctx returns nil.
func (b *Builder) Run(ctx context.Context, req Request, path string) (res *Result, rebuilt []string) {
	res = &Result{findings: map[string][]found{}, declared: map[string][]document.Span{}, roots: map[string][]string{}, name: req.Name}
	if res.name == nil {
		res.name = func(k string) string { return filepath.Dir(k) }
	}
	if req.Settings.Off || req.World == nil {
		return res, nil
	}
	roots := req.World.KustomizeRoots(req.Settings.Named)
	if path != "" {
		a, err := filepath.Abs(path)
		if err != nil {
			a = path
		}
		roots = b.rootsReading(req.World, roots, path, a)
	}
	if len(roots) == 0 {
		return res, nil
	}
	abs, local := absPaths(req, roots)
	src := &kustomize.Source{Texts: map[string][]byte{}, MaxFileSize: req.MaxFileSize, Within: req.Within, AllowRemote: req.Settings.AllowRemote, Helm: req.Settings.Helm}
	for p, t := range req.Texts {
		src.Texts[abs(p)] = t
	}
	for _, root := range roots {
		st := b.state(abs(root))
		fresh, ok := st.run(ctx, req, src, abs(root), local)
		if !ok {
			return nil, nil
		}
		if fresh {
			rebuilt = append(rebuilt, root)
		}
		res.add(st, root, local, req.Shown)
	}
	res.merge()
	return res, rebuilt
}

// absPaths maps the World's paths to absolute ones and back (check names
// files as it was given them, builds read absolute paths); the way back
// knows the files given by content and those the roots' builds may read.
func absPaths(req Request, roots []string) (abs func(string) string, local func(string) string) {
	back := map[string]string{}
	abs = func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		back[a] = p
		return a
	}
	for p := range req.Texts {
		abs(p)
	}
	for _, k := range roots {
		abs(k)
		for _, r := range req.World.KustomizeReads(k) {
			abs(r)
		}
	}
	local = func(a string) string {
		if p, ok := back[a]; ok {
			return p
		}
		return a
	}
	return abs, local
}

// rootsReading are the roots whose builds read the file at path: as the
// kustomizations name it, or as the last build read it.
func (b *Builder) rootsReading(w *loader.World, roots []string, path, absPath string) []string {
	var out []string
	for _, r := range roots {
		if slices.Contains(w.KustomizeReads(r), path) {
			out = append(out, r)
			continue
		}
		a, _ := filepath.Abs(r)
		b.mu.Lock()
		st := b.roots[a]
		b.mu.Unlock()
		if st == nil {
			continue
		}
		st.mu.Lock()
		_, read := st.stamps[absPath]
		st.mu.Unlock()
		if read {
			out = append(out, r)
		}
	}
	return out
}

func (b *Builder) state(root string) *rootState {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.roots[root]
	if st == nil {
		st = &rootState{}
		b.roots[root] = st
	}
	return st
}

// stale reports whether a file the build read (or looked for) is not as
// it was.
func (st *rootState) stale(src *kustomize.Source) bool {
	if st.build == nil {
		return true
	}
	for p, s := range st.stamps {
		if t, ok := src.Texts[p]; ok {
			if !s.given || s.hash != hashOf(t) {
				return true
			}
			continue
		}
		if s.given {
			return true
		}
		info, err := os.Stat(p)
		if s.probeOK {
			if (err == nil) != s.exists {
				return true
			}
			continue
		}
		if err != nil || info.Size() != s.size || !info.ModTime().Equal(s.mod) {
			return true
		}
	}
	return false
}

// stampsOf records what the build read as it was.
func stampsOf(build *kustomize.Build, src *kustomize.Source) map[string]stamp {
	out := map[string]stamp{}
	for p, exists := range build.Probed {
		out[p] = stamp{probeOK: true, exists: exists}
	}
	for p, t := range build.Reads {
		if given, ok := src.Texts[p]; ok {
			out[p] = stamp{given: true, hash: hashOf(given)}
			continue
		}
		s := stamp{}
		if info, err := os.Stat(p); err == nil {
			s.size, s.mod = info.Size(), info.ModTime()
		}
		_ = t
		out[p] = s
	}
	return out
}

// run brings st up to date for req: a new build when a file it read
// changed, a new validation when the build or the Env changed. fresh
// says whether anything was redone; ok is false when ctx was cancelled.
func (st *rootState) run(ctx context.Context, req Request, src *kustomize.Source, root string, local func(string) string) (fresh, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	asked := fmt.Sprint(src.AllowRemote, src.Helm)
	if st.stale(src) || st.asked != asked {
		build := kustomize.Run(ctx, src, root, req.Settings.Limits)
		if build == nil {
			return false, false
		}
		st.build, st.stamps, st.asked, st.valid = build, stampsOf(build, src), asked, false
	}
	if st.valid && st.envKey == req.EnvKey {
		return false, true
	}
	if st.envKey != req.EnvKey {
		st.objects = nil
	}
	findings, declared, objects, ok := validate(ctx, req, st.build, st.objects, local)
	if !ok {
		return false, false
	}
	st.findings, st.declared, st.objects, st.envKey, st.valid = findings, declared, objects, req.EnvKey, true
	return true, true
}

// validate diagnoses each object of the build (reusing prev's diagnoses
// of unchanged objects) and places each finding where it was written.
func validate(ctx context.Context, req Request, build *kustomize.Build, prev map[objectKey][]analysis.Diagnostic, local func(string) string) (out []located, declared map[string][]document.Span, objects map[objectKey][]analysis.Diagnostic, ok bool) {
	declared = map[string][]document.Span{}
	objects = map[objectKey][]analysis.Diagnostic{}
	for _, p := range build.Problems {
		out = append(out, located{file: p.File, d: analysis.Diagnostic{Span: p.Span, Severity: p.Severity, Code: p.Code, Message: p.Message}, own: p.File == build.Root})
	}
	for _, r := range build.Resources {
		if ctx.Err() != nil {
			return nil, nil, nil, false
		}
		uri := r.Origin
		if uri == "" {
			uri = r.Generated.Kustomization
		}
		if uri == "" {
			uri = build.Root
		}
		if file, doc, ok := build.Declaration(r); ok {
			declared[file] = append(declared[file], doc)
		}
		f := document.Parse(local(uri), 0, r.Text)
		key := objectKey{hash: hashOf(r.Text), n: len(r.Text), uri: uri}
		diags, cached := prev[key]
		if !cached {
			env := analysis.Env{}
			if req.Env != nil {
				env = req.Env(local(uri))
			}
			env.Role = analysis.Role{}
			diags = analysis.Diagnose(ctx, f, env)
			if ctx.Err() != nil {
				return nil, nil, nil, false
			}
		}
		objects[key] = diags
		for _, d := range diags {
			if d.Severity == severity.Hint {
				continue
			}
			out = append(out, place(build, r, f, d))
		}
	}
	return out, declared, objects, true
}

// place puts a finding of a built object on the file and span that
// wrote the field it is about.
func place(build *kustomize.Build, r *kustomize.Resource, f *document.File, d analysis.Diagnostic) located {
	doc := f.Docs[0]
	p, _ := fieldpath.Parse(d.Path)
	anchor, onKey := anchorOf(doc, p, d.Span)
	_, _, exists := doc.Lookup(p)
	missing := d.Path != "" && !exists
	inner := document.Span{}
	if !onKey {
		inner = d.Span
	}
	loc := build.Locate(r, doc, anchor, onKey, missing, inner)
	out := d
	out.Span = loc.Span
	if !loc.Exact {
		out.Replace, out.Missing = "", ""
		if d.Path != "" && !strings.Contains(d.Message, d.Path) && !missing {
			out.Message = d.Path + ": " + out.Message
		}
	}
	switch {
	case !loc.Exact && r.Remote != "":
		// Written in a remote base: say which, and where in it.
		out.Message = fmt.Sprintf("%s %q of the remote base %s (%s): %s", r.Kind, r.Name, r.Remote, r.RemotePath, out.Message)
	case !loc.Exact && loc.File != r.Origin:
		// On a kustomization's setting or entry: say which object.
		out.Message = fmt.Sprintf("%s %q: %s", r.Kind, r.Name, out.Message)
	}
	l := located{file: loc.File, d: out, own: loc.File == build.Root}
	if loc.File != build.Root {
		in := build.BroughtIn(r)
		alt := d
		alt.Span, alt.Replace, alt.Missing = in.Span, "", ""
		line, col := 0, 0
		if t, ok := build.Reads[loc.File]; ok {
			line, col = document.NewMapper(t).LineCol(loc.Span.Start)
		}
		rel, err := filepath.Rel(filepath.Dir(build.Root), loc.File)
		if err != nil {
			rel = loc.File
		}
		alt.Message = fmt.Sprintf("%s %q, %s:%d:%d: %s", r.Kind, r.Name, filepath.ToSlash(rel), line, col, out.Message)
		l.alt = &located{file: in.File, d: alt, own: in.File == build.Root}
	}
	return l
}

// anchorOf is the written path a finding's span in the built object is
// on, and whether it is on its key: p or its nearest ancestor whose key
// or value is the span, else the field whose text holds the span.
func anchorOf(doc *document.Doc, p fieldpath.Path, span document.Span) (fieldpath.Path, bool) {
	for q := p; ; q = q.Parent() {
		if key, val, ok := doc.Spans(q); ok {
			switch {
			case key == span:
				return q, true
			case val == span || (val.Start <= span.Start && span.End <= val.End && len(q) == len(p)):
				return q, false
			}
		}
		if len(q) == 0 {
			break
		}
	}
	if q, ok := doc.File.PathOf(span); ok {
		key, _, _ := doc.Spans(q)
		return q, !key.IsZero() && key.Start <= span.Start && span.End <= key.End
	}
	near, _, _ := doc.Nearest(p)
	return near, true
}

// add takes a root's findings into the result.
func (r *Result) add(st *rootState, root string, local func(string) string, shown func(string) bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, l := range st.findings {
		file := local(l.file)
		if shown != nil && !shown(file) && l.alt != nil {
			l = *l.alt
			file = local(l.file)
		}
		r.findings[file] = append(r.findings[file], found{d: l.d, by: []string{root}, own: l.own})
	}
	for file, docs := range st.declared {
		r.declared[local(file)] = append(r.declared[local(file)], docs...)
	}
	reads := make([]string, 0, len(st.stamps))
	for p := range st.stamps {
		reads = append(reads, local(p))
	}
	slices.Sort(reads)
	r.roots[root] = reads
}

// merge makes one finding of the same finding of several builds, naming
// them all.
func (r *Result) merge() {
	for file, fs := range r.findings {
		type key struct {
			span     document.Span
			sev      severity.Severity
			code     string
			message  string
			own      bool
			replace  string
			missing  string
			pathText string
		}
		at := map[key]int{}
		var out []found
		for _, f := range fs {
			k := key{f.d.Span, f.d.Severity, f.d.Code, f.d.Message, f.own, f.d.Replace, f.d.Missing, f.d.Path}
			if i, ok := at[k]; ok {
				for _, b := range f.by {
					if !slices.Contains(out[i].by, b) {
						out[i].by = append(out[i].by, b)
					}
				}
				continue
			}
			at[k] = len(out)
			out = append(out, f)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].d.Span.Start < out[j].d.Span.Start })
		r.findings[file] = out
	}
}

// Drop reports whether the file's own finding d is the builds' to make:
// about what only a whole object needs, in a document a build uses.
func (r *Result) Drop(path string, d analysis.Diagnostic) bool {
	if r == nil || !WholeObject[d.Code] {
		return false
	}
	for _, doc := range r.declared[path] {
		if doc.Start <= d.Span.Start && d.Span.Start < max(doc.End, doc.Start+1) {
			return true
		}
	}
	return false
}

// Findings are the builds' findings on the file at path, each named for
// the kustomizations whose builds found it, less those said reports the
// file says already.
func (r *Result) Findings(path string, said func(analysis.Diagnostic) bool) []analysis.Diagnostic {
	if r == nil {
		return nil
	}
	var out []analysis.Diagnostic
	for _, f := range r.findings[path] {
		if said != nil && said(f.d) {
			continue
		}
		d := f.d
		if !(f.own && len(f.by) == 1) {
			d.Message += " (" + r.naming(f.by) + ")"
		}
		out = append(out, d)
	}
	return out
}

// naming says which builds a finding comes from.
func (r *Result) naming(by []string) string {
	names := make([]string, len(by))
	for i, k := range by {
		names[i] = r.name(k)
	}
	slices.Sort(names)
	if len(names) == 1 {
		return "as " + names[0] + " builds it"
	}
	if len(names) > 3 {
		return fmt.Sprintf("as %s and %d more build it", strings.Join(names[:3], ", "), len(names)-3)
	}
	return "as " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " build it"
}

// Merge is the file's own findings less those the builds make, plus the
// builds' findings on it that the file does not say already, in order.
func (r *Result) Merge(path string, own []analysis.Diagnostic) []analysis.Diagnostic {
	if r == nil {
		return own
	}
	kept := make([]analysis.Diagnostic, 0, len(own))
	for _, d := range own {
		if !r.Drop(path, d) {
			kept = append(kept, d)
		}
	}
	extra := r.Findings(path, func(d analysis.Diagnostic) bool { return Said(kept, d) })
	if len(extra) == 0 {
		return kept
	}
	out := append(kept, extra...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// Said reports whether own holds d already (same place, code and
// message).
func Said(own []analysis.Diagnostic, d analysis.Diagnostic) bool {
	for _, o := range own {
		if o.Span == d.Span && o.Code == d.Code && o.Message == d.Message {
			return true
		}
	}
	return false
}

// Files are the files the builds have findings on, sorted.
func (r *Result) Files() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.findings))
	for f := range r.findings {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Reads are the files the build of the kustomization root read.
func (r *Result) Reads(root string) []string {
	if r == nil {
		return nil
	}
	return r.roots[root]
}

// ReadAny reports whether a build the Builder keeps read, or looked for,
// any of the files at paths (absolute): a change to one on disk changes
// what it says.
func (b *Builder) ReadAny(paths []string) bool {
	b.mu.Lock()
	states := make([]*rootState, 0, len(b.roots))
	for _, st := range b.roots {
		states = append(states, st)
	}
	b.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		found := false
		for _, p := range paths {
			if _, ok := st.stamps[filepath.Clean(p)]; ok {
				found = true
				break
			}
		}
		st.mu.Unlock()
		if found {
			return true
		}
	}
	return false
}
