//go:build unix

// This file holds ReadFile's open flags on unix (O_NONBLOCK: a named pipe does
// not block).

package workspace

import (
	"os"
	"syscall"
)

// openFlags: O_NONBLOCK makes opening a named pipe return at once instead
// of waiting for a writer (it changes nothing for regular files); O_NOCTTY
// keeps a terminal from becoming ours.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
