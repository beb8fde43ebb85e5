// This file defines the plain Go types of a pipeline run: steps, desired and
// observed state, results, conditions, and the Runner interface.

package functions

import (
	"context"
	"sort"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// Step is one entry of a Composition's spec.pipeline.
type Step struct {
	Index    int            // position in spec.pipeline
	Name     string         // .step
	Function string         // .functionRef.name
	Input    map[string]any // .input; nil when absent
	// Credentials are .credentials (name, source, secretRef).
	Credentials []Credential
	// Requirements are .requirements.requiredResources: resources the step
	// gets with its first call (bootstrap requirements).
	Requirements []Selector
}

// Credential is one of a step's credentials.
type Credential struct {
	Name   string
	Source string // "None" or "Secret"
	// SecretNamespace/SecretName are the secretRef of a Secret source.
	SecretNamespace, SecretName string
}

// Selector selects required resources, as the protocol's ResourceSelector
// (and a Composition's requirements.requiredResources entries).
type Selector struct {
	Name        string // the requirement's name
	APIVersion  string
	Kind        string
	MatchName   string            // one of MatchName and MatchLabels
	MatchLabels map[string]string // (neither: every resource of the kind)
	Namespace   string
	// Legacy: also asked for under the deprecated
	// requirements.extraResources; OnlyLegacy: only there (functions built
	// before requirements.resources existed). Crossplane fetches both and
	// sends them back under extraResources and requiredResources
	// (crossplane v2.2.1 internal/xfn/required_resources.go:118-136).
	Legacy, OnlyLegacy bool
}

// Ready is a desired resource's readiness, as a function says it.
type Ready string

const (
	ReadyUnspecified Ready = ""
	ReadyTrue        Ready = "True"
	ReadyFalse       Ready = "False"
)

// Resource is a desired (or observed) resource.
type Resource struct {
	Object            map[string]any
	ConnectionDetails map[string][]byte
	Ready             Ready
	// Step is the index of the last pipeline step that added or changed
	// this desired resource (-1 for the composite when no step set it).
	Step int
}

// State is a plain desired or observed state.
type State struct {
	Composite Resource
	Resources map[string]Resource
}

// Names returns the composed resources' names, sorted.
func (s State) Names() []string {
	names := make([]string, 0, len(s.Resources))
	for n := range s.Resources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Severity of a function's result.
type Severity string

const (
	SeverityFatal   Severity = "Fatal"
	SeverityWarning Severity = "Warning"
	SeverityNormal  Severity = "Normal"
)

// Target says what a result or condition is about.
type Target string

const (
	TargetComposite         Target = "Composite"
	TargetCompositeAndClaim Target = "CompositeAndClaim"
)

// Result is one result a function returned.
type Result struct {
	Severity Severity
	Message  string
	Reason   string
	Target   Target
}

// Condition is one condition a function returned.
type Condition struct {
	Type    string
	Status  string // "True", "False" or "Unknown"
	Reason  string
	Message string
	Target  Target
}

// StepResult is what running one step gave.
type StepResult struct {
	Step Step
	// Runner names what ran the step ("" when none was configured, in
	// which case Skipped is true and the desired state passed through).
	Runner  string
	Skipped bool
	// Err is a failure to run the step: the function could not be started
	// or reached, crashed, hung past the timeout, answered garbage, or its
	// requirements did not stabilise. It stops the pipeline, as in
	// Crossplane.
	Err        error
	Results    []Result
	Conditions []Condition
	// Requirements the step's last response asked for.
	Requirements []Selector
	// Composed lists the desired composed resources the step added or
	// changed; Removed those it dropped. Sorted.
	Composed, Removed []string
	// Calls counts the function calls (more than one when the function
	// asked for required resources).
	Calls int
}

// Fatal returns the first Fatal result, if any.
func (r StepResult) Fatal() (Result, bool) {
	for _, res := range r.Results {
		if res.Severity == SeverityFatal {
			return res, true
		}
	}
	return Result{}, false
}

// Runner runs one function call for a step. Implementations must honour
// ctx (deadline and cancellation) and must not modify req.
type Runner interface {
	Run(ctx context.Context, step Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, step Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, step Step, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	return f(ctx, step, req)
}

// Router picks the Runner for a step, and names it for StepResult.Runner;
// a nil Runner means the step has no configured function.
type Router func(step Step) (Runner, string)

// Chain returns a Router that asks each router in turn and uses the first
// Runner found: Chain(native, registry.Route) runs patch-and-transform
// natively and everything else through real functions;
// Chain(registry.Route, native) prefers the real function.
func Chain(routers ...Router) Router {
	return func(step Step) (Runner, string) {
		for _, r := range routers {
			if r == nil {
				continue
			}
			if run, name := r(step); run != nil {
				return run, name
			}
		}
		return nil, ""
	}
}

// IsPatchAndTransform says whether a step's input is
// function-patch-and-transform's (pt.fn.crossplane.io Resources), the
// steps internal/render renders natively.
func IsPatchAndTransform(step Step) bool {
	av, _ := step.Input["apiVersion"].(string)
	return len(av) > len("pt.fn.crossplane.io/") && av[:len("pt.fn.crossplane.io/")] == "pt.fn.crossplane.io/" && step.Input["kind"] == "Resources"
}
