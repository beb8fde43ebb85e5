//go:build unix && !linux

// This file puts a function in its own process group on unix systems other
// than Linux.

package functions

import "syscall"

// sysProcAttr puts the function in process group pgid (0: a group of its
// own).
func sysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
}
