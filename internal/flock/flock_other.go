//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

// This file is Lock where flock is unavailable: a no-op.

package flock

// Lock is a no-op where no file lock is known (plan9, wasm): callers keep
// their writes atomic (temp file + rename), so two processes at the same
// moment cost only work done twice (a refetch, a second build).
func Lock(path string) (func(), error) { return func() {}, nil }
