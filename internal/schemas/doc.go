// Package schemas is crd-lsp's schema store and validator.
//
// A Store is an immutable snapshot of every schema source: built-in bundles,
// workspace files and (later) package dependencies. Each source file is
// indexed cheaply (apiVersion, kind, group, names, versions, scope — a line
// scan, no YAML parse) so that thousands of CRDs cost little up front; a
// Schema's structural schema, OpenAPI validator and CEL programs are built on
// first use and cached by the content digest of the definition they come
// from.
//
// Validation follows kube-apiserver's create path through
// k8s.io/apiextensions-apiserver: defaulting first, then OpenAPI validation,
// unknown fields (pruning), CEL x-kubernetes-validations, list-type
// uniqueness and ObjectMeta rules.
//
// Invariants: no network, no file-system access, no LSP types; Stores are
// copy-on-write and safe for concurrent readers; ranking is deterministic
// (package > workspace > built-in, then by path); errors carry exact paths
// (list indices included) as fieldpath.Path.
package schemas
