//go:build linux

// This file asks Linux to kill a function when crd-lsp dies (Pdeathsig),
// besides its own process group.

package functions

import "syscall"

// sysProcAttr puts the function in process group pgid (0: a group of its
// own), and asks the kernel to kill it when crd-lsp dies without stopping
// it (SIGKILL, a crash), besides the group's watchdog: the parent-death
// signal survives the exec of a wrapper that replaces itself with the
// function. It follows the thread that started the process, which the Go
// runtime keeps for as long as crd-lsp runs (only a thread locked by an
// exiting goroutine ends).
func sysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL}
}
