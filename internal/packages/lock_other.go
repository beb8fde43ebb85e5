//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package packages

// lockFile is a no-op where flock is unavailable (e.g. Windows): writes
// stay atomic (temp file + rename), but two processes updating the index
// at the same moment may drop one of the two updates, which costs only a
// refetch.
func lockFile(path string) (func(), error) { return func() {}, nil }
