//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

// This file is Lock where flock is unavailable: a no-op.

package flock

// Lock is a no-op where flock is unavailable (e.g. Windows): callers keep
// their writes atomic (temp file + rename), so two processes at the same
// moment cost only work done twice (a refetch, a second build).
func Lock(path string) (func(), error) { return func() {}, nil }
