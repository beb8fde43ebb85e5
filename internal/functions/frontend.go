// This file defines Pipeline, the front ends' door to Run: steps routed to in-
// process runners or to the Registry's functions.

package functions

import (
	"context"
	"time"
)

// Pipeline runs Composition pipelines for a front end (the language
// server, check, render) with a Registry: a step runs through the native
// Router the caller passes (crd-lsp's own patch-and-transform) when that
// takes it, else through the Registry when it can reach the step's
// function, else it passes the desired state through. PreferReal sends
// patch-and-transform steps to the Registry first (the real function,
// when it is configured). It satisfies analysis.Pipeline: analysis hands
// it the Composition, the composite and its native runner, and reads the
// plain Output; it never calls a function itself.
type Pipeline struct {
	Registry   *Registry
	PreferReal bool
	// Timeout bounds each function call (DefaultTimeout when zero).
	Timeout time.Duration
}

// Runs says whether a step would run through a real function: its
// function is configured (or misconfigured, which its call then reports),
// and it is not a patch-and-transform step that runs natively.
func (p *Pipeline) Runs(step Step) bool {
	if p == nil || p.Registry == nil || (!p.PreferReal && IsPatchAndTransform(step)) {
		return false
	}
	run, _ := p.Registry.Route(step)
	return run != nil
}

// Run runs in's pipeline, routing its steps as the type says (in.Route is
// replaced).
func (p *Pipeline) Run(ctx context.Context, in Input, native Router) Output {
	var real Router
	if p != nil && p.Registry != nil {
		real = p.Registry.Route
	}
	if p != nil && p.PreferReal {
		in.Route = Chain(real, native)
	} else {
		in.Route = Chain(native, real)
	}
	if in.Timeout <= 0 && p != nil {
		in.Timeout = p.Timeout
	}
	return Run(ctx, in)
}
