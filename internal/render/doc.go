// Package render runs a Composition the way Crossplane and
// function-patch-and-transform would, on unstructured objects
// (map[string]any, []any, string, bool, int64, float64, nil), so that the
// editor can show what a Composition produces.
//
// Its building blocks reimplement upstream semantics exactly:
//
//   - transform.go: function-patch-and-transform's transforms (map, match,
//     math, string, convert), including how the function reads and checks
//     its input before running, its result types (int64 vs float64) and
//     its error messages.
//   - internal/paved: crossplane-runtime's pkg/fieldpath Paved operations on a
//     fieldpath.Path: Get, Set (creating and growing objects and lists),
//     Expand ([*] wildcards) and Merge (the toFieldPath policies and the
//     classic mergeOptions, with mergo's merge rules).
package render
