// Package rusage reads what a finished process (or this one) cost, the one
// place that knows how each operating system reports it: Linux gives the
// peak resident set in KiB, macOS in bytes, Windows not at all (the
// process's peak working set needs a handle the Go runtime has closed).
// For tests and benchmarks that judge crd-lsp's binary from outside.
// Invariant: leaf package; ok is false where the system does not say.
package rusage
