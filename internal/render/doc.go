// Package render says what a rendered Composition is, whatever rendered
// it: the composed resources (each with the patches that wrote or skipped
// its fields, when patch-and-transform rendered it), notes positioned in
// the Composition document, and the desired composite; and it adds what
// Crossplane's reconciler adds to every composed resource after the
// pipeline (ComposedMetadata). The renderers themselves are the
// functions' own: internal/functions/patchandtransform and the other
// in-process functions.
package render
