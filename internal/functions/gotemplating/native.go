// This file runs a function-go-templating step in-process, as the
// function does, for the pipeline engine (internal/functions).

package gotemplating

import (
	"context"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// Native runs function-go-templating steps in-process, as the function
// would: the template from its source (FileSystem folders through
// env.Files, none when nil), run on the request as the function's
// templates see it, its output applied to the desired state as the
// function applies it, following the release env.Release names (""
// for none pinned: release.go). What crd-lsp cannot do the function's way
// is a warning on the step that passes the desired state through: a
// template beyond crd-lsp's limits, or one it cannot read (a folder
// outside the workspace, an environment it did not resolve).
//
// env.Unrun names an earlier step of the pipeline crd-lsp does not run
// ("" for none): what it would have put in the context or the desired
// state is missing, so a failure of the template is a warning that says
// so. env.Deadline is shared by the pipeline's templates (gotemplate's
// budget for one render, however many go-templating steps it has).
func Native(env functions.NativeEnv) functions.NativeFunc {
	files, unrun, deadline, release := env.Files, env.Unrun, env.Deadline, env.Release
	if unrun == nil {
		unrun = func(functions.Step) string { return "" }
	}
	return func(ctx context.Context, st functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
		rsp := functions.NativeResponse{Desired: req.Desired, Context: req.Context}
		data, err := req.Data()
		if err != nil {
			return rsp, err
		}
		r := Run(ctx, Request{Input: st.Input, Data: data, Files: files, Deadline: deadline, Release: release, SharedContext: req.SharedContext})
		switch {
		case r.Unavailable:
			rsp.Results = []functions.Result{{Severity: functions.SeverityNormal, Message: "crd-lsp did not render this step: " + strings.TrimPrefix(r.Fatal, "invalid function input: ") + "; what it composes is not rendered or validated"}}
			return rsp, nil
		case r.Limit:
			rsp.Results = []functions.Result{{Severity: functions.SeverityWarning, Reason: LimitReason, Message: "crd-lsp stopped rendering the template: " + r.Fatal + "; what it composes is not rendered or validated"}}
			return rsp, nil
		case r.Fatal != "":
			if prev := unrun(st); prev != "" {
				rsp.Results = []functions.Result{{Severity: functions.SeverityNormal, Message: r.Fatal + "; " + prev + " before it, which crd-lsp does not run, may provide what the template reads, so the resources it composes are not rendered or validated"}}
				return rsp, nil
			}
			rsp.Results = []functions.Result{{Severity: functions.SeverityFatal, Message: r.Fatal}}
			return rsp, nil
		}
		desired := functions.State{Composite: req.Desired.Composite, Resources: make(map[string]functions.Resource, len(req.Desired.Resources)+len(r.Resources))}
		for n, res := range req.Desired.Resources {
			desired.Resources[n] = res
		}
		if r.StatusSet {
			obj := map[string]any{}
			for k, v := range req.Desired.Composite.Object {
				obj[k] = v
			}
			obj["status"] = r.Status
			desired.Composite.Object = obj
		}
		switch r.Ready {
		case "True":
			desired.Composite.Ready = functions.ReadyTrue
		case "False":
			desired.Composite.Ready = functions.ReadyFalse
		case "Unspecified":
			desired.Composite.Ready = functions.ReadyUnspecified
		}
		if len(r.ConnectionDetails) > 0 {
			cd := map[string][]byte{}
			for k, v := range req.Desired.Composite.ConnectionDetails {
				cd[k] = v
			}
			for k, v := range r.ConnectionDetails {
				cd[k] = v
			}
			desired.Composite.ConnectionDetails = cd
		}
		for _, c := range r.Resources {
			res := functions.Resource{Object: c.Object}
			switch c.Ready {
			case "True":
				res.Ready = functions.ReadyTrue
			case "False":
				res.Ready = functions.ReadyFalse
			}
			desired.Resources[c.Name] = res
		}
		rsp.Desired = desired
		if r.Context != nil {
			rsp.Context = r.Context
		}
		for _, c := range r.Conditions {
			t := functions.TargetComposite
			if c.Target == "CompositeAndClaim" {
				t = functions.TargetCompositeAndClaim
			}
			rsp.Conditions = append(rsp.Conditions, functions.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, Target: t})
		}
		for _, s := range r.Requirements {
			rsp.Requirements = append(rsp.Requirements, functions.Selector{Name: s.Name, APIVersion: s.APIVersion, Kind: s.Kind, MatchName: s.MatchName, MatchLabels: s.MatchLabels, Namespace: s.Namespace,
				Legacy: s.Legacy && s.Current, OnlyLegacy: s.Legacy && !s.Current})
		}
		noteNoValue(ctx, st, r)
		return rsp, nil
	}
}

// LimitReason marks a result crd-lsp's own limits gave.
const LimitReason = "crd-lsp-limit"
