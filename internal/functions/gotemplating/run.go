// This file emulates one function-go-templating call (Request, Response): the
// template read from its source, run, and its output read back as the function
// does.

package gotemplating

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
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

	Status            map[string]any
	StatusSet         bool
	Ready             string
	ConnectionDetails map[string][]byte
	Resources         []Composed
	// Context is the context after the run (nil: unchanged).
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
	src, _ := in["source"].(string)
	switch src {
	case "Inline":
		t, ok := FromInput(in)
		if !ok || len(t.Parts) == 0 {
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
	rsp.Source, _ = in["source"].(string)
	context, _ := req.Data["context"].(map[string]any)
	t, err := Source(in, context, req.Files)
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
	r := &run{ctx: ctx, deadline: req.Deadline}
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
	if opts, ok := in["options"].([]any); ok {
		var o []string
		for _, v := range opts {
			s, _ := v.(string)
			o = append(o, s)
		}
		if err := applyOptions(tpl, o); err != nil {
			return rsp.fatal("cannot apply template options: %v", err)
		}
	}
	w := &writer{r: r, max: MaxOutput}
	err = tpl.Execute(w, req.Data)
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
	read(&rsp, req)
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

// splitYAML splits a stream as Kubernetes' YAML reader does: at lines
// starting with "---" followed by nothing but space or a comment.
// starts holds each document's first line in the stream (1-based).
func splitYAML(s string) (docs []string, starts []int, err error) {
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64*1024), MaxOutput+1)
	n, start := 0, 1
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "---") {
			rest := strings.TrimSpace(line[3:])
			if rest != "" && rest[0] != '#' {
				return nil, nil, fmt.Errorf("invalid Yaml document separator: %s", rest)
			}
			if cur.Len() > 0 {
				docs, starts = append(docs, cur.String()), append(starts, start)
				cur.Reset()
			}
			start = n + 1
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if cur.Len() > 0 {
		docs, starts = append(docs, cur.String()), append(starts, start)
	}
	return docs, starts, sc.Err()
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError words a YAML error of an output document as the function
// does: its line in the whole output, in the document, and the line's
// text.
func yamlError(err error, doc string, start, index int) string {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Sprintf("error converting YAML to JSON: %v", err)
	}
	rel, _ := strconv.Atoi(m[1])
	lines := strings.Split(doc, "\n")
	near := ""
	if rel >= 1 && rel <= len(lines) {
		near = strings.TrimSpace(lines[rel-1])
	}
	if len(near) > 80 {
		near = near[:80] + "..."
	}
	return fmt.Sprintf("error converting YAML to JSON: yaml: line %d (document %d, line %d) near: '%s': %s", start+rel-1, index+1, rel, near, m[2])
}

// read turns a run's output into the response, as fn.go does.
func read(rsp *Response, req Request) {
	docs, starts, err := splitYAML(rsp.Output)
	if err != nil {
		rsp.fatal("cannot decode manifest: %v", err)
		return
	}
	type obj struct {
		m   map[string]any
		doc int
	}
	var objs []obj
	for i, d := range docs {
		j, err := sigsyaml.YAMLToJSON([]byte(d))
		if err != nil {
			rsp.fatal("cannot decode manifest: %s", yamlError(err, d, starts[i], i))
			return
		}
		if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
			continue
		}
		m, err := decodeJSON(j)
		if err != nil {
			rsp.fatal("cannot decode manifest: %v (document %d)", err, i+1)
			return
		}
		if k, _ := m["kind"].(string); k == "" {
			rsp.fatal("cannot decode manifest: Object 'Kind' is missing in '%s'", truncate(string(bytes.TrimSpace(j)), 200))
			return
		}
		if ann, ok := lookup(m, "metadata", "annotations").(map[string]any); ok {
			for k, v := range ann {
				if _, ok := v.(string); !ok {
					// The function's wording, but values written as
					// YAML (not Go's map[key:team] and its types).
					name, ok := ann[AnnotationResourceName].(string)
					if !ok && ann[AnnotationResourceName] != nil {
						name = yamlflow.Value(ann[AnnotationResourceName])
					}
					rsp.fatal("invalid annotations in resource '%s resource-name=%s': .metadata.annotations accessor error: contains non-string value in the map under key %q: %s is %s, expected a string", gvkString(m), name, k, yamlflow.Value(v), kindOf(v))
					return
				}
			}
		}
		objs = append(objs, obj{m, i})
	}
	observed, _ := lookup(req.Data, "observed", "composite", "resource").(map[string]any)
	desiredStatus, hasStatus := lookup(req.Data, "desired", "composite", "resource", "status").(map[string]any)
	ctxIn, _ := req.Data["context"].(map[string]any)
	extraSeen := map[string]bool{}
	for _, o := range objs {
		m := o.m
		av, _ := m["apiVersion"].(string)
		kind, _ := m["kind"].(string)
		ann, _ := lookup(m, "metadata", "annotations").(map[string]any)
		ready := ""
		if av != MetaAPIVersion {
			if v, found := ann[AnnotationReady]; found {
				s, _ := v.(string)
				if s != "True" && s != "Unspecified" && s != "False" {
					rsp.fatal("invalid function input: invalid %q annotation value %q: must be True, False, or Unspecified", AnnotationReady, s)
					return
				}
				ready = s
				delete(ann, AnnotationReady)
			}
		}
		name, nameFound := ann[AnnotationResourceName].(string)
		if av == observed["apiVersion"] && kind == observed["kind"] && !nameFound {
			src, srcExists := m["status"].(map[string]any)
			if hasStatus || srcExists {
				dst := map[string]any{}
				if rsp.StatusSet {
					dst = rsp.Status
				} else if hasStatus {
					dst, _ = deepCopy(desiredStatus).(map[string]any)
				}
				mergeOverride(dst, src)
				rsp.Status, rsp.StatusSet = dst, true
			}
			if ready != "" {
				rsp.Ready = ready
			}
			continue
		}
		if av == MetaAPIVersion {
			switch kind {
			case "CompositeConnectionDetails":
				data, _ := m["data"].(map[string]any)
				strs := true
				for _, v := range data {
					if _, ok := v.(string); !ok {
						strs = false
					}
				}
				if strs {
					for k, v := range data {
						b, _ := base64.StdEncoding.DecodeString(v.(string))
						if rsp.ConnectionDetails == nil {
							rsp.ConnectionDetails = map[string][]byte{}
						}
						rsp.ConnectionDetails[k] = b
					}
				}
			case "ClaimConditions":
				list, ok := m["conditions"].([]any)
				if !ok && m["conditions"] != nil {
					rsp.fatal("cannot get Conditions from input: conditions is not a list")
					return
				}
				for _, c := range list {
					cm, _ := c.(map[string]any)
					var cc ClaimCondition
					cc.Type, _ = cm["type"].(string)
					cc.Status, _ = cm["status"].(string)
					cc.Reason, _ = cm["reason"].(string)
					cc.Message, _ = cm["message"].(string)
					cc.Target = "Composite"
					if cm["target"] == "CompositeAndClaim" {
						cc.Target = "CompositeAndClaim"
					}
					switch cc.Status {
					case "True", "False":
					default:
						cc.Status = "Unknown"
					}
					switch cc.Type {
					case "Ready", "Synced", "Healthy":
						rsp.fatal("cannot set ClaimCondition type: %s is a reserved Crossplane Condition", cc.Type)
						return
					}
					rsp.Conditions = append(rsp.Conditions, cc)
				}
			case "Context":
				data, _ := m["data"].(map[string]any)
				merged := rsp.Context
				if merged == nil {
					merged, _ = deepCopy(ctxIn).(map[string]any)
					if merged == nil {
						merged = map[string]any{}
					}
				}
				mergeOverride(merged, data)
				rsp.Context = merged
			case "ExtraResources":
				reqs, _ := m["requirements"].(map[string]any)
				keys := make([]string, 0, len(reqs))
				for k := range reqs {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if extraSeen[k] {
						rsp.fatal("duplicate extra resource key %q", k)
						return
					}
					rm, _ := reqs[k].(map[string]any)
					var s Selector
					s.Name = k
					s.APIVersion, _ = rm["apiVersion"].(string)
					s.Kind, _ = rm["kind"].(string)
					s.MatchName, _ = rm["matchName"].(string)
					ns, _ := rm["namespace"].(string)
					if s.MatchName == "" {
						s.MatchLabels = map[string]string{}
						if ml, ok := rm["matchLabels"].(map[string]any); ok {
							for lk, lv := range ml {
								s.MatchLabels[lk] = fmt.Sprint(lv)
							}
						}
					} else {
						s.Namespace = ns
					}
					if ns == "" {
						extraSeen[k] = true
					}
					rsp.Requirements = append(rsp.Requirements, s)
				}
			default:
				rsp.fatal("invalid kind %q for apiVersion %q - must be one of CompositeConnectionDetails, Context or ExtraResources", kind, MetaAPIVersion)
				return
			}
			continue
		}
		if ann != nil {
			delete(ann, AnnotationResourceName)
		}
		if !nameFound {
			rsp.fatal("%q template is missing required %q annotation", kind, AnnotationResourceName)
			return
		}
		rsp.Resources = append(rsp.Resources, Composed{Name: name, Object: m, Ready: ready, Doc: o.doc})
	}
	// The extra (required) resources the step was given, for later steps.
	given, _ := req.Data["requiredResources"].(map[string]any)
	if len(given) == 0 {
		given, _ = req.Data["extraResources"].(map[string]any)
	}
	if len(given) > 0 {
		ctx := rsp.Context
		if ctx == nil {
			ctx, _ = deepCopy(ctxIn).(map[string]any)
			if ctx == nil {
				ctx = map[string]any{}
			}
		}
		er, _ := ctx[ExtraResourcesContextKey].(map[string]any)
		if er == nil {
			er = map[string]any{}
		}
		for k, v := range given {
			er[k] = deepCopy(v)
		}
		ctx[ExtraResourcesContextKey] = er
		rsp.Context = ctx
	}
}

func gvkString(m map[string]any) string {
	av, _ := m["apiVersion"].(string)
	k, _ := m["kind"].(string)
	g, v := "", av
	if i := strings.LastIndexByte(av, '/'); i >= 0 {
		g, v = av[:i], av[i+1:]
	}
	return fmt.Sprintf("%s/%s, Kind=%s", g, v, k)
}

// kindOf names a YAML value's kind for a message ("an object").
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	}
	return "a number"
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// mergeOverride merges src into dst as mergo.Merge(&dst, src,
// mergo.WithOverride) does for JSON values: nested objects merge, other
// values replace, empty values never replace.
func mergeOverride(dst, src map[string]any) {
	for k, sv := range src {
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeOverride(dm, sm)
				continue
			}
		}
		if _, exists := dst[k]; exists && isEmpty(sv) {
			continue
		}
		dst[k] = deepCopy(sv)
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case int:
		return v == 0
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// decodeJSON decodes an object as Kubernetes' unstructured decoding does:
// integers as int64, other numbers as float64.
func decodeJSON(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	v, _ = jsonnum.Normalize(v) // (beyond float64: ±Inf, as json.Number.Float64 gives)
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cannot unmarshal %s into an object", jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a value"
}

func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(s)
}
