// This file adapts in-process runners (crd-lsp's own steps) to the Runner
// interface, converting requests and responses as a real function sees them.

package functions

import (
	"context"
	"fmt"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// NativeRequest is a RunFunctionRequest in plain Go, for runners written
// in-process (crd-lsp's own patch-and-transform).
type NativeRequest struct {
	Input    map[string]any
	Observed State
	Desired  State
	Context  map[string]any
	// SharedContext: the request's context has a fields map (Crossplane's
	// always has), which function-sdk-go's response.To hands on to the
	// response: context keys a function sets are then set in what it reads
	// of the request too (response.SetContextKey).
	SharedContext bool
	// RequiredResources are the resources fetched for the step's
	// requirements, by requirement name.
	RequiredResources map[string][]map[string]any
	// Data returns the whole request as function-go-templating's
	// templates see it (RequestData), built on demand.
	Data func() (map[string]any, error)
}

// NativeResponse is what a native runner answers: the whole desired state
// (as a function returns it), the context, results and conditions.
type NativeResponse struct {
	Desired    State
	Context    map[string]any
	Results    []Result
	Conditions []Condition
	// Requirements are the required resources the step asks for; the
	// pipeline fetches them and calls the step again, as Crossplane.
	Requirements []Selector
}

// NativeFunc runs a step in-process.
type NativeFunc func(ctx context.Context, step Step, req NativeRequest) (NativeResponse, error)

// Native adapts a NativeFunc to a Runner: requests and responses are
// converted from and to the protocol, so the pipeline treats it exactly as
// a real function.
func Native(f NativeFunc) Runner {
	return RunnerFunc(func(ctx context.Context, step Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
		nr := NativeRequest{
			Input:         FromStruct(req.GetInput()),
			Observed:      FromState(req.GetObserved()),
			Desired:       FromState(req.GetDesired()),
			Context:       FromStruct(req.GetContext()),
			SharedContext: req.GetContext().GetFields() != nil,
			Data:          func() (map[string]any, error) { return RequestData(req) },
		}
		for name, rs := range req.GetRequiredResources() {
			if nr.RequiredResources == nil {
				nr.RequiredResources = map[string][]map[string]any{}
			}
			for _, it := range rs.GetItems() {
				nr.RequiredResources[name] = append(nr.RequiredResources[name], FromStruct(it.GetResource()))
			}
		}
		out, err := f(ctx, step, nr)
		if err != nil {
			return nil, err
		}
		d, err := ToState(out.Desired)
		if err != nil {
			return nil, fmt.Errorf("desired state: %w", err)
		}
		rsp := &fnv1.RunFunctionResponse{Meta: &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag()}, Desired: d}
		if out.Context != nil {
			c, err := ToStruct(out.Context)
			if err != nil {
				return nil, fmt.Errorf("context: %w", err)
			}
			rsp.Context = c
		} else {
			rsp.Context = req.GetContext()
		}
		for _, r := range out.Results {
			rsp.Results = append(rsp.Results, toResult(r))
		}
		if len(out.Requirements) > 0 {
			rsp.Requirements = &fnv1.Requirements{}
			for _, s := range out.Requirements {
				if !s.OnlyLegacy {
					if rsp.Requirements.Resources == nil {
						rsp.Requirements.Resources = map[string]*fnv1.ResourceSelector{}
					}
					rsp.Requirements.Resources[s.Name] = s.proto()
				}
				if s.Legacy || s.OnlyLegacy {
					if rsp.Requirements.ExtraResources == nil { //nolint:staticcheck // as functions still write it
						rsp.Requirements.ExtraResources = map[string]*fnv1.ResourceSelector{} //nolint:staticcheck
					}
					rsp.Requirements.ExtraResources[s.Name] = s.proto() //nolint:staticcheck
				}
			}
		}
		for _, c := range out.Conditions {
			rsp.Conditions = append(rsp.Conditions, toCondition(c))
		}
		return rsp, nil
	})
}

func toResult(r Result) *fnv1.Result {
	out := &fnv1.Result{Message: r.Message}
	switch r.Severity {
	case SeverityFatal:
		out.Severity = fnv1.Severity_SEVERITY_FATAL
	case SeverityWarning:
		out.Severity = fnv1.Severity_SEVERITY_WARNING
	case SeverityNormal:
		out.Severity = fnv1.Severity_SEVERITY_NORMAL
	}
	if r.Reason != "" {
		out.Reason = &r.Reason
	}
	if t := toTarget(r.Target); t != nil {
		out.Target = t
	}
	return out
}

func toCondition(c Condition) *fnv1.Condition {
	out := &fnv1.Condition{Type: c.Type, Reason: c.Reason, Status: fnv1.Status_STATUS_CONDITION_UNKNOWN}
	switch c.Status {
	case "True":
		out.Status = fnv1.Status_STATUS_CONDITION_TRUE
	case "False":
		out.Status = fnv1.Status_STATUS_CONDITION_FALSE
	}
	if c.Message != "" {
		out.Message = &c.Message
	}
	out.Target = toTarget(c.Target)
	return out
}

func toTarget(t Target) *fnv1.Target {
	var v fnv1.Target
	switch t {
	case TargetComposite:
		v = fnv1.Target_TARGET_COMPOSITE
	case TargetCompositeAndClaim:
		v = fnv1.Target_TARGET_COMPOSITE_AND_CLAIM
	default:
		return nil
	}
	return &v
}

func fromTarget(t fnv1.Target) Target {
	switch t {
	case fnv1.Target_TARGET_COMPOSITE_AND_CLAIM:
		return TargetCompositeAndClaim
	case fnv1.Target_TARGET_COMPOSITE:
		return TargetComposite
	}
	return TargetComposite // Crossplane: unspecified targets the composite
}
