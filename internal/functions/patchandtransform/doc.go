// Package patchandtransform is crd-lsp's function-patch-and-transform:
// it runs a Composition's P&T steps (or a classic Composition's
// resources, which behave the same) on unstructured objects
// (map[string]any, []any, string, bool, int64, float64, nil), side-effect
// free, exactly as the function does, so the editor can show and validate
// what a Composition produces.
//
//   - render.go: RenderStep (one step from the desired state earlier steps
//     left) and Render (a whole Composition of P&T steps, or classic
//     resources), patch by patch, with PatchSets expanded and the
//     fromFieldPath/toFieldPath policies.
//   - transform.go: the transforms (map, match, math, string, convert),
//     including how the function reads and checks its input before
//     running (ValidateTransform, the one decider of a transform's
//     validity), its result types (int64 vs float64) and its messages.
//   - limits.go: what rendering refuses to produce (value and object
//     sizes), as the function's container would run out of memory.
//
// Reading and writing fields goes through internal/paved (crossplane-
// runtime's Paved).
package patchandtransform
