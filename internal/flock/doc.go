// Package flock is the one advisory file lock of crd-lsp, shared by
// processes: the package cache's index (internal/packages), the decoded
// schema cache (internal/schemas) and the test functions' builds
// (internal/functions/fntest). One file per system: flock(2) on Linux,
// macOS and the BSDs (flock_unix.go), LockFileEx on Windows
// (flock_windows.go), a no-op elsewhere (flock_other.go).
// Invariant: leaf package; Lock always returns a release function or an
// error, never both nil.
package flock
