// Package conformance reads and writes the recorded answers of real
// composition functions: one table per function and version, each case a
// RunFunctionRequest written by hand and the response the real function
// gave to it, with the place in the function's source that explains the
// answer. The tables are test data: crd-lsp's model of each function (what
// it says about an input, what its in-process renderer answers) is held to
// them in the tests, and the recorder (TestRecord, run by hand against a
// function built from its public source) fills in the answers.
//
// A table lives at internal/functions/<function>/testdata/conformance/<version>.yaml:
//
//	function: function-status-transformer   # the repository's name
//	version: v0.5.1                         # the release the answers are from
//	commit: 7fde855…                        # its commit
//	repository: https://github.com/crossplane-contrib/function-status-transformer
//	recorded: how and when the answers were recorded
//	cases:
//	- name: matcher-without-type
//	  source: fn.go:123                     # where the behaviour comes from, at that version
//	  note: what the case shows (optional)
//	  request: {input: …, observed: …, desired: …, context: …, requiredResources: …}
//	  resources: […]                        # optional: what requirements select from
//	  response: {results: …, desired: …, context: …}   # recorded
//	  error: ""                             # recorded: the call failed (no response)
//	  calls: 1                              # recorded: calls made (requirements)
//	  expect: {…}                           # what crd-lsp's model must say (model tests)
//
// request and response are the protocol's messages in their protojson
// form (apiextensions.fn.proto.v1), written as YAML; the response's meta
// tag is dropped (it hashes the request).
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// Table is one function version's recorded answers.
type Table struct {
	// Path is the table's file.
	Path string `yaml:"-"`
	// Function is the function's repository name
	// (function-status-transformer).
	Function string `yaml:"function"`
	// Version is the release whose answers these are; Commit its commit.
	Version string `yaml:"version"`
	Commit  string `yaml:"commit"`
	// Repository is where its public source is.
	Repository string `yaml:"repository"`
	// Recorded says how and when the answers were recorded.
	Recorded string `yaml:"recorded"`
	Cases    []Case `yaml:"cases"`

	doc *yaml.Node
}

// Case is one request and the real function's answer to it.
type Case struct {
	Name string `yaml:"name"`
	// Source is the place in the function's source, at the table's
	// version, that explains the answer: "fn.go:123", or several,
	// comma-separated.
	Source string `yaml:"source"`
	Note   string `yaml:"note,omitempty"`
	// Request is a RunFunctionRequest in protojson form (no meta).
	Request map[string]any `yaml:"request"`
	// Resources are what the response's requirements select from; the
	// function is called again with them until its requirements
	// stabilise, as Crossplane does.
	Resources []map[string]any `yaml:"resources,omitempty"`
	// Response is the recorded RunFunctionResponse in protojson form,
	// without its meta tag; nil when the call failed (Error).
	Response map[string]any `yaml:"response,omitempty"`
	// Error is the recorded failure of the call itself (the function
	// returned a gRPC error, crashed or did not answer).
	Error string `yaml:"error,omitempty"`
	// Calls is how many calls the recording made (more than one when the
	// function required resources).
	Calls int `yaml:"calls,omitempty"`
	// Expect is what crd-lsp's model of the function must say about this
	// case, for the model tests.
	Expect Expect `yaml:"expect,omitempty"`
}

// Expect is what crd-lsp must say about a case.
type Expect struct {
	// Findings are crd-lsp's findings on the request's input at warning
	// and error severity, each "severity path: text" (text a part of the
	// message; path as crd-lsp names the field below the input, "" for the
	// input itself): exactly these, in any order. Infos lists findings at
	// info severity that must be among the rest.
	Findings []string `yaml:"findings,omitempty"`
	Infos    []string `yaml:"infos,omitempty"`
	// Differs, for a function crd-lsp renders in-process, says why its
	// renderer's answer differs from the recorded one (a documented
	// choice); empty: the answers must be the same.
	Differs string `yaml:"differs,omitempty"`
	// NotRendered: crd-lsp's renderer is not held to this case (it
	// concerns only what crd-lsp says about the input).
	NotRendered bool `yaml:"notRendered,omitempty"`
	// StateDependent says why the answer hangs on observed state crd-lsp
	// does not judge an input by (a value the function reads only while a
	// resource is not observed): an error crd-lsp says about the input
	// may then stand beside an answer that is not a failure.
	StateDependent string `yaml:"stateDependent,omitempty"`
}

// Recorded says whether the case has a recorded answer.
func (c Case) Recorded() bool { return c.Response != nil || c.Error != "" }

// Fatal says whether the recorded answer stops the pipeline: the call
// failed, or the response holds a Fatal result.
func (c Case) Fatal() bool {
	if c.Error != "" {
		return true
	}
	for _, r := range Results(c.Response) {
		if r.Severity == "SEVERITY_FATAL" {
			return true
		}
	}
	return false
}

// Result is a response's result as protojson writes it.
type Result struct {
	Severity, Message, Reason, Target string
}

// Results reads a protojson response's results.
func Results(rsp map[string]any) []Result {
	list, _ := rsp["results"].([]any)
	var out []Result
	for _, it := range list {
		m, _ := it.(map[string]any)
		s := func(k string) string { v, _ := m[k].(string); return v }
		out = append(out, Result{Severity: s("severity"), Message: s("message"), Reason: s("reason"), Target: s("target")})
	}
	return out
}

var sourceRe = regexp.MustCompile(`^[A-Za-z0-9_./-]+\.[a-z]+:\d+(-\d+)?( \([^)]*\))?$`)

// Load reads a table and checks that it is well formed: the function,
// version, commit and repository are named, every case has a unique name,
// a source place and a request.
func Load(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := &Table{Path: path, doc: &doc}
	if err := doc.Decode(t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range t.Cases {
		// YAML decodes whole numbers as int; answers are compared in the
		// form Plain gives (int64 or float64, as Kubernetes decodes JSON).
		if r, err := normalized(t.Cases[i].Response); err == nil {
			t.Cases[i].Response = r
		}
	}
	var probs []string
	if t.Function == "" || t.Version == "" || t.Repository == "" {
		probs = append(probs, "function, version and repository are required")
	}
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(t.Commit) {
		probs = append(probs, fmt.Sprintf("commit %q is not a full commit id", t.Commit))
	}
	if want := t.Version + ".yaml"; filepath.Base(path) != want {
		probs = append(probs, fmt.Sprintf("a table of version %s is named %s", t.Version, want))
	}
	seen := map[string]bool{}
	for i, c := range t.Cases {
		switch {
		case c.Name == "":
			probs = append(probs, fmt.Sprintf("case %d has no name", i))
		case seen[c.Name]:
			probs = append(probs, fmt.Sprintf("case %q is named twice", c.Name))
		}
		seen[c.Name] = true
		for _, s := range strings.Split(c.Source, ", ") {
			if !sourceRe.MatchString(s) {
				probs = append(probs, fmt.Sprintf("case %q: source %q is not file:line in the function's source", c.Name, c.Source))
				break
			}
		}
		if _, err := c.RunFunctionRequest(); err != nil {
			probs = append(probs, fmt.Sprintf("case %q: %v", c.Name, err))
		}
	}
	if len(probs) > 0 {
		return t, fmt.Errorf("%s: %s", path, strings.Join(probs, "; "))
	}
	return t, nil
}

// normalized is m after a round trip through JSON, numbers as Plain
// gives them.
func normalized(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, err = jsonnum.Normalize(v)
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	return out, nil
}

// Tables finds every table below root (internal/functions), sorted by path.
func Tables(root string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(root, "*", "testdata", "conformance", "*.yaml"))
	sort.Strings(paths)
	return paths, err
}

// RunFunctionRequest is the case's request as the protocol's message.
func (c Case) RunFunctionRequest() (*fnv1.RunFunctionRequest, error) {
	if c.Request == nil {
		return nil, fmt.Errorf("no request")
	}
	b, err := json.Marshal(c.Request)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	req := &fnv1.RunFunctionRequest{}
	if err := protojson.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("request is not a RunFunctionRequest: %w", err)
	}
	req.Meta = &fnv1.RequestMeta{Tag: functions.Tag(req)}
	return req, nil
}

// Plain is a response in the form tables record it: protojson, numbers
// as Kubernetes decodes them, without the meta tag.
func Plain(rsp *fnv1.RunFunctionResponse) (map[string]any, error) {
	b, err := protojson.Marshal(rsp)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, err = jsonnum.Normalize(v)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	if meta, ok := m["meta"].(map[string]any); ok {
		delete(meta, "tag")
		if len(meta) == 0 {
			delete(m, "meta")
		}
	}
	return m, nil
}

// Stable rewrites what a function's messages say differently from one
// call to the next: go-json-experiment, which function-sdk-go decodes
// inputs with, words a decoding error "json: cannot unmarshal" or "json:
// unable to unmarshal" at random (its errors.go), so both read as the
// first. It returns a copy of v (a response, or a string).
func Stable(v any) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, "json: unable to ", "json: cannot ")
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = Stable(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Stable(x)
		}
		return out
	}
	return v
}

// Answer is what one case gave when run.
type Answer struct {
	Response map[string]any
	Error    string
	Calls    int
	// Err is the call's error, when it failed.
	Err error
}

// Call runs a case through run (a real function, or crd-lsp's
// in-process one adapted by functions.Native), calling again with the
// case's resources while its requirements change, as Crossplane does.
func Call(ctx context.Context, run functions.Runner, fn string, c Case) Answer {
	req, err := c.RunFunctionRequest()
	if err != nil {
		return Answer{Error: err.Error()}
	}
	st := functions.Step{Name: c.Name, Function: fn, Input: functions.FromStruct(req.GetInput())}
	rsp, calls, err := functions.RunWithRequirements(ctx, run, st, req, c.Resources, time.Minute, fn)
	if err != nil {
		return Answer{Error: err.Error(), Calls: calls, Err: err}
	}
	m, err := Plain(rsp)
	if err != nil {
		return Answer{Error: "response: " + err.Error(), Calls: calls}
	}
	return Answer{Response: m, Calls: calls}
}

// Record writes answers into the table's file, case by case (by name),
// keeping everything else of the file, its comments included.
func (t *Table) Record(answers map[string]Answer) error {
	root := t.doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	cases := mapValue(root, "cases")
	if cases == nil || cases.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s: no cases", t.Path)
	}
	for _, cn := range cases.Content {
		name := mapValue(cn, "name")
		if name == nil {
			continue
		}
		a, ok := answers[name.Value]
		if !ok {
			continue
		}
		setKey(cn, "response", a.Response)
		setKey(cn, "error", a.Error)
		setKey(cn, "calls", a.Calls)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(t.doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	tmp := t.Path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, t.Path)
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key of the mapping m to v, removing it when v is empty;
// a new key goes before expect (after the request and its resources).
func setKey(m *yaml.Node, key string, v any) {
	empty := v == nil || v == "" || v == 0
	if mv, ok := v.(map[string]any); ok && mv == nil {
		empty = true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		if empty {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
		m.Content[i+1] = valueNode(v)
		return
	}
	if empty {
		return
	}
	at := len(m.Content)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "expect" {
			at = i
			break
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	m.Content = append(m.Content[:at], append([]*yaml.Node{k, valueNode(v)}, m.Content[at:]...)...)
}

func valueNode(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(v)}
	}
	return &n
}
