// Package flock is the one advisory file lock of crd-lsp, shared by
// processes: the package cache's index (internal/packages) and the test
// functions' builds (internal/functions/fntest).
// Invariant: leaf package; Lock always returns a release function or an
// error, never both nil.
package flock
