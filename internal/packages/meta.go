// This file parses crossplane.yaml (ParseMeta): its dependsOn entries and
// positioned problems.

package packages

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/registry"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// MetaGroup is the API group of package metadata (crossplane.yaml).
const MetaGroup = "meta.pkg.crossplane.io"

// DefaultRegistry is used for package names without a registry host.
const DefaultRegistry = "xpkg.crossplane.io"

// Span is a half-open range of byte offsets in a file.
type Span struct {
	Start, End int
}

// Problem is something wrong in a crossplane.yaml, positioned by byte offsets.
type Problem struct {
	Offset, End int
	Severity    severity.Severity
	Message     string
	// Syntax marks a YAML syntax error (editors report those already).
	Syntax bool
	// Kind is set for the outcome of a dependency (see ResultProblems).
	Kind Kind
}

// Meta is a parsed crossplane.yaml (or a package's metadata document).
type Meta struct {
	Path       string
	APIVersion string // e.g. meta.pkg.crossplane.io/v1
	Kind       string // Configuration, Provider or Function
	Name       string // metadata.name
	Crossplane string // spec.crossplane.version, if any
	Deps       []Dependency
	Problems   []Problem
	// Project files only (project.go): the repository the project's
	// packages are pushed to, the functions it embeds by name (as
	// spec.functions lists them; none listed: the folders of
	// FunctionsPath), and that folder (spec.paths.functions, default
	// "functions").
	Repository    string
	Functions     []string
	FunctionsPath string

	file    *document.File // the text, its lines and its nodes' spans
	project bool           // a project file (project.go): crossplane.yaml's deprecations do not apply
}

// Dependency is one spec.dependsOn entry.
type Dependency struct {
	// Package is the fully qualified repository (registry host included, no
	// tag or digest), qualified with DefaultRegistry when the name has no
	// host; a Client qualifies Name with its own default registry instead.
	Package string
	// Name is the package as written, without a tag or digest.
	Name string
	// Constraint is the version field as written: a semver constraint
	// (">=v1.2.0 <v2", "~1.4", "v1.4.0") or a digest ("sha256:…").
	Constraint string
	// Kind is Provider, Configuration or Function (or the kind given in the
	// package: form); APIVersion is set in the package: form only.
	Kind, APIVersion string
	// File is the crossplane.yaml path, or for a dependency of a
	// dependency, the Path of the package that declares it.
	File string
	// Span covers the whole dependsOn entry; PackageSpan and VersionSpan
	// cover the values of the package (provider:, configuration:,
	// function: or package:) and version: fields (zero when absent).
	Span, PackageSpan, VersionSpan Span
}

// String returns the package and its quoted constraint.
func (d Dependency) String() string {
	if d.Constraint == "" {
		return d.Package
	}
	return d.Package + " " + strconv.Quote(d.Constraint)
}

// Pos converts a byte offset of the file into a 1-based line and a 1-based
// byte column.
func (m *Meta) Pos(offset int) (line, col int) { return m.file.Mapper.LineCol(offset) }

// ParseMeta parses crossplane.yaml content. It never fails: problems are
// positioned values in the result. The first document whose apiVersion is
// in the meta.pkg.crossplane.io group is used.
func ParseMeta(path string, data []byte) *Meta {
	m := &Meta{Path: path, file: document.Parse(path, 0, data)}
	found := false
	for _, d := range m.file.Docs {
		if len(d.Errors) > 0 {
			e := d.Errors[0]
			m.problem(Span{e.Span.Start, e.Span.Start}, severity.Error, "YAML syntax error: "+strings.TrimPrefix(e.Message, "yaml: "))
			m.Problems[len(m.Problems)-1].Syntax = true
			break
		}
		root := d.Root
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		av := mapGet(root, "apiVersion")
		if g, ok := isProjectDoc(path, av); ok {
			found = true
			m.parseProject(root, data, g)
			break
		}
		if av == nil || !strings.HasPrefix(av.Value, MetaGroup+"/") {
			continue
		}
		found = true
		m.parseDoc(root, data)
		break
	}
	if !found && len(m.Problems) == 0 {
		if g := projectGroup(path); g != "" {
			m.problem(Span{0, 0}, severity.Error, "no "+g+" Project in "+filepath.Base(path))
		} else {
			m.problem(Span{0, 0}, severity.Error, "no "+MetaGroup+" Configuration, Provider or Function in "+filepath.Base(path))
		}
	}
	return m
}

func (m *Meta) parseDoc(root *yaml.Node, data []byte) {
	av := mapGet(root, "apiVersion")
	m.APIVersion = av.Value
	switch strings.TrimPrefix(av.Value, MetaGroup+"/") {
	case "v1", "v1beta1", "v1alpha1":
		// Crossplane still reads and converts all three.
	default:
		m.problem(m.span(av, data), severity.Error, "unknown package metadata version "+strconv.Quote(av.Value)+"; use "+MetaGroup+"/v1")
	}
	if k := mapGet(root, "kind"); k != nil {
		m.Kind = k.Value
		switch k.Value {
		case "Configuration", "Provider", "Function":
		default:
			m.problem(m.span(k, data), severity.Error, "unknown package kind "+strconv.Quote(k.Value)+"; want Configuration, Provider or Function")
		}
	}
	if md := mapGet(root, "metadata"); md != nil {
		if n := mapGet(md, "name"); n != nil {
			m.Name = n.Value
		}
	}
	spec := mapGet(root, "spec")
	if spec == nil {
		return
	}
	if cp := mapGet(spec, "crossplane"); cp != nil {
		if v := mapGet(cp, "version"); v != nil {
			m.Crossplane = v.Value
		}
	}
	deps := mapGet(spec, "dependsOn")
	if deps == nil || deps.Kind != yaml.SequenceNode {
		return
	}
	for _, e := range deps.Content {
		m.parseDep(e, data)
	}
}

func (m *Meta) parseDep(e *yaml.Node, data []byte) {
	if e.Kind != yaml.MappingNode {
		m.problem(m.span(e, data), severity.Error, "a dependsOn entry must be a mapping")
		return
	}
	d := Dependency{File: m.Path, Span: m.span(e, data)}
	var typed []string
	var pkgNode *yaml.Node
	for _, f := range []string{"provider", "configuration", "function"} {
		if n := mapGet(e, f); n != nil {
			typed = append(typed, f)
			if pkgNode == nil {
				pkgNode = n
				d.Kind = strings.ToUpper(f[:1]) + f[1:]
			}
		}
	}
	av, kind, pkg := mapGet(e, "apiVersion"), mapGet(e, "kind"), mapGet(e, "package")
	switch {
	case pkg != nil && av != nil && kind != nil:
		// Crossplane gives the explicit form precedence.
		pkgNode, d.Kind, d.APIVersion = pkg, kind.Value, av.Value
	case pkg != nil && len(typed) == 0:
		m.problem(m.span(pkg, data), severity.Error, "package: needs apiVersion: and kind: (e.g. pkg.crossplane.io/v1 Provider)")
		return
	case len(typed) == 0:
		m.problem(d.Span, severity.Error, "a dependency needs provider:, configuration:, function:, or package: with apiVersion: and kind:")
		return
	}
	if len(typed) > 1 {
		m.problem(d.Span, severity.Error, "set only one of "+strings.Join(typed, ", "))
	}
	if d.APIVersion == "" && len(typed) == 1 && !m.project {
		// Crossplane's meta API (apis/pkg/meta/v1 Dependency) marks these
		// fields deprecated; they still work.
		key := mapKey(e, typed[0])
		m.problem(m.span(key, data), severity.Hint, typed[0]+": is deprecated in Crossplane's package metadata (still supported): write apiVersion: pkg.crossplane.io/v1, kind: "+d.Kind+" and package: instead")
	}
	if pkgNode.Kind != yaml.ScalarNode || strings.TrimSpace(pkgNode.Value) == "" {
		m.problem(m.span(pkgNode, data), severity.Error, "the package name must be a non-empty string")
		return
	}
	d.PackageSpan = m.span(pkgNode, data)
	name := strings.TrimSpace(pkgNode.Value)
	if v := mapGet(e, "version"); v != nil {
		d.Constraint = strings.TrimSpace(v.Value)
		d.VersionSpan = m.span(v, data)
	}
	if bare, extra := splitTag(name); extra != "" {
		name = bare
		switch {
		case d.Constraint != "":
			m.problem(d.PackageSpan, severity.Warning, "the "+extra+" in the package name is ignored; version: "+strconv.Quote(d.Constraint)+" is used")
		case strings.HasPrefix(extra, "@"):
			d.Constraint = extra[1:] // a digest pin
		default:
			d.Constraint = extra[1:]
			m.problem(d.PackageSpan, severity.Warning, "put the tag in version: (Crossplane expects the package name without a tag)")
		}
	}
	d.Name = name
	d.Package = Qualify(name, DefaultRegistry)
	if _, err := registry.ParseReference(d.Package); err != nil {
		m.problem(d.PackageSpan, severity.Error, "invalid package name "+strconv.Quote(name)+": "+strings.TrimPrefix(err.Error(), "invalid reference: "))
		return
	}
	m.Deps = append(m.Deps, d)
}

func (m *Meta) problem(s Span, sev severity.Severity, msg string) {
	m.Problems = append(m.Problems, Problem{Offset: s.Start, End: s.End, Severity: sev, Message: msg})
}

// Qualify prefixes a package name without a registry host with reg. A
// first path component is a host when it contains a dot or a colon or is
// "localhost", as for container images.
func Qualify(name, reg string) string {
	first, _, ok := strings.Cut(name, "/")
	if ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return name
	}
	return reg + "/" + name
}

// splitTag removes a ":tag" or "@digest" suffix from an image name.
func splitTag(name string) (bare, extra string) {
	if i := strings.Index(name, "@"); i >= 0 {
		name, extra = name[:i], name[i:]
	}
	slash := strings.LastIndex(name, "/")
	if i := strings.LastIndex(name, ":"); i > slash {
		if extra == "" {
			extra = name[i:]
		}
		name = name[:i]
	}
	return name, extra
}

// --- YAML node helpers ---

func mapGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mapKey returns the key node of key in a mapping.
func mapKey(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// span is the byte range of a node's source text.
func (m *Meta) span(n *yaml.Node, _ []byte) Span {
	sp := m.file.NodeSpan(n)
	return Span{sp.Start, sp.End}
}

// String returns the problem as "severity: message".
func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Severity, p.Message) }

// ResultProblems positions the failed outcomes of resolving m's
// dependencies on m's dependsOn entries: constraint problems on the
// version, the others on the package; a transitive dependency's on the
// direct one it came through, naming the chain. Results the cache could
// not answer (KindNotCached) are left out unless notCached is true.
func ResultProblems(m *Meta, results []Result, notCached bool) []Problem {
	var out []Problem
	for _, r := range results {
		if r.Err == nil {
			continue
		}
		kind := KindOf(r.Err)
		if kind == KindNotCached && !notCached {
			continue
		}
		root := r.Dep
		if len(r.Via) > 0 && r.Root >= 0 && r.Root < len(results) {
			root = results[r.Root].Dep
		}
		var dep *Dependency
		for i := range m.Deps {
			if m.Deps[i].Name == root.Name && m.Deps[i].Constraint == root.Constraint {
				dep = &m.Deps[i]
				break
			}
		}
		if dep == nil {
			continue
		}
		span := dep.PackageSpan
		if kind == KindConstraint || kind == KindNoMatch || kind == KindConflict {
			span = dep.VersionSpan
		}
		if span.End == 0 {
			span = dep.Span
		}
		sev := severity.Error
		if IsWarning(r.Err) {
			sev = severity.Warning
		}
		msg := r.Err.Error()
		if len(r.Via) > 0 {
			msg = fmt.Sprintf("%s (required by %s)", msg, strings.Join(r.Via, " → "))
		}
		out = append(out, Problem{Offset: span.Start, End: span.End, Severity: sev, Message: msg, Kind: kind})
	}
	return out
}
