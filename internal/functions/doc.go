// Package functions runs Crossplane composition functions: it speaks the
// function protocol (apiextensions.fn.proto.v1 RunFunction over gRPC, with
// the v1beta1 fallback Crossplane keeps) and runs a Composition's pipeline
// the way Crossplane's reconciler and `crossplane render` do, so that
// crd-lsp can show and validate what any pipeline creates.
//
// # The pipeline
//
// Run takes a Composition (as decoded YAML), the observed composite
// resource and a Router that says how each step runs, and runs the steps
// in order exactly as Crossplane's FunctionComposer does:
//
//   - every request carries the observed state (the composite with its
//     connection details, and any observed composed resources), the
//     desired state the previous step returned (empty for the first), the
//     context the previous step returned (empty, or the caller's initial
//     context, for the first), the step's input as a Struct, its
//     credentials, and its bootstrap required resources;
//   - a response's required resources are fetched from Input.Resources and
//     the step is called again until its requirements stabilise (at most
//     MaxRequirementsIterations more calls), as xfn.FetchingFunctionRunner;
//   - a Fatal result stops the pipeline (the step's own desired state is
//     dropped, as Crossplane applies nothing after a Fatal); Warning and
//     Normal results and conditions are collected per step.
//
// Credentials are never real secrets: a step's Secret credentials get the
// data the caller put in Input.Credentials (placeholders it read from the
// user's own files), else an empty placeholder, as `crossplane render`
// requires explicit credentials and crd-lsp never reads a cluster.
//
// The result is plain Go (maps, strings): per-step results with the names
// of the composed resources each step added or changed, and the final
// desired composite and composed resources keyed by name. Crossplane's own
// metadata (generateName, composite labels, owner reference) is not added
// here; the reconciler adds it after the pipeline, and internal/render owns
// that logic.
//
// # Where functions come from
//
// A Registry (Config) knows, only as configured, how to reach each function
// by name, in this order: a Function object annotated with the
// `crossplane render` Development runtime (a target already running:
// loopback only unless AllowRemote), a local executable that the Registry
// starts with the function SDK's flags (--insecure --address
// 127.0.0.1:PORT), keeps warm, restarts when it died and stops on Close,
// Docker (when enabled and a daemon answers), and the runtime image a
// Function's package embeds (FromPackages: pulled and unpacked through the
// front end's PullRuntime, its entrypoint run on this machine as a local
// executable, on Linux only; an entrypoint that cannot run outside its
// container is said once and its steps pass the desired state through,
// with a warning). Nothing is executed or contacted unless configured. Native runners (crd-lsp's own
// patch-and-transform) plug in through the same Runner interface; Chain
// orders them against the Registry.
//
// # Invariants
//
//   - Every call has a timeout and honours ctx cancellation; a function
//     that crashes, hangs or answers garbage is a StepResult.Err (a value),
//     never a stuck or panicking caller. A hung call does not block other
//     calls.
//   - Run never panics (a panicking Runner becomes the step's error).
//   - No LSP types, documents or stores: input and output are maps.
package functions
