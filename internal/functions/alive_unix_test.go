//go:build unix

package functions

import (
	"errors"
	"syscall"
)

// processAlive says whether a process of that id exists (signal 0).
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
