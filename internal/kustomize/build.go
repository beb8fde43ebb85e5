// This file runs one build: the plan, then kustomize's krusty over the
// read-only file system with origin tracking turned on, bounded in time
// and size; its objects are kept with where each came from.

package kustomize

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Limits bound one build.
type Limits struct {
	// Timeout bounds the build (kustomize itself; validating what it
	// made is the caller's).
	Timeout time.Duration
	// MaxRead bounds the bytes it reads (each file is bounded by the
	// Source's MaxFileSize too).
	MaxRead int64
	// MaxObjects and MaxOutput bound what it makes: past either, nothing
	// of the build is validated.
	MaxObjects int
	MaxOutput  int64
	// MaxDepth bounds how deep bases and components nest,
	// MaxKustomizations how many one build reaches.
	MaxDepth, MaxKustomizations int
	// MaxGenerated bounds the literals, files and env files the
	// generators of one build name (kustomize's time grows faster than
	// their number: 8,000 literals take it seconds).
	MaxGenerated int
	// FetchTimeout bounds fetching a build's remote bases, all together
	// (when Source.AllowRemote asks for them): git is killed past it.
	FetchTimeout time.Duration
}

// DefaultLimits are the limits of check and the editor.
func DefaultLimits() Limits {
	return Limits{Timeout: 10 * time.Second, MaxRead: 64 << 20, MaxObjects: 10000, MaxOutput: 32 << 20, MaxDepth: 32, MaxKustomizations: 1000, MaxGenerated: 4000, FetchTimeout: 30 * time.Second}
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxRead <= 0 {
		l.MaxRead = d.MaxRead
	}
	if l.MaxObjects <= 0 {
		l.MaxObjects = d.MaxObjects
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = d.MaxOutput
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxKustomizations <= 0 {
		l.MaxKustomizations = d.MaxKustomizations
	}
	if l.MaxGenerated <= 0 {
		l.MaxGenerated = d.MaxGenerated
	}
	if l.FetchTimeout <= 0 {
		l.FetchTimeout = d.FetchTimeout
	}
	return l
}

// Build is what one kustomization built: its objects, or the problems
// that kept it from building.
type Build struct {
	// Root is the kustomization file built.
	Root string
	// Resources are the objects it made, in kustomize's order; none when
	// it was not built or failed.
	Resources []*Resource
	// Problems say why it was not built, or where it fails.
	Problems []Problem
	// Reads are the files it read (the kustomizations among them), by
	// path, with the text it read.
	Reads map[string][]byte
	// Probed are the paths its plan looked for, and whether each was
	// there: a file that appears or goes there changes the build too.
	Probed map[string]bool

	ks     map[string]*Kustomization
	clones *clones
	mu     sync.Mutex
	parsed map[string]*document.File
}

// Built reports whether the build ran and made its objects.
func (b *Build) Built() bool { return b.Resources != nil }

// Resource is one object a build made.
type Resource struct {
	// Text is the object kustomize made, without its origin
	// annotations (what kustomize build prints), as JSON.
	Text                              []byte
	APIVersion, Kind, Name, Namespace string
	// Origin is the file it was declared in ("" when a generator made
	// it, or it came from a remote base).
	Origin string
	// Generated is the kustomization and generator that made it (zero
	// when it was declared in a file).
	Generated Step
	// Remote is the remote base it was declared or generated in (its URL
	// as the kustomization names it), RemotePath the file in that
	// repository: then Origin is "" (the clone is gone after the build).
	Remote, RemotePath string
	// Steps are the transformers configured by the kustomizations it went
	// through, in the order they ran (kustomize's
	// alpha.config.kubernetes.io/transformations: every patch field a
	// kustomization sets is a step of every object of that
	// kustomization, patch targets decide which objects it changes).
	Steps []Step
}

// Step is a generator or transformer a kustomization configures.
type Step struct {
	Kustomization string // clean absolute path
	Kind          string // PatchTransformer, ConfigMapGenerator, …
}

// buildMu serializes builds: kustomize keeps its OpenAPI schema in
// process-wide state that each build sets.
var buildMu = make(chan struct{}, 1)

// Run builds the kustomization file root, reading through src, within
// lim. It never panics, never runs anything and never writes; a build
// that cannot be run, fails or goes past a limit says so in Problems.
//
// A build whose ctx is cancelled is abandoned: Run returns nil.
func Run(ctx context.Context, src *Source, root string, lim Limits) *Build {
	parent := ctx
	lim = lim.orDefaults()
	root = filepath.Clean(root)
	b := &Build{Root: root, Reads: map[string][]byte{}, parsed: map[string]*document.File{}}
	var cl *clones
	if src.AllowRemote {
		fctx, cancel := context.WithTimeout(ctx, lim.FetchTimeout)
		defer cancel()
		cl = &clones{ctx: fctx, budget: lim.MaxRead, timeout: lim.FetchTimeout, bySpec: map[string]string{}, byDir: map[string]remoteSpec{}}
		defer cl.remove()
	}
	p, ok := plan(src, root, lim, cl)
	if parent.Err() != nil {
		return nil
	}
	b.ks, b.Probed, b.clones = p.ks, p.probed, cl
	for path, k := range p.ks {
		b.Reads[path] = k.File.Text
	}
	b.Problems = p.problems
	defer b.forgetClones()
	if !ok {
		return b
	}
	rootText, err := withOrigins(p.root.File.Text)
	if err != nil {
		b.problem(p.root.firstKey(), severity.Error, CodeBuild, "kustomize build fails: "+err.Error())
		return b
	}
	// What kustomize reads in place of the kustomizations that name
	// remote bases: the clones' folders.
	texts := map[string][]byte{}
	for path, rw := range p.rewrites {
		text := p.ks[path].File.Text
		if path == root {
			text = rootText
		}
		t, err := rewriteRemotes(text, rw)
		if err != nil {
			b.problem(p.root.firstKey(), severity.Error, CodeBuild, "kustomize build fails: "+err.Error())
			return b
		}
		texts[path] = t
	}
	if t, ok := texts[root]; ok {
		rootText = t
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	select {
	case buildMu <- struct{}{}:
	case <-ctx.Done():
		if parent.Err() != nil {
			return nil
		}
		b.problem(p.root.firstKey(), severity.Info, CodeNotBuilt, fmt.Sprintf("not built: another kustomize build was still running after %s", lim.Timeout))
		return b
	}
	fsys := &roFS{ctx: ctx, src: src, root: root, rootText: rootText, texts: texts, clones: cl, budget: lim.MaxRead, reads: map[string][]byte{}}
	type result struct {
		res []*Resource
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-buildMu }()
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("kustomize failed (%v)", r)}
			}
		}()
		opts := krusty.MakeDefaultOptions()
		// As Flux builds (kustomize-controller): files anywhere the
		// Source lets builds read, not only under each kustomization.
		opts.LoadRestrictions = types.LoadRestrictionsNone
		opts.PluginConfig = types.DisabledPluginConfig() // builtins only: no exec, Go or KRM function plugins
		if src.Helm != "" {
			// Asked for (check --kustomize-helm): helmCharts inflated by
			// the user's helm, charts already in their chartHome (plan.go).
			opts.PluginConfig.HelmConfig.Enabled = true
			opts.PluginConfig.HelmConfig.Command = src.Helm
		}
		testHookOptions(opts)
		m, err := krusty.MakeKustomizer(opts).Run(fsys, filepath.Dir(root))
		if err != nil {
			done <- result{err: err}
			return
		}
		out, err := resources(m.Resources(), filepath.Dir(root), lim)
		done <- result{res: out, err: err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		// kustomize stops at its next read (roFS checks ctx); what it
		// made is not waited for.
		r.err = limitError{fmt.Sprintf("not built: the build took longer than %s; its files are checked as written", lim.Timeout)}
	}
	if parent.Err() != nil {
		return nil
	}
	fsys.mu.Lock()
	for path, t := range fsys.reads {
		b.Reads[path] = t
	}
	if le, ok := fsys.stop.(limitError); ok && parent.Err() == nil {
		r.err = le
	}
	fsys.mu.Unlock()
	if r.err != nil {
		b.failed(r.err)
		return b
	}
	if r.res == nil {
		r.res = []*Resource{}
	}
	b.Resources = r.res
	return b
}

func (b *Build) problem(at document.Span, sev severity.Severity, code, msg string) {
	b.Problems = append(b.Problems, Problem{File: b.Root, Span: at, Severity: sev, Code: code, Message: msg})
}

// limitError is a limit on what a build made.
type limitError struct{ msg string }

func (e limitError) Error() string { return e.msg }

// failed records kustomize's error on the entry it names (a quoted name
// or path of an entry of a kustomization the build read), else on the
// root kustomization.
func (b *Build) failed(err error) {
	if le, ok := err.(limitError); ok {
		b.problem(b.ks[b.Root].firstKey(), severity.Info, CodeNotBuilt, le.msg)
		return
	}
	msg := err.Error()
	paths := make([]string, 0, len(b.ks))
	for p := range b.ks {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	slices.SortStableFunc(paths, func(a, c string) int {
		switch {
		case a == b.Root:
			return -1
		case c == b.Root:
			return 1
		}
		return 0
	})
	for _, p := range paths {
		k := b.ks[p]
		for _, e := range k.named() {
			if strings.Contains(msg, "'"+e.value+"'") || strings.Contains(msg, "\""+e.value+"\"") || strings.Contains(msg, k.local(e.value)+"'") {
				b.Problems = append(b.Problems, Problem{File: k.Path, Span: k.span(e.at, false), Severity: severity.Error, Code: CodeBuild, Message: "kustomize build fails: " + msg})
				return
			}
		}
	}
	// A patch kustomize names by the id of its object (Kind.version.group/name).
	for _, p := range paths {
		k := b.ks[p]
		for _, pf := range patchFields {
			for _, pr := range k.patches(pf.field) {
				f := b.source(pr.file)
				if pr.file == "" || f == nil {
					continue
				}
				for _, d := range f.Docs {
					kind, _ := scalarAt(deref(d.Root), "kind")
					name, _ := scalarAt(nameOf(deref(d.Root)), "name")
					if kind != "" && name != "" && strings.Contains(msg, kind+".") && strings.Contains(msg, "/"+name+".") {
						b.Problems = append(b.Problems, Problem{File: k.Path, Span: k.span(pr.at, false), Severity: severity.Error, Code: CodeBuild, Message: "kustomize build fails: " + msg})
						return
					}
				}
			}
		}
	}
	b.problem(b.ks[b.Root].firstKey(), severity.Error, CodeBuild, "kustomize build fails: "+msg)
}

// named are the string entries of every list of the kustomization, and
// the path of each mapping item, where kustomize's errors may quote them.
func (k *Kustomization) named() []entry {
	var out []entry
	if k.root == nil {
		return nil
	}
	for i := 0; i+1 < len(k.root.Content); i += 2 {
		field := k.root.Content[i].Value
		out = append(out, k.list(field)...)
		for _, it := range k.items(field) {
			for _, f := range []string{"path", "name"} {
				if s := k.text(it.Child(fieldpath.Field(f))); s != "" {
					out = append(out, entry{field: field, value: s, at: it.Child(fieldpath.Field(f))})
				}
			}
		}
	}
	return out
}

// withOrigins is the root kustomization's text with kustomize's origin
// and transformer annotations turned on (buildMetadata), the lines of the
// text as they were when the field can simply be added.
func withOrigins(text []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return []byte("buildMetadata: [originAnnotations, transformerAnnotations]\n"), nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the kustomization is not a YAML mapping")
	}
	var meta *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "buildMetadata" {
			meta = root.Content[i+1]
		}
	}
	if meta == nil && root.Style&yaml.FlowStyle == 0 && bytes.Count(text, []byte("\n---")) == 0 {
		out := bytes.Clone(text)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, "buildMetadata: [originAnnotations, transformerAnnotations]\n"...), nil
	}
	want := []string{types.OriginAnnotations, types.TransformerAnnotations}
	if meta == nil {
		meta = &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "buildMetadata"}, meta)
	}
	if meta.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("buildMetadata is not a list")
	}
	for _, w := range want {
		if !slices.ContainsFunc(meta.Content, func(n *yaml.Node) bool { return n.Value == w }) {
			meta.Content = append(meta.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: w})
		}
	}
	return yaml.Marshal(&doc)
}

// The annotations kustomize's buildMetadata adds (its internal/utils).
const (
	originKey          = "config.kubernetes.io/origin"
	transformationsKey = "alpha.config.kubernetes.io/transformations"
)

// resources keeps what kustomize made, with where each object came from
// (its origin annotations, then removed), within lim.
func resources(list []*resource.Resource, dir string, lim Limits) ([]*Resource, error) {
	if len(list) > lim.MaxObjects {
		return nil, limitError{fmt.Sprintf("not validated: the build makes %d objects, more than the %d crd-lsp validates", len(list), lim.MaxObjects)}
	}
	out := make([]*Resource, 0, len(list))
	var size int64
	for _, res := range list {
		r := &Resource{APIVersion: res.GetApiVersion(), Kind: res.GetKind(), Name: res.GetName(), Namespace: res.GetNamespace()}
		// The origin annotations, read and removed at once (kustomize's
		// GetOrigin, GetTransformations, SetOrigin(nil) and
		// ClearTransformations each read or write them all).
		anns := res.GetAnnotations()
		var o resource.Origin
		if a, ok := anns[originKey]; ok && kyaml.Unmarshal([]byte(a), &o) == nil && o.Repo == "" {
			switch {
			case o.ConfiguredIn != "":
				r.Generated = Step{Kustomization: filepath.Join(dir, o.ConfiguredIn), Kind: o.ConfiguredBy.Kind}
			case o.Path != "":
				r.Origin = filepath.Join(dir, o.Path)
			}
		}
		var ts resource.Transformations
		if a, ok := anns[transformationsKey]; ok && kyaml.Unmarshal([]byte(a), &ts) == nil {
			for _, t := range ts {
				if t != nil && t.Repo == "" && t.ConfiguredIn != "" {
					r.Steps = append(r.Steps, Step{Kustomization: filepath.Join(dir, t.ConfiguredIn), Kind: t.ConfiguredBy.Kind})
				}
			}
		}
		_, hasO := anns[originKey]
		_, hasT := anns[transformationsKey]
		if hasO || hasT {
			delete(anns, originKey)
			delete(anns, transformationsKey)
			if err := res.SetAnnotations(anns); err != nil {
				return nil, err
			}
		}
		// JSON (YAML too), not AsYAML: half the cost, the same object.
		t, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		size += int64(len(t))
		if size > lim.MaxOutput {
			return nil, limitError{fmt.Sprintf("not validated: the build makes more than %s of objects", workspace.Size(lim.MaxOutput))}
		}
		r.Text = t
		out = append(out, r)
	}
	return out, nil
}

// testHookOptions lets tests see the options krusty is given.
var testHookOptions = func(*krusty.Options) {}

// rewriteRemotes is a kustomization's text with its remote entries
// (resources, bases, components) replaced by the folders of their clones.
func rewriteRemotes(text []byte, rw map[string]string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return text, nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "resources", "bases", "components":
			for _, n := range root.Content[i+1].Content {
				if dir, ok := rw[n.Value]; ok && n.Kind == yaml.ScalarNode {
					n.Value, n.Style, n.Tag = dir, yaml.DoubleQuotedStyle, "!!str"
				}
			}
		}
	}
	return yaml.Marshal(&doc)
}

// forgetClones keeps the build's remote parts out of what it says it
// read (the clones are gone once it is over; the URLs are what the
// kustomizations name), and says which remote base each object came
// from.
func (b *Build) forgetClones() {
	if b.clones == nil || len(b.clones.byDir) == 0 {
		return
	}
	for p := range b.Reads {
		if _, _, ok := b.clones.of(p); ok {
			delete(b.Reads, p)
		}
	}
	for p := range b.Probed {
		if _, _, ok := b.clones.of(p); ok {
			delete(b.Probed, p)
		}
	}
	b.Problems = slices.DeleteFunc(b.Problems, func(p Problem) bool {
		_, _, ok := b.clones.of(p.File)
		return ok
	})
	for i := range b.Problems {
		// kustomize's errors name the clone's files: name the URL.
		for dir, spec := range b.clones.byDir {
			b.Problems[i].Message = strings.ReplaceAll(b.Problems[i].Message, dir, spec.clone+"/")
		}
	}
	for p := range b.ks {
		if _, _, ok := b.clones.of(p); ok {
			delete(b.ks, p)
		}
	}
	for _, r := range b.Resources {
		from := r.Origin
		if from == "" {
			from = r.Generated.Kustomization
		}
		if spec, rel, ok := b.clones.of(from); ok {
			r.Origin, r.Generated, r.Remote, r.RemotePath = "", Step{}, spec.raw, rel
		}
		r.Steps = slices.DeleteFunc(r.Steps, func(s Step) bool {
			_, _, ok := b.clones.of(s.Kustomization)
			return ok
		})
	}
}
