// Package dummy is crd-lsp's function-dummy: it runs its steps in-process,
// as the function's fn.go does.
package dummy

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// function-dummy (crossplane-contrib) answers every call with the
// RunFunctionResponse its input holds (dummy.fn.crossplane.io Response,
// field response), merged into the response it would otherwise give: its
// fn.go starts from response.To(req) (the desired state and context
// passed through), unmarshals the input's response with protojson
// (strict: an unknown field fails the step) and proto.Merges it in. A
// map entry of the merge replaces the entry of the same key whole: each
// desired composed resource it names, each top-level field of the
// desired composite and each context key. crd-lsp runs it in-process, so
// what it composes is rendered and validated (Crossplane's e2e suite
// composes with it).

// Is says whether a step's input is function-dummy's.
func Is(st functions.Step) bool {
	av, _ := st.Input["apiVersion"].(string)
	return strings.HasPrefix(av, "dummy.fn.crossplane.io/") && st.Input["kind"] == "Response"
}

// protojson accepts a field by its JSON name or its proto name.
var (
	dummyResponseFields = map[string]bool{"meta": true, "desired": true, "results": true, "context": true, "requirements": true, "conditions": true, "output": true}
	dummyStateFields    = map[string]bool{"composite": true, "resources": true}
	dummyResourceFields = map[string]bool{"resource": true, "connectionDetails": true, "connection_details": true, "ready": true}
	dummyReady          = map[string]functions.Ready{"READY_UNSPECIFIED": functions.ReadyUnspecified, "READY_TRUE": functions.ReadyTrue, "READY_FALSE": functions.ReadyFalse}
	dummySeverity       = map[string]functions.Severity{"SEVERITY_FATAL": functions.SeverityFatal, "SEVERITY_WARNING": functions.SeverityWarning, "SEVERITY_NORMAL": functions.SeverityNormal}
)

// Native runs a function-dummy step as its fn.go does.
func Native(_ context.Context, _ functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
	rsp := functions.NativeResponse{Desired: req.Desired, Context: req.Context}
	fail := func(format string, a ...any) (functions.NativeResponse, error) {
		rsp.Results = []functions.Result{{Severity: functions.SeverityFatal, Message: "cannot unmarshal RunFunctionResponse from the input: " + fmt.Sprintf(format, a...)}}
		return rsp, nil
	}
	raw, present := req.Input["response"]
	if !present || raw == nil {
		return rsp, nil // an empty response: the desired state passes through
	}
	overlay, ok := raw.(map[string]any)
	if !ok {
		return fail("response is not an object")
	}
	if k, ok := unknownKey(overlay, dummyResponseFields); ok {
		return fail("unknown field %q in response", k)
	}
	desired := functions.State{Composite: req.Desired.Composite, Resources: make(map[string]functions.Resource, len(req.Desired.Resources))}
	for n, r := range req.Desired.Resources {
		desired.Resources[n] = r
	}
	if d, present := overlay["desired"]; present && d != nil {
		dm, ok := d.(map[string]any)
		if !ok {
			return fail("response.desired is not an object")
		}
		if k, ok := unknownKey(dm, dummyStateFields); ok {
			return fail("unknown field %q in response.desired", k)
		}
		if c, present := dm["composite"]; present && c != nil {
			res, err := dummyResource(c, "response.desired.composite")
			if err != nil {
				return fail("%v", err)
			}
			obj := make(map[string]any, len(req.Desired.Composite.Object)+len(res.Object))
			for k, v := range req.Desired.Composite.Object {
				obj[k] = v
			}
			for k, v := range res.Object {
				obj[k] = v // a top-level field of the Struct replaces the one passed through
			}
			desired.Composite.Object = obj
			if res.Ready != functions.ReadyUnspecified {
				desired.Composite.Ready = res.Ready
			}
			if len(res.ConnectionDetails) > 0 {
				cd := map[string][]byte{}
				for k, v := range req.Desired.Composite.ConnectionDetails {
					cd[k] = v
				}
				for k, v := range res.ConnectionDetails {
					cd[k] = v
				}
				desired.Composite.ConnectionDetails = cd
			}
		}
		if rs, present := dm["resources"]; present && rs != nil {
			rm, ok := rs.(map[string]any)
			if !ok {
				return fail("response.desired.resources is not an object")
			}
			names := make([]string, 0, len(rm))
			for n := range rm {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				res, err := dummyResource(rm[n], "response.desired.resources."+n)
				if err != nil {
					return fail("%v", err)
				}
				desired.Resources[n] = res // the entry is replaced whole
			}
		}
	}
	rsp.Desired = desired
	if c, present := overlay["context"]; present && c != nil {
		cm, ok := c.(map[string]any)
		if !ok {
			return fail("response.context is not an object")
		}
		ctx := make(map[string]any, len(req.Context)+len(cm))
		for k, v := range req.Context {
			ctx[k] = v
		}
		for k, v := range cm {
			ctx[k] = paved.DeepCopy(v)
		}
		rsp.Context = ctx
	}
	if rs, present := overlay["results"]; present && rs != nil {
		rl, ok := rs.([]any)
		if !ok {
			return fail("response.results is not a list")
		}
		for i, r := range rl {
			m, ok := r.(map[string]any)
			if !ok {
				return fail("response.results[%d] is not an object", i)
			}
			sev, _ := m["severity"].(string)
			s, known := dummySeverity[sev]
			if !known && sev != "" && sev != "SEVERITY_UNSPECIFIED" {
				return fail("invalid value %q for enum Severity in response.results[%d]", sev, i)
			}
			msg, _ := m["message"].(string)
			reason, _ := m["reason"].(string)
			if s != "" {
				rsp.Results = append(rsp.Results, functions.Result{Severity: s, Message: msg, Reason: reason})
			}
		}
	}
	return rsp, nil
}

// dummyResource decodes one Resource message of the response.
func dummyResource(v any, where string) (functions.Resource, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return functions.Resource{}, fmt.Errorf("%s is not an object", where)
	}
	if k, ok := unknownKey(m, dummyResourceFields); ok {
		return functions.Resource{}, fmt.Errorf("unknown field %q in %s", k, where)
	}
	var res functions.Resource
	if r, present := m["resource"]; present && r != nil {
		obj, ok := r.(map[string]any)
		if !ok {
			return res, fmt.Errorf("%s.resource is not an object", where)
		}
		res.Object, _ = paved.DeepCopy(obj).(map[string]any)
	}
	if r, present := m["ready"]; present && r != nil {
		s, _ := r.(string)
		ready, known := dummyReady[s]
		switch n := r.(type) { // protojson takes an enum's number too
		case int:
			ready, known = []functions.Ready{functions.ReadyUnspecified, functions.ReadyTrue, functions.ReadyFalse}[min(max(n, 0), 2)], n >= 0 && n <= 2
		case float64:
			ready, known = []functions.Ready{functions.ReadyUnspecified, functions.ReadyTrue, functions.ReadyFalse}[min(max(int(n), 0), 2)], n == float64(int(n)) && n >= 0 && n <= 2
		}
		if !known {
			return res, fmt.Errorf("invalid value %v for enum Ready in %s.ready", r, where)
		}
		res.Ready = ready
	}
	cd, present := m["connectionDetails"]
	if !present {
		cd = m["connection_details"]
	}
	if cd != nil {
		cm, ok := cd.(map[string]any)
		if !ok {
			return res, fmt.Errorf("%s.connectionDetails is not an object", where)
		}
		res.ConnectionDetails = map[string][]byte{}
		for k, v := range cm {
			s, _ := v.(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				if b, err = base64.URLEncoding.DecodeString(s); err != nil {
					return res, fmt.Errorf("%s.connectionDetails.%s is not base64", where, k)
				}
			}
			res.ConnectionDetails[k] = b
		}
	}
	return res, nil
}

// unknownKey is the first (by name) key of m that known lacks.
func unknownKey(m map[string]any, known map[string]bool) (string, bool) {
	var bad []string
	for k := range m {
		if !known[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return "", false
	}
	sort.Strings(bad)
	return bad[0], true
}
