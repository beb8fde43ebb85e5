// This file reads every kustomization a build would reach, before
// kustomize runs, and says why a build is not run: a name that is
// nowhere (kustomize would fail), a cycle or bases nested too deep, a
// remote base (kustomize would clone or download it), Helm charts
// (kustomize would run helm) or a plugin (kustomize would run a program
// or a container). crd-lsp runs and fetches nothing.

package kustomize

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Codes of Problems.
const (
	// CodeBuild: kustomize build fails (a file it names is missing, a
	// cycle, kustomize's own error).
	CodeBuild = "kustomize-build"
	// CodeNotBuilt: crd-lsp does not build the kustomization on purpose
	// (remote bases, Helm charts, plugins, limits); its files are checked
	// as written.
	CodeNotBuilt = "kustomize-not-built"
)

// Problem is a positioned finding about a build: in a kustomization (an
// entry kustomize cannot follow, the build's own error) or why it was not
// built.
type Problem struct {
	File     string
	Span     document.Span
	Severity severity.Severity
	Code     string
	Message  string
}

// planner reads the kustomizations a build reaches.
type planner struct {
	src      *Source
	root     *Kustomization
	lim      Limits
	ks       map[string]*Kustomization
	problems []Problem
	count    int
	// generated counts the generators' literals and files.
	generated int
	// probed are the paths the plan looked for, and whether each was
	// there (a build is stale when one appears or goes).
	probed map[string]bool
	// clones fetches remote bases (nil: they are not fetched).
	clones *clones
	// rewrites are, by kustomization, its remote entries and the folder
	// of their clone, relative to the kustomization: what kustomize is
	// given in their place.
	rewrites map[string]map[string]string
}

// read reads a kustomization or plugin file: the Source's, or a clone's.
func (p *planner) read(path string) ([]byte, error) {
	if _, _, ok := p.clones.of(path); ok {
		return workspace.ReadFile(path, p.src.maxFileSize())
	}
	return p.src.ReadFile(path)
}

// kind is p.src.kind, recorded.
func (p *planner) kind(path string) (isFile, isDir bool) {
	isFile, isDir = p.src.kind(path)
	p.probed[filepath.Clean(path)] = isFile || isDir
	return isFile, isDir
}

// kustomizationIn finds the kustomization file of dir: its path, or why
// there is none to build.
func (p *planner) kustomizationIn(dir string) (string, string) {
	var found []string
	for _, n := range fileNames {
		if f, _ := p.kind(filepath.Join(dir, n)); f {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return "", "holds no kustomization.yaml, kustomization.yml or Kustomization"
	case 1:
		return filepath.Join(dir, found[0]), ""
	}
	return "", "holds several kustomization files (" + strings.Join(found, ", ") + "), which kustomize refuses"
}

// plan reads the kustomization at root and every one it reaches. ok is
// false when the build must not run (p.problems say why).
func plan(src *Source, root string, lim Limits, cl *clones) (p *planner, ok bool) {
	p = &planner{src: src, lim: lim, ks: map[string]*Kustomization{}, probed: map[string]bool{}, clones: cl, rewrites: map[string]map[string]string{}}
	text, err := src.ReadFile(root)
	if err != nil {
		p.problems = append(p.problems, Problem{File: root, Severity: severity.Error, Code: CodeBuild, Message: "kustomize build fails: " + err.Error()})
		return p, false
	}
	p.root = readKustomization(root, text)
	p.visit(p.root, nil, []string{filepath.Dir(root)})
	return p, len(p.problems) == 0 && p.root.root != nil
}

// via is how a kustomization other than the root is reached: the root's
// entry that leads to it (nil stands for the root itself).
type via struct {
	entry entry
}

// problem records a problem at an entry of k; reached from the root
// through v, the root's entry says so too.
func (p *planner) problem(k *Kustomization, at fieldpath.Path, onKey bool, v *via, sev severity.Severity, code, msg string) {
	p.problems = append(p.problems, Problem{File: k.Path, Span: k.span(at, onKey), Severity: sev, Code: code, Message: msg})
	if v != nil {
		rel, _ := filepath.Rel(filepath.Dir(p.root.Path), k.Path)
		rel = filepath.ToSlash(rel)
		if spec, in, ok := p.clones.of(k.Path); ok {
			rel = spec.clone + "//" + in // (a remote base's clone is gone after the build)
		}
		p.problems = append(p.problems, Problem{File: p.root.Path, Span: p.root.span(v.entry.at, false), Severity: sev, Code: code,
			Message: fmt.Sprintf("not built: %s: %s", rel, msg)})
	}
}

func (p *planner) visit(k *Kustomization, v *via, stack []string) {
	p.ks[k.Path] = k
	p.count++
	if k.root == nil {
		if v != nil {
			p.problem(k, nil, false, v, severity.Error, CodeBuild, "kustomize build fails: this kustomization is not a YAML mapping")
		}
		return
	}
	if p.src.Helm != "" {
		p.helm(k, v)
	}
	for _, f := range []string{"helmCharts", "helmChartInflationGenerator"} {
		if k.has(f) && p.src.Helm == "" {
			p.problem(k, fieldpath.Path{fieldpath.Field(f)}, true, v, severity.Info, CodeNotBuilt,
				"kustomize inflates Helm charts by running helm: crd-lsp runs no program unless asked (check --kustomize-helm, crdLsp.kustomize.enableHelm), so this kustomization is not built and its files are checked as written")
		}
	}
	for _, field := range []string{"resources", "bases", "components"} {
		for _, e := range k.list(field) {
			p.follow(k, e, v, stack)
		}
	}
	var files []entry
	for _, field := range []string{"crds", "configurations"} {
		files = append(files, k.list(field)...)
	}
	for _, it := range k.items("replacements") {
		if s := k.text(it.Child(fieldpath.Field("path"))); s != "" {
			files = append(files, entry{field: "replacements", value: s, at: it.Child(fieldpath.Field("path"))})
		}
	}
	if s := k.text(fieldpath.Path{fieldpath.Field("openapi"), fieldpath.Field("path")}); s != "" {
		files = append(files, entry{field: "openapi", value: s, at: fieldpath.Path{fieldpath.Field("openapi"), fieldpath.Field("path")}})
	}
	for _, pf := range patchFields {
		for _, pr := range k.patches(pf.field) {
			if pr.file != "" {
				at := pr.at
				if k.node(at).Kind == yaml.MappingNode {
					at = at.Child(fieldpath.Field("path"))
				}
				files = append(files, entry{field: pf.field, value: k.text(at), at: at})
			}
		}
	}
	for _, g := range generatorFields {
		for _, it := range k.items(g.field) {
			if _, lits, ok := k.doc.Lookup(it.Child(fieldpath.Field("literals"))); ok && lits.Kind == yaml.SequenceNode {
				p.generated += len(lits.Content)
			}
			for _, key := range []string{"files", "envs"} {
				if _, l, ok := k.doc.Lookup(it.Child(fieldpath.Field(key))); ok && l.Kind == yaml.SequenceNode {
					p.generated += len(l.Content)
				}
			}
			if p.generated > p.lim.MaxGenerated {
				p.problem(k, it, false, v, severity.Info, CodeNotBuilt,
					fmt.Sprintf("not built: the generators name more than %d literals and files, which kustomize takes too long over; the files are checked as written", p.lim.MaxGenerated))
				return
			}
			for _, key := range []string{"files", "envs"} {
				_, list, _ := k.doc.Lookup(it.Child(fieldpath.Field(key)))
				if list == nil || list.Kind != yaml.SequenceNode {
					continue
				}
				for i, n := range list.Content {
					f := n.Value
					if _, after, found := strings.Cut(f, "="); found {
						f = after
					}
					files = append(files, entry{field: g.field, value: f, at: it.Child(fieldpath.Field(key), fieldpath.Index(i))})
				}
			}
			if s := k.text(it.Child(fieldpath.Field("env"))); s != "" {
				files = append(files, entry{field: g.field, value: s, at: it.Child(fieldpath.Field("env"))})
			}
		}
	}
	for _, e := range files {
		switch isFile, _ := p.kind(k.local(e.value)); {
		case isURL(e.value):
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
				fmt.Sprintf("%q is remote: crd-lsp fetches nothing, so this kustomization is not built and its files are checked as written", e.value))
		case !isFile:
			p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is not a file", e.value))
		}
	}
	for _, field := range []string{"generators", "transformers", "validators"} {
		for _, e := range k.list(field) {
			p.plugins(k, e, v, stack)
		}
	}
}

// follow checks a resources, bases or components entry and reads the
// kustomization it names.
func (p *planner) follow(k *Kustomization, e entry, v *via, stack []string) {
	path := k.local(e.value)
	isFile, isDir := p.kind(path)
	switch {
	case isFile && e.field != "components":
		return
	case isURL(e.value) || (!isFile && !isDir && looksRemote(e.value)):
		if p.clones != nil && isRemoteFile(e.value) {
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
				fmt.Sprintf("%q is a remote file: kustomize would download it, and crd-lsp downloads no file (--kustomize-remote fetches git bases only), so this kustomization is not built and its files are checked as written", e.value))
			return
		}
		if p.clones == nil {
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
				fmt.Sprintf("%q is a remote base: kustomize would fetch it (git or HTTP) and crd-lsp fetches nothing unless asked (check --kustomize-remote, crdLsp.kustomize.allowRemote), so this kustomization is not built and its files are checked as written", e.value))
			return
		}
		dir, ok := p.fetch(k, e, v)
		if !ok {
			return
		}
		path = dir
		isFile, isDir = p.src.kind(dir)
		if !isDir {
			p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: the remote base %q holds no folder %q", e.value, filepath.Base(dir)))
			return
		}
	case !isDir:
		what := "a file or a folder"
		if e.field == "components" {
			what = "a folder"
		}
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is not %s", e.value, what))
		return
	}
	if i := slices.Index(stack, path); i >= 0 {
		chain := make([]string, 0, len(stack)-i+1)
		for _, d := range append(stack[i:], path) {
			rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(p.root.Path)), d)
			chain = append(chain, filepath.ToSlash(rel))
		}
		p.problem(k, e.at, false, v, severity.Error, CodeBuild,
			"kustomize build fails: the kustomizations form a cycle ("+strings.Join(chain, " → ")+")")
		return
	}
	if len(stack) > p.lim.MaxDepth || p.count >= p.lim.MaxKustomizations {
		p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
			fmt.Sprintf("kustomizations nest more than %d deep or number more than %d here: crd-lsp does not build this kustomization, and checks its files as written", p.lim.MaxDepth, p.lim.MaxKustomizations))
		return
	}
	kpath, why := p.kustomizationIn(path)
	if kpath == "" {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: the folder %q %s", e.value, why))
		return
	}
	if _, seen := p.ks[kpath]; seen {
		return // (a diamond: read once)
	}
	text, err := p.read(kpath)
	if err != nil {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, "kustomize build fails: "+err.Error())
		return
	}
	sub := readKustomization(kpath, text)
	if e.field == "components" && !sub.Component() {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is not a Component", e.value))
		return
	}
	if e.field != "components" && sub.Component() {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is a Component: list it under components", e.value))
		return
	}
	next := v
	if next == nil {
		next = &via{entry: e}
	}
	p.visit(sub, next, append(stack, path))
}

// plugins checks a generators, transformers or validators entry: a
// builtin plugin's configuration is built, anything else (an exec or Go
// plugin, a KRM function in a container or a program) is not.
func (p *planner) plugins(k *Kustomization, e entry, v *via, stack []string) {
	text := []byte(e.value)
	if !strings.Contains(e.value, "\n") {
		path := k.local(e.value)
		isFile, isDir := p.kind(path)
		switch {
		case isURL(e.value):
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
				fmt.Sprintf("%q is remote: crd-lsp fetches nothing, so this kustomization is not built and its files are checked as written", e.value))
			return
		case isDir:
			p.follow(k, entry{field: "resources", value: e.value, at: e.at}, v, stack)
			return
		case !isFile:
			p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is not a file", e.value))
			return
		}
		t, err := p.read(path)
		if err != nil {
			p.problem(k, e.at, false, v, severity.Error, CodeBuild, "kustomize build fails: "+err.Error())
			return
		}
		text = t
	}
	for _, d := range document.Parse(k.Path, 0, text).Docs {
		var h struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if d.Root == nil || d.Root.Decode(&h) != nil || h.APIVersion == "builtin" || h.APIVersion == "" && h.Kind == "" {
			continue
		}
		p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt,
			fmt.Sprintf("%s %s is a plugin kustomize runs as a program or a container: crd-lsp runs none, so this kustomization is not built and its files are checked as written", h.APIVersion, h.Kind))
		return
	}
}

// fetch clones the remote base entry e of k names (check
// --kustomize-remote): the folder kustomize is given in its place, or
// false with a problem naming the URL.
func (p *planner) fetch(k *Kustomization, e entry, v *via) (string, bool) {
	spec, err := parseRemote(e.value)
	if err != nil {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: %q is neither a file, a folder nor a remote base kustomize can clone (%v)", e.value, err))
		return "", false
	}
	dir, err := p.clones.fetch(spec)
	if err != nil {
		var le limitError
		switch {
		case errors.As(err, &le):
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt, le.msg+"; its files are checked as written")
		case errors.Is(err, errGitMissing):
			p.problem(k, e.at, false, v, severity.Info, CodeNotBuilt, fmt.Sprintf("not built: fetching the remote base %q needs git: %v", e.value, err))
		default:
			p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: fetching the remote base %q: %v", e.value, err))
		}
		return "", false
	}
	rel, err := filepath.Rel(k.Dir(), dir)
	if err != nil {
		p.problem(k, e.at, false, v, severity.Error, CodeBuild, fmt.Sprintf("kustomize build fails: the remote base %q: %v", e.value, err))
		return "", false
	}
	if p.rewrites[k.Path] == nil {
		p.rewrites[k.Path] = map[string]string{}
	}
	p.rewrites[k.Path][e.value] = filepath.ToSlash(rel)
	return dir, true
}

// helm checks what inflating k's helmCharts needs when the user asked for
// it (check --kustomize-helm): the helm program, and each chart already
// in the chart home (kustomize would have helm pull a missing chart from
// its repository, into the workspace).
func (p *planner) helm(k *Kustomization, v *via) {
	charts := k.items("helmCharts")
	if len(charts) == 0 && !k.has("helmChartInflationGenerator") {
		return
	}
	if _, err := exec.LookPath(p.src.Helm); err != nil {
		p.problem(k, fieldpath.Path{fieldpath.Field("helmCharts")}, true, v, severity.Info, CodeNotBuilt,
			fmt.Sprintf("not built: inflating helmCharts runs %q, which is not there (%v); set the helm program with check --helm-command or crdLsp.kustomize.helmCommand", p.src.Helm, err))
		return
	}
	home := k.text(fieldpath.Path{fieldpath.Field("helmGlobals"), fieldpath.Field("chartHome")})
	if home == "" {
		home = "charts"
	}
	for _, it := range charts {
		name := k.text(it.Child(fieldpath.Field("name")))
		if name == "" {
			continue
		}
		if _, isDir := p.kind(filepath.Join(k.local(home), name)); !isDir {
			p.problem(k, it.Child(fieldpath.Field("name")), false, v, severity.Info, CodeNotBuilt,
				fmt.Sprintf("not built: the chart %q is not in %s: helm would download it (helm pull, into the workspace), which crd-lsp does not do; its files are checked as written", name, filepath.ToSlash(filepath.Join(home, name))))
		}
	}
}

// isRemoteFile reports whether a resources entry is an http(s) URL of a
// file (its path ends in .yaml, .yml or .json), which kustomize
// downloads rather than clones.
func isRemoteFile(s string) bool {
	l := strings.ToLower(s)
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
		return false
	}
	l, _, _ = strings.Cut(l, "?")
	return strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml") || strings.HasSuffix(l, ".json")
}
