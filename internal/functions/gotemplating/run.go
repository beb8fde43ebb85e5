// This file emulates one function-go-templating call (Request, Response): the
// template read from its source, run, and its output read back as the function
// does.

package gotemplating

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// What function-go-templating reads from and writes to the resources it
// renders (fn.go).
const (
	AnnotationResourceName = "gotemplating.fn.crossplane.io/composition-resource-name"
	AnnotationReady        = "gotemplating.fn.crossplane.io/ready"
	MetaAPIVersion         = "meta.gotemplating.fn.crossplane.io/v1alpha1"
	// ExtraResourcesContextKey is where the function leaves the extra
	// (required) resources it was given, for later steps.
	ExtraResourcesContextKey = "apiextensions.crossplane.io/extra-resources"
	// EnvironmentContextKey is the context key of the environment, where
	// source Environment reads its template.
	EnvironmentContextKey = "apiextensions.crossplane.io/environment"
)

// File is a template file of a FileSystem source: its path relative to
// the source's folder, and its text.
type File = functions.NativeFile

// Request is one call of function-go-templating.
type Request struct {
	// Input is the step's input (a GoTemplate).
	Input map[string]any
	// Data is the RunFunctionRequest as the function's templates see it:
	// its protojson form decoded with integers as int64 (observed,
	// desired, context, extraResources/requiredResources, credentials,
	// input, meta).
	Data map[string]any
	// Files reads a FileSystem source's folder: every regular file below
	// it (hidden ones included; the function's walk skips them), or an
	// error saying why it cannot be read. Nil: FileSystem sources are
	// not available.
	Files func(dir string) ([]File, error)
	// Deadline ends the run (zero: DefaultTimeout from its start). A
	// caller running several templates shares one, so that a pipeline's
	// templates together stay within the budget.
	Deadline time.Time
	// Release is the release of the function whose behaviour to follow
	// ("" when the workspace pins none: the newest, with every template
	// function any version defines).
	Release string
	// SharedContext: the request's context is shared with the response
	// (functions.NativeRequest.SharedContext), so a Context document
	// merges over what earlier ones set.
	SharedContext bool
}

// Composed is a composed resource a run desires.
type Composed struct {
	Name   string
	Object map[string]any
	Ready  string // "True", "False", "Unspecified" or "" (not set)
	// Doc is the index of the output document it came from.
	Doc int
}

// Selector is a required (extra) resource the run asks for.
type Selector struct {
	Name        string
	APIVersion  string
	Kind        string
	MatchName   string
	MatchLabels map[string]string // non-nil unless MatchName is set
	Namespace   string
	// Legacy: also asked for under the deprecated
	// requirements.extraResources (cluster-scoped ones; all of them
	// before v0.12.0, which only asks there).
	Legacy bool
	// Current: asked for under requirements.resources (v0.12.0 on).
	Current bool
}

// ClaimCondition is a condition a ClaimConditions document sets.
type ClaimCondition struct {
	Type, Status, Reason, Message string
	// Target is "Composite" or "CompositeAndClaim".
	Target string
}

// Response is what a run gives: the function's response, in plain Go.
// Apply it to the request's desired state as the function does: the
// composite's status merged (StatusSet), its ready state and connection
// details set, each Composed resource put under its name.
type Response struct {
	// Template is the template that ran (for positions); Source is the
	// input's source.
	Template Template
	Source   string
	// Fatal is the function's Fatal result ("" for none). FatalOffset is
	// where in Template.Text it is about, -1 when unknown. Limit: the run
	// was stopped by crd-lsp's limits, not by the function.
	Fatal       string
	FatalOffset int
	Limit       bool
	// Unavailable: the template is where crd-lsp cannot read it (a
	// FileSystem folder outside the workspace, an environment crd-lsp did
	// not resolve); Fatal says why. The function may well find it.
	Unavailable bool
	// Output is what the template wrote.
	Output string

	// Status is the desired composite's status after the run, when
	// StatusSet; Ready its readiness ("" when not set).
	Status            map[string]any
	StatusSet         bool
	Ready             string
	ConnectionDetails map[string][]byte
	Resources         []Composed
	// Context is the whole context after the run (nil: unchanged).
	Context      map[string]any
	Conditions   []ClaimCondition
	Requirements []Selector
	// NoValue are the actions that wrote "<no value>" (novalue.go).
	NoValue []NoValue
}

func (rsp *Response) fatal(format string, a ...any) Response {
	rsp.Fatal = fmt.Sprintf(format, a...)
	return *rsp
}

// unavailable: a template crd-lsp cannot read, which the function may.
type unavailable struct{ msg string }

func (e *unavailable) Error() string { return e.msg }

// IsGoTemplate says whether a step input is function-go-templating's.
func IsGoTemplate(in map[string]any) bool {
	av, _ := in["apiVersion"].(string)
	return strings.HasPrefix(av, "gotemplating.fn.crossplane.io/") && in["kind"] == "GoTemplate"
}

// Source reads a GoTemplate input's template from where its source says,
// as the function does (template.go); the error is worded as the
// function's ("invalid function input: …" follows from the caller).
func Source(in map[string]any, context map[string]any, files func(string) ([]File, error)) (Template, error) {
	return source(in, context, files, behaviourOf(""))
}

func source(in map[string]any, context map[string]any, files func(string) ([]File, error), b behaviour) (Template, error) {
	src, _ := in["source"].(string)
	switch src {
	case "Inline":
		t, ok := inlineTemplate(in)
		if !ok || len(t.Parts) == 0 {
			if !b.v012 {
				return Template{}, errors.New("inline.template should be provided")
			}
			return Template{}, errors.New("inline.template or inline.templates should be provided")
		}
		return t, nil
	case "FileSystem":
		fsys, _ := in["fileSystem"].(map[string]any)
		dir, _ := fsys["dirPath"].(string)
		if dir == "" {
			return Template{}, errors.New("fileSystem.dirPath should be provided")
		}
		if files == nil {
			return Template{}, &unavailable{fmt.Sprintf("cannot read tmpl from the folder {%s}: crd-lsp reads FileSystem templates only from the workspace", dir)}
		}
		list, err := files(dir)
		if err != nil {
			return Template{}, &unavailable{fmt.Sprintf("cannot read tmpl from the folder {%s}: %s", dir, err)}
		}
		t := delims(in)
		t.Source = "FileSystem"
		sortWalk(list)
		var b strings.Builder
		for _, f := range list {
			if hidden(f.Path) {
				continue
			}
			t.Parts = append(t.Parts, Part{Index: -1, File: f.Path, Start: b.Len(), End: b.Len() + len(f.Text)})
			b.WriteString(f.Text)
			b.WriteString("\n---\n")
			if b.Len() > MaxTemplateSize {
				break // Bounds refuses it
			}
		}
		t.Text = b.String()
		return t, nil
	case "Environment":
		envIn, _ := in["environment"].(map[string]any)
		key, _ := envIn["key"].(string)
		if key == "" {
			return Template{}, errors.New("environment.key should be provided")
		}
		env, ok := context[EnvironmentContextKey].(map[string]any)
		if !ok {
			return Template{}, &unavailable{fmt.Sprintf("cannot read tmpl from the environment: %s key does not exist in context", EnvironmentContextKey)}
		}
		v, ok := env[key]
		if !ok {
			return Template{}, &unavailable{fmt.Sprintf("cannot read tmpl from the environment: key: %s does not exist", key)}
		}
		s, ok := v.(string)
		if !ok {
			return Template{}, fmt.Errorf("cannot read tmpl from the environment: key: %s value is not a string", key)
		}
		t := delims(in)
		t.Source = "Environment"
		t.Text = s
		t.Parts = []Part{{Index: -1, Start: 0, End: len(s)}}
		return t, nil
	case "":
		return Template{}, errors.New("source is required")
	}
	return Template{}, fmt.Errorf("invalid source: %s", src)
}

func delims(in map[string]any) Template {
	t := Template{Left: "{{", Right: "}}"}
	if d, ok := in["delims"].(map[string]any); ok {
		l, lok := d["left"].(string)
		r, rok := d["right"].(string)
		if lok && rok {
			if l != "" {
				t.Left = l
			}
			if r != "" {
				t.Right = r
			}
		}
	}
	return t
}

func hidden(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if strings.HasPrefix(s, ".") && s != "." && s != ".." {
			return true
		}
	}
	return false
}

// sortWalk orders files as fs.WalkDir visits them: lexically by name
// within each folder, a folder's files where its name sorts.
func sortWalk(list []File) {
	sort.Slice(list, func(i, j int) bool {
		a, b := strings.Split(list[i].Path, "/"), strings.Split(list[j].Path, "/")
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

// Run runs function-go-templating's RunFunction on req in-process (fn.go
// of v0.12.x): the template from its source, parsed with the function's
// name, delimiters, options and functions, run on the request, its output
// decoded document by document and read as the function reads it. A run
// stays within crd-lsp's limits (Bounds before parsing; steps, time,
// output and value sizes while running): past one it stops with Limit
// set. It never panics.
func Run(ctx context.Context, req Request) (rsp Response) {
	rsp.FatalOffset = -1
	defer func() {
		if r := recover(); r != nil {
			rsp.Fatal = fmt.Sprintf("crd-lsp could not render the template: %v", r)
		}
	}()
	in := req.Input
	b := behaviourOf(req.Release)
	rsp.Source, _ = in["source"].(string)
	if msg := decodeInput(in, b); msg != "" {
		return rsp.fatal("%s", msg)
	}
	context, _ := req.Data["context"].(map[string]any)
	t, err := source(in, context, req.Files, b)
	if err != nil {
		var u *unavailable
		rsp.Unavailable = errors.As(err, &u)
		return rsp.fatal("invalid function input: %v", err)
	}
	rsp.Template = t
	if le := Bounds(t.Text, t.Left, t.Right); le != nil {
		rsp.Limit, rsp.FatalOffset = true, le.Offset
		return rsp.fatal("%s", le.Message)
	}
	r := &run{b: b, ctx: ctx, deadline: req.Deadline}
	if r.deadline.IsZero() {
		r.deadline = time.Now().Add(DefaultTimeout)
	}
	tpl := template.New("manifests").Delims(t.Left, t.Right)
	tpl.Funcs(r.funcs(tpl))
	if _, err := tpl.Parse(t.Text); err != nil {
		p := problem(t, err.Error())
		rsp.FatalOffset = p.Start
		return rsp.fatal("invalid function input: cannot parse the provided templates: %v", err)
	}
	nv := markNoValue(tpl)
	instrument(tpl)
	if opts, ok := in["options"].([]any); ok && b.v012 {
		var o []string
		for _, v := range opts {
			s, _ := v.(string)
			o = append(o, s)
		}
		if err := applyOptions(tpl, o); err != nil {
			return rsp.fatal("cannot apply template options: %v", err)
		}
	}
	data := req.Data
	if _, ok := data["extraResources"]; !ok && b.v012 {
		// fn.go convertToMap: required resources are offered as extra
		// resources too.
		if rr, ok := data["requiredResources"]; ok {
			data = maps.Clone(data)
			data["extraResources"] = rr
		}
	}
	w := &writer{r: r, max: MaxOutput}
	err = tpl.Execute(w, data)
	if r.limit != nil {
		rsp.Limit = true
		if m := execAt.FindStringSubmatch(fmt.Sprint(err)); m != nil {
			return rsp.fatal("%s%s", m[0], r.limit.Message)
		}
		return rsp.fatal("%s", r.limit.Message)
	}
	if err != nil {
		return rsp.fatal("cannot execute template: %v", err)
	}
	rsp.Output = w.b.String()
	rsp.NoValue = nv.places()
	read(&rsp, req, b)
	return rsp
}

// execAt is the position text/template gives an execution error.
var execAt = regexp.MustCompile(`template: manifests:\d+:\d+: `)

func applyOptions(t *template.Template, o []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic occurred while applying template options: %v", r)
		}
	}()
	t.Option(o...)
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(s)
}
