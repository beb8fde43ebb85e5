// This file reads what a template wrote as function-go-templating's
// RunFunction does (fn.go, from "Parse the rendered manifests" on): the
// documents decoded as Kubernetes' YAML-or-JSON decoder decodes them, then
// each applied to the response in order. The facts and their places in
// the function's source are recorded in testdata/conformance.

package gotemplating

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"

	"dario.cat/mergo"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sjson "k8s.io/apimachinery/pkg/util/json"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// outObj is a decoded output document and the index of the chunk it came
// from (-1 when not known: a JSON stream).
type outObj struct {
	u   *unstructured.Unstructured
	doc int
}

// chunks splits a YAML stream as Kubernetes' YAMLReader does: a line
// starting with "---" (followed by nothing but space or a comment) ends a
// document; one met before any content of the next document is kept in
// it. Line ends lose their "\r".
func chunks(s string) ([]string, error) {
	var out []string
	var buf strings.Builder
	r := bufio.NewReader(strings.NewReader(s))
	for {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		eof := err == io.EOF
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if eof && line == "" {
			if buf.Len() > 0 {
				out = append(out, buf.String())
			}
			return out, nil
		}
		if strings.HasPrefix(line, "---") {
			if t := strings.TrimSpace(line[3:]); t != "" && t[0] != '#' {
				return nil, fmt.Errorf("invalid Yaml document separator: %s", t)
			}
			if buf.Len() > 0 {
				out = append(out, buf.String())
				buf.Reset()
				if eof {
					return out, nil
				}
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if eof {
			out = append(out, buf.String())
			return out, nil
		}
	}
}

// decodeOutput decodes the documents of the output: the error is worded
// as the function words it after "cannot decode manifest: ".
func decodeOutput(data string, b behaviour) ([]outObj, error) {
	lines := strings.Split(data, "\n")
	startLine := moveToNextDoc(lines, 1)
	docIndex := 0
	var objs []outObj
	// next yields the documents one by one, as the decoder would.
	type next func() (*unstructured.Unstructured, int, error)
	var nx next
	peek := data
	if len(peek) > 1024 {
		peek = peek[:1024]
	}
	if k8syaml.IsJSONBuffer([]byte(peek)) {
		dec := k8syaml.NewYAMLOrJSONDecoder(strings.NewReader(data), 1024)
		nx = func() (*unstructured.Unstructured, int, error) {
			u := &unstructured.Unstructured{}
			err := dec.Decode(&u)
			return u, -1, err
		}
	} else {
		cs, err := chunks(data)
		if err != nil {
			return nil, err
		}
		i := 0
		nx = func() (*unstructured.Unstructured, int, error) {
			if i >= len(cs) {
				return nil, 0, io.EOF
			}
			u := &unstructured.Unstructured{}
			err := sigsyaml.Unmarshal([]byte(cs[i]), &u)
			i++
			return u, i - 1, err
		}
	}
	for {
		u, doc, err := nx()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			if b.v012 {
				if msg, ok := yamlErrorContext(err, startLine, lines, docIndex); ok {
					return nil, errors.New(msg)
				}
			}
			return nil, err
		}
		if u == nil {
			continue
		}
		if _, _, err := unstructured.NestedStringMap(u.Object, "metadata", "annotations"); err != nil {
			m, _, _ := unstructured.NestedMap(u.Object, "metadata", "annotations")
			return nil, annotationsError{fmt.Sprintf("invalid annotations in resource '%s resource-name=%v': %v", u.GroupVersionKind(), m[AnnotationResourceName], err)}
		}
		objs = append(objs, outObj{u, doc})
		startLine = moveToNextDoc(lines, startLine)
		docIndex++
	}
}

// annotationsError is a Fatal that is not about decoding (no "cannot
// decode manifest" before it).
type annotationsError struct{ msg string }

func (e annotationsError) Error() string { return e.msg }

// moveToNextDoc is the function's: the next line after startLine (1-based)
// that is "---", or startLine when there is none.
func moveToNextDoc(lines []string, startLine int) int {
	for i := startLine; i <= len(lines); i++ {
		if strings.TrimSpace(lines[i-1]) == "---" && i > startLine {
			return i
		}
	}
	return startLine
}

// yamlErrorContext rewords a YAML error as v0.12.0 on does: its line
// counted from startLine in the whole output, the document's number, and
// the text of that line (at most 80 bytes). The arithmetic is the
// function's own, off by one where it is.
func yamlErrorContext(err error, startLine int, lines []string, docIndex int) (string, bool) {
	var rel int
	s := err.Error()
	if n, e := fmt.Sscanf(s, "error converting YAML to JSON: yaml: line %d:", &rel); e != nil || n != 1 {
		return "", false
	}
	prefix := fmt.Sprintf("error converting YAML to JSON: yaml: line %d:", rel)
	msg := ""
	if i := strings.Index(s, prefix); i != -1 {
		msg = strings.TrimSpace(s[i+len(prefix):])
	}
	abs := startLine + rel
	if abs-1 >= len(lines) || abs-1 < 0 {
		return "", false
	}
	ctx := strings.TrimSpace(lines[abs-1])
	if len(ctx) > 80 {
		ctx = ctx[:80] + "..."
	}
	return fmt.Sprintf("error converting YAML to JSON: yaml: line %d (document %d, line %d) near: '%s': %s", abs, docIndex+1, rel, ctx, msg), true
}

// valueInto is crossplane-runtime's Paved.GetValueInto for a top-level
// field: "<field>: no such field" when absent, else the value through JSON
// (k8s.io/apimachinery's, as fieldpath uses) into out.
func valueInto(obj map[string]any, field string, out any) error {
	v, ok := obj[field]
	if !ok {
		return notFound{field}
	}
	js, err := k8sjson.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot marshal value to JSON: %w", err)
	}
	if err := k8sjson.Unmarshal(js, out); err != nil {
		return fmt.Errorf("cannot unmarshal value from JSON: %w", err)
	}
	return nil
}

type notFound struct{ field string }

func (e notFound) Error() string { return e.field + ": no such field" }

// goTypes renames this package's copies of the function's types as the
// function's decoding errors name them.
func goTypes(err error, b behaviour) string {
	s := err.Error()
	for from, to := range map[string]string{
		"gotemplating.TargetedCondition":         "main.TargetedCondition",
		"gotemplating.CompositionTarget":         "main.CompositionTarget",
		"gotemplating.ExtraResourcesRequirement": "main.ExtraResourcesRequirement",
		"gotemplating.ConditionType":             "v1.ConditionType",
		"gotemplating.ConditionStatus":           "v1.ConditionStatus",
		"gotemplating.ConditionReason":           "v1.ConditionReason",
		"gotemplating.Time":                      "v1.Time",
	} {
		s = strings.ReplaceAll(s, from, to)
	}
	if !b.nestedFieldErrors {
		s = strings.ReplaceAll(s, "TargetedCondition.Condition.", "TargetedCondition.")
	}
	return s
}

// TargetedCondition is the function's ClaimConditions entry
// (claimconditions.go), named as the function names it.
type TargetedCondition struct {
	Condition `json:",inline"`

	Target CompositionTarget `json:"target"`
}

// CompositionTarget is a ClaimConditions entry's target.
type CompositionTarget string

// ExtraResourcesRequirement is an ExtraResources requirement
// (extraresources.go); Namespace exists from v0.12.0.
type ExtraResourcesRequirement struct {
	APIVersion  string            `json:"apiVersion"`
	Kind        string            `json:"kind"`
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	MatchName   string            `json:"matchName,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
}

// read turns a run's output into the response, as fn.go does.
func read(rsp *Response, req Request, b behaviour) {
	objs, err := decodeOutput(rsp.Output, b)
	if err != nil {
		var ae annotationsError
		if errors.As(err, &ae) {
			rsp.fatal("%s", ae.msg)
			return
		}
		rsp.fatal("cannot decode manifest: %v", err)
		return
	}
	observed, _ := lookup(req.Data, "observed", "composite", "resource").(map[string]any)
	obsAV, _ := observed["apiVersion"].(string)
	obsKind, _ := observed["kind"].(string)
	// The desired composite as the function holds it: its status changes
	// document by document.
	desired, _ := deepCopy(lookup(req.Data, "desired", "composite", "resource")).(map[string]any)
	if desired == nil {
		desired = map[string]any{}
	}
	ctxIn, _ := req.Data["context"].(map[string]any)
	var ctxOut map[string]any // nil until a document changes the context
	setContext := func(k string, v any) {
		if ctxOut == nil {
			ctxOut, _ = deepCopy(ctxIn).(map[string]any)
			if ctxOut == nil {
				ctxOut = map[string]any{}
			}
		}
		ctxOut[k] = v
	}
	// current is the context as the function reads it from the request:
	// what it was, or what the response holds when the two are shared.
	current := func() map[string]any {
		if req.SharedContext && ctxOut != nil {
			return ctxOut
		}
		return ctxIn
	}
	legacy := map[string]bool{} // requirements.extraResources keys
	reqIndex := map[string]int{}
	addRequirement := func(s Selector) {
		if i, ok := reqIndex[s.Name]; ok {
			old := rsp.Requirements[i]
			s.Legacy, s.Current = s.Legacy || old.Legacy, s.Current || old.Current
			rsp.Requirements[i] = s
			return
		}
		reqIndex[s.Name] = len(rsp.Requirements)
		rsp.Requirements = append(rsp.Requirements, s)
	}
	for _, o := range objs {
		u := o.u
		av, kind := u.GetAPIVersion(), u.GetKind()
		ready := ""
		readyAnnotation := func() bool {
			v, found := u.GetAnnotations()[AnnotationReady]
			if !found {
				return true
			}
			if v != "True" && v != "Unspecified" && v != "False" {
				rsp.fatal("invalid function input: invalid %q annotation value %q: must be True, False, or Unspecified", AnnotationReady, v)
				return false
			}
			ready = v
			removeAnnotation(u, AnnotationReady)
			return true
		}
		if b.v012 && av != MetaAPIVersion && !readyAnnotation() {
			return
		}
		name, nameFound := u.GetAnnotations()[AnnotationResourceName]
		if av == obsAV && kind == obsKind && !nameFound {
			dst := map[string]any{}
			err := valueInto(desired, "status", &dst)
			dstExists := !errors.As(err, new(notFound))
			if err != nil && dstExists {
				rsp.fatal("cannot get desired composite status: %v", err)
				return
			}
			src := map[string]any{}
			err = valueInto(u.Object, "status", &src)
			srcExists := !errors.As(err, new(notFound))
			if err != nil && srcExists {
				rsp.fatal("cannot get templated composite status: %v", err)
				return
			}
			if dstExists || srcExists || !b.v012 {
				if err := mergo.Merge(&dst, src, mergo.WithOverride); err != nil {
					rsp.fatal("cannot merge desired composite status: %v", err)
					return
				}
				v, _ := jsonnum.Normalize(any(dst))
				desired["status"] = v
				rsp.Status, _ = v.(map[string]any)
				rsp.StatusSet = true
			}
			if b.v012 && ready != "" {
				rsp.Ready = ready
			}
			continue
		}
		if av == MetaAPIVersion {
			switch kind {
			case "CompositeConnectionDetails":
				data, ok := u.Object["data"].(map[string]any)
				strs := ok
				for _, v := range data {
					if _, ok := v.(string); !ok {
						strs = false
					}
				}
				if strs {
					for k, v := range data {
						d, _ := base64.StdEncoding.DecodeString(v.(string))
						if rsp.ConnectionDetails == nil {
							rsp.ConnectionDetails = map[string][]byte{}
						}
						rsp.ConnectionDetails[k] = d
					}
				}
			case "ClaimConditions":
				var conds []TargetedCondition
				if err := valueInto(u.Object, "conditions", &conds); err != nil {
					rsp.fatal("cannot get Conditions from input: %s", goTypes(err, b))
					return
				}
				for _, c := range conds {
					switch c.Type {
					case "Ready", "Synced", "Healthy":
						rsp.fatal("cannot set ClaimCondition type: %s is a reserved Crossplane Condition", c.Type)
						return
					}
					cc := ClaimCondition{Type: string(c.Type), Status: "Unknown", Reason: string(c.Reason), Message: c.Message, Target: "Composite"}
					if c.Status == "True" || c.Status == "False" {
						cc.Status = string(c.Status)
					}
					if c.Target == "CompositeAndClaim" {
						cc.Target = "CompositeAndClaim"
					}
					rsp.Conditions = append(rsp.Conditions, cc)
				}
			case "Context":
				data := map[string]any{}
				if err := valueInto(u.Object, "data", &data); err != nil {
					rsp.fatal("cannot get Contexts from input: %v", err)
					return
				}
				// context.go MergeContext: the request's context with the
				// data merged over it; every key of the result is then set
				// in the response.
				merged, _ := deepCopy(current()).(map[string]any)
				if merged == nil {
					merged = map[string]any{}
				}
				if len(data) > 0 {
					if err := mergo.Merge(&merged, data, mergo.WithOverride); err != nil {
						rsp.fatal("cannot merge Context: cannot merge data *v1.RunFunctionRequest: %v", err)
						return
					}
				}
				for k, v := range merged {
					v, _ = jsonnum.Normalize(v)
					setContext(k, v)
				}
			case "ExtraResources":
				ers := map[string]ExtraResourcesRequirement{}
				if err := valueInto(u.Object, "requirements", &ers); err != nil {
					rsp.fatal("cannot get extra resources requirements: %s", goTypes(err, b))
					return
				}
				for _, k := range sortedKeys(ers) {
					v := ers[k]
					if legacy[k] {
						rsp.fatal("duplicate extra resource key %q", k)
						return
					}
					if !b.v012 {
						v.Namespace = ""
					}
					s := Selector{Name: k, APIVersion: v.APIVersion, Kind: v.Kind, MatchName: v.MatchName}
					if v.MatchName == "" {
						s.MatchLabels = map[string]string{}
						maps.Copy(s.MatchLabels, v.MatchLabels)
					} else {
						s.Namespace = v.Namespace
					}
					s.Current = b.v012
					if v.Namespace == "" {
						s.Legacy = true
						legacy[k] = true
					}
					addRequirement(s)
				}
			default:
				rsp.fatal("invalid kind %q for apiVersion %q - must be one of CompositeConnectionDetails, Context or ExtraResources", kind, MetaAPIVersion)
				return
			}
			continue
		}
		if !b.v012 && !readyAnnotation() {
			return
		}
		removeAnnotation(u, AnnotationResourceName)
		if !nameFound {
			rsp.fatal("%q template is missing required %q annotation", kind, AnnotationResourceName)
			return
		}
		obj, _ := jsonnum.Normalize(any(u.Object))
		m, _ := obj.(map[string]any)
		rsp.Resources = append(rsp.Resources, Composed{Name: name, Object: m, Ready: ready, Doc: o.doc})
	}
	if b.v012 {
		// extraresources.go: the resources the call was given, over what
		// the request's context holds under the key, required resources
		// last.
		for _, field := range []string{"extraResources", "requiredResources"} {
			given, _ := req.Data[field].(map[string]any)
			if len(given) == 0 {
				continue
			}
			s, _ := deepCopy(given).(map[string]any)
			if old, ok := current()[ExtraResourcesContextKey].(map[string]any); ok {
				merged, _ := deepCopy(old).(map[string]any)
				maps.Copy(merged, s)
				s = merged
			}
			setContext(ExtraResourcesContextKey, s)
		}
	}
	if ctxOut != nil {
		rsp.Context = ctxOut
	}
}

// removeAnnotation is crossplane-runtime's meta.RemoveAnnotations: the
// annotations, when there are any, written back without the key (an empty
// map stays).
func removeAnnotation(u *unstructured.Unstructured, key string) {
	a := u.GetAnnotations()
	if a == nil {
		return
	}
	delete(a, key)
	u.SetAnnotations(a)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
