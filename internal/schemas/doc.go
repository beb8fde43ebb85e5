// Package schemas is crd-lsp's schema store and validator.
//
// A Store is an immutable snapshot of every schema source: built-in bundles,
// workspace files and (later) package dependencies. Each source file is
// indexed cheaply (apiVersion, kind, group, names, versions, scope — a line
// scan, no YAML parse) so that thousands of CRDs cost little up front; a
// Schema's structural schema, OpenAPI validator and CEL programs are built on
// first use and cached by the content of the definition they come from,
// under a memory budget (least recently used evicted, rebuilt on demand).
// A file given with FileInput.Open keeps no text at all: the index records
// where each definition sits and a hash of it, and the first use of one of
// its schemas reads the file again through Open (the caller's function:
// this package never touches the disk) and checks it is unchanged.
//
// Validation follows kube-apiserver's create path through
// k8s.io/apiextensions-apiserver, on a deep copy of the object: decoding
// (strict ObjectMeta, pruning — each pruned field is an unknown-field
// error), defaulting (CEL rules see defaulted fields), then apiVersion/kind,
// ObjectMeta, OpenAPI schema, embedded resources, list-type uniqueness and,
// unless an earlier error blocks them as in the API server, CEL
// x-kubernetes-validations.
//
// A Store keeps its files and its GVK index in persistent hash tries
// (pmap.go): WithFile and WithoutFile copy only the O(log n) path to the
// entries they touch, so indexing thousands of files one call at a time
// stays linear, and every earlier snapshot remains valid and unchanged.
//
// Invariants: no network, no file-system access, no LSP types; Stores are
// immutable (copy-on-write, structurally shared) and safe for concurrent
// readers; schemas are built lazily and shared by the content (hash and
// length) of the defining document, held under the build budget; ranking
// is deterministic (package > workspace > built-in, then by path, then by
// document position); errors carry exact paths (list indices included) as
// fieldpath.Path and are sorted deterministically.
package schemas
