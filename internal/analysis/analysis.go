// Package analysis is crd-lsp's language logic: it takes an immutable parsed
// file (internal/document) and an immutable schema snapshot
// (internal/schemas) and returns plain results positioned by byte spans.
//
// Invariants: no LSP or JSON-RPC types, no network, no file-system access;
// every function is safe to call concurrently on shared snapshots and honours
// ctx cancellation. Results never depend on anything but the arguments.
package analysis

import (
	"gopkg.in/yaml.v3"

	"context"
	"fmt"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions/gotemplating"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Diagnostic is one problem found in a file.
type Diagnostic struct {
	Span     document.Span
	Severity severity.Severity
	// Code is stable across releases; users and tests key on it.
	Code    string
	Message string
	// What a quick fix needs, as data (never parsed from Message): Replace
	// is the text that most likely belongs in place of Span (the field a
	// misspelt name meant); Missing a required field the object whose key
	// Span covers lacks.
	Replace, Missing string
	// Path is the field the finding concerns, as the API server names it
	// (spec.listeners[2].port, metadata.labels[app.kubernetes.io/name]; a
	// missing required field's own path), whatever Span it falls back to;
	// "" for a finding about no field (the YAML text, the whole file).
	Path string
}

// Env is everything besides the file that analysis may read, in three
// named parts: what the workspace provides for the file, the role the
// file plays in it, and the user's options. A front end builds it once per
// request (loader.World.EnvWith in the editor and the CLI); analysis never
// reaches past it. The zero Env is valid: no schemas, a plain manifest,
// default options.
type Env struct {
	Workspace Workspace
	Role      Role
	Options   Options
}

// Workspace is what the workspace provides for a file: the schemas and
// Crossplane version that apply to it, what its package lacks, and the
// workspace's other files a Composition of it is rendered with (example
// composites, Functions, template files, the cluster's objects).
type Workspace struct {
	Schemas *schemas.Store
	// CrossplaneMajor is the targeted Crossplane version (1 or 2); 0 means
	// unknown and skips version-specific checks.
	CrossplaneMajor int
	// OtherMajor is the other Crossplane major whose built-in schemas
	// serve gvk (a kind one of them removed or added), 0 for none; nil
	// when unknown. Only asked about kinds no schema serves.
	OtherMajor func(gvk schemas.GVK) int
	// Unpulled is how many dependencies of the crossplane.yaml the file
	// belongs to the package cache lacks: an unknown kind may be theirs.
	Unpulled int
	// DependsOn is where the file's package root lists dependencies, for
	// messages: "dependsOn in crossplane.yaml" (the default), "spec.dependencies
	// in crossplane-project.yaml", "dependsOn in upbound.yaml".
	DependsOn string
	// EmbeddedFunction describes a step's functionRef name when it names
	// a function the file's project embeds ("" otherwise; nil: none), for
	// messages about the step.
	EmbeddedFunction func(ref string) string
	// FunctionOf resolves a pipeline step's functionRef.name to the
	// function package it runs: a Function object of the workspace, or a
	// function dependency of the crossplane.yaml the file belongs to
	// (Crossplane names a dependency's Function after its repository:
	// crossplane-contrib-function-patch-and-transform). nil or false:
	// unknown.
	FunctionOf func(name string) (StepFunction, bool)
	// DefinedFunctions lists the Function names a step of this file may
	// name (the workspace's Function objects, the Functions the nearest
	// package root's dependencies install, the functions a project
	// embeds); complete is false when they cannot all be known. nil:
	// unknown.
	DefinedFunctions func() (names []string, complete bool)
	// Render is what only rendering a Composition reads (RenderInputs),
	// built by the front end on first use and at most once per Env: a
	// hover, a completion or a file without a Composition never builds
	// it. nil: nothing known (no examples, no cluster, no template files).
	Render func() RenderInputs
}

// RenderInputs are the workspace's inputs of a rendering, besides the
// schemas and functions every request reads.
type RenderInputs struct {
	// Examples returns the workspace's example composites (XRs or claims)
	// of an XR kind, best first; nil means none are known.
	Examples func(schemas.GVK) []Example
	// Cluster is what is known of the cluster Compositions run in: the
	// EnvironmentConfigs their environment is built from, other
	// resources functions may require, the context a pipeline starts
	// with (environment.go).
	Cluster Cluster
	// TemplateFiles reads the template files of a function-go-templating
	// FileSystem source's folder (dirPath) for a Composition of this
	// file: the files below it in the workspace, by path relative to the
	// folder. Nil, or an error, and the step is not rendered.
	TemplateFiles func(dir string) ([]gotemplating.File, error)
}

// Rendering is the Env's render inputs (Render's, built on this first
// call; zero without Render).
func (w Workspace) Rendering() RenderInputs {
	if w.Render == nil {
		return RenderInputs{}
	}
	return w.Render()
}

// Given is a Render that answers r (an Env written literally, in tests
// and for inputs already at hand).
func Given(r RenderInputs) func() RenderInputs { return func() RenderInputs { return r } }

// Role is what the file is for, as the workspace around it says: a
// manifest (the zero Role), not a manifest at all, or a fragment another
// file patches into an object. It decides which findings apply, not how
// objects are checked.
type Role struct {
	// Skip says why the file is not a manifest at all (a Helm chart's
	// template or Chart.yaml): it gets no findings. "" checks it.
	Skip string
	// PatchOf is the file that applies this one as a patch (a
	// kustomization, a chainsaw Test; "" for none): its documents are
	// fragments merged into an object, so only what they set is checked
	// (partial.go).
	PatchOf string
	// Expressions: string values written "(…)" are expressions a tool
	// evaluates before the object goes anywhere (chainsaw's templating);
	// findings on them are dropped.
	Expressions bool
}

// Options are the user's settings (the editor's crdLsp.*, check's flags)
// and the function runner the front end configured.
type Options struct {
	// UnknownKind is the severity of "no schema for this kind"; zero silences it.
	UnknownKind severity.Severity
	// ClientKinds extends the built-in list of client-side configuration
	// kinds (Kustomization and the like), which are not validated: API
	// groups, or Kind.group ("Kind" for the core group).
	ClientKinds []string
	// CompositionMode is the default schema-aware validation mode for
	// Compositions (the zero Mode is warn); a Composition's annotation
	// overrides it.
	CompositionMode composition.Mode
	// UptestPlaceholders: uptest's template variables in values
	// (${Rand.RFC1123Subdomain}, ${data.…}, in every upjet provider's
	// examples) stand for the values uptest substitutes before applying:
	// a random RFC 1123 subdomain is checked as one, other variables are
	// not judged.
	UptestPlaceholders bool
	// Pipeline runs Composition pipelines with real functions; nil when
	// none are configured (patch-and-transform steps are then rendered
	// natively and other steps pass the desired state through, noted).
	Pipeline Pipeline
}

// Example is an example composite resource (or claim) found in the
// workspace, which Compositions of its kind are rendered with.
type Example struct {
	Path   string
	Object map[string]any
}

// ExampleIn returns the first object of text whose apiVersion and kind
// want accepts.
func ExampleIn(path string, text []byte, want func(apiVersion, kind string) bool) (Example, bool) {
	return FirstExample(ObjectsIn(path, text), want)
}

// CompositeIn returns the composite resource a user names for a render
// (crd-lsp render --xr, the preview's XR file, the MCP render tool's xr):
// the first object of text that has a kind; nil when none parses.
func CompositeIn(path string, text []byte) map[string]any {
	ex, _ := ExampleIn(path, text, func(_, kind string) bool { return kind != "" })
	return ex.Object
}

// ObjectsIn returns the objects of text that parse, in document order.
func ObjectsIn(path string, text []byte) []Example {
	var out []Example
	for _, d := range document.Parse(path, 0, text).Docs {
		obj, err := d.Object()
		if m, _ := obj.(map[string]any); err == nil && m != nil {
			out = append(out, Example{Path: path, Object: m})
		}
	}
	return out
}

// FirstExample returns the first of objs whose apiVersion and kind want
// accepts.
func FirstExample(objs []Example, want func(apiVersion, kind string) bool) (Example, bool) {
	for _, o := range objs {
		av, _ := o.Object["apiVersion"].(string)
		k, _ := o.Object["kind"].(string)
		if want(av, k) {
			return o, true
		}
	}
	return Example{}, false
}

// Diagnose returns every diagnostic of f, sorted by position.
func Diagnose(ctx context.Context, f *document.File, env Env) []Diagnostic {
	if env.Role.Skip != "" {
		return nil
	}
	var out []Diagnostic
	for _, d := range f.Docs {
		if ctx.Err() != nil {
			return nil
		}
		out = append(out, diagnoseDoc(ctx, d, env)...)
	}
	sortDiagnostics(out)
	return out
}

func diagnoseDoc(ctx context.Context, d *document.Doc, env Env) (out []Diagnostic) {
	defer func() {
		// A bug must not silence a document: say so where it starts.
		if r := recover(); r != nil {
			out = append(out, Diagnostic{Span: document.Span{Start: d.Span.Start, End: d.Span.Start}, Severity: severity.Error, Code: "internal",
				Message: fmt.Sprintf("crd-lsp failed while checking this document (%v); other documents are still checked. Please report this with the document.", r)})
		}
	}()
	for _, e := range d.Errors {
		code := "yaml-syntax"
		if e.Duplicate {
			code = "duplicate-key"
		}
		out = append(out, Diagnostic{Span: e.Span, Severity: severity.Error, Code: code, Message: e.Message})
	}
	if len(d.Errors) > 0 || d.Root == nil {
		return out
	}
	obj, err := d.Object()
	if err != nil {
		if k := collectionKey(d.Root, 0); k != nil {
			return append(out, Diagnostic{Span: d.File.NodeSpan(k), Severity: severity.Error, Code: "yaml-value",
				Message: "a mapping key must be a string, and this one is a flow mapping or list: a template placeholder such as {{ name }} reads as one (a template is YAML only once rendered)"})
		}
		return append(out, Diagnostic{Span: d.File.NodeSpan(d.Root), Severity: severity.Error, Code: "yaml-value", Message: err.Error()})
	}
	m, ok := obj.(map[string]any)
	if !ok {
		return out
	}
	return append(out, validateObject(ctx, d, m, env)...)
}

// resourceHeader reads apiVersion and kind. ok is false when the document is
// not a Kubernetes object at all (neither field present), which is not an
// error: plenty of YAML in a repository is something else.
func resourceHeader(d *document.Doc, m map[string]any) (id schemas.GVK, diags []Diagnostic, ok bool) {
	apiVersion, hasAV := m["apiVersion"]
	kind, hasKind := m["kind"]
	if !hasAV && !hasKind {
		return id, nil, false
	}
	av, avOK := apiVersion.(string)
	k, kOK := kind.(string)
	switch {
	case !hasAV:
		return id, []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("kind")}, true, severity.Error, "missing-apiversion", "missing required field \"apiVersion\"")}, false
	case !hasKind && isNumber(apiVersion):
		// Not a Kubernetes object: other formats have an apiVersion too,
		// a number (Grafana's provisioning files: apiVersion: 1).
		return id, nil, false
	case !hasKind:
		return id, []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, true, severity.Error, "missing-kind", "missing required field \"kind\"")}, false
	case !avOK || av == "":
		return id, []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, false, severity.Error, "type", "apiVersion must be a non-empty string such as \"apps/v1\"")}, false
	case !kOK || k == "":
		return id, []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("kind")}, false, severity.Error, "type", "kind must be a non-empty string such as \"Deployment\"")}, false
	}
	parsed := gvk.Parse(av, k)
	if strings.Contains(parsed.Version, "/") || parsed.Version == "" {
		return id, []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, false, severity.Error, "apiversion", fmt.Sprintf("apiVersion %q must be \"group/version\" or \"version\"", av))}, false
	}
	return parsed, nil, true
}

// collectionKey is the first mapping key below n that is itself a mapping
// or a sequence (what "{{ name }}" parses as), nil when there is none.
func collectionKey(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > 100 {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.MappingNode || k.Kind == yaml.SequenceNode {
				return k
			}
		}
	}
	for _, c := range n.Content {
		if k := collectionKey(c, depth+1); k != nil {
			return k
		}
	}
	return nil
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64, int:
		return true
	}
	return false
}

// namedPath words a path for a message, naming a Composition's resource
// template by its name rather than its index (resource "xNetwork",
// base.spec.forProvider.region, not
// spec.pipeline[0].input.resources[3].base.spec.forProvider.region).
func namedPath(d *document.Doc, p fieldpath.Path) string {
	for k := len(p) - 1; k > 0; k-- {
		if p[k].Kind != fieldpath.KindIndex || p[k-1].Kind != fieldpath.KindField || p[k-1].Field != "resources" {
			continue
		}
		_, v, ok := d.Lookup(p[:k+1].Child(fieldpath.Field("name")))
		if !ok || v.Kind != yaml.ScalarNode || v.Value == "" {
			break
		}
		if rest := p[k+1:]; len(rest) > 0 {
			return fmt.Sprintf("resource %q, %s", v.Value, rest.String())
		}
		return fmt.Sprintf("resource %q", v.Value)
	}
	return p.String()
}

// diagnosticAt positions a diagnostic on path in d: on the key when onKey and the node
// has one, on the value otherwise. A path that does not exist in the text
// falls back to its nearest existing ancestor, never dropping the diagnostic;
// the message then names the full path so nothing is lost.
func diagnosticAt(d *document.Doc, p fieldpath.Path, onKey bool, sev severity.Severity, code, msg string) Diagnostic {
	key, val, ok := d.Spans(p)
	if !ok {
		var near fieldpath.Path
		near, key, val = d.Nearest(p)
		onKey = true
		if len(near) == 0 {
			// Nothing of the path exists: point at the kind, which names the object.
			if k, v, ok := d.Spans(fieldpath.Path{fieldpath.Field("kind")}); ok {
				key, val = k, v
				onKey = false
			}
		}
		if ps := p.String(); ps != "" && !strings.Contains(msg, ps) {
			msg = namedPath(d, p) + ": " + msg
		}
	}
	span := val
	if onKey && key != (document.Span{}) {
		span = key
	}
	if span.End <= span.Start && key != (document.Span{}) {
		span = key
	}
	return Diagnostic{Span: span, Severity: sev, Code: code, Message: msg, Path: p.String()}
}
