//go:build linux

package functions

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the function in a process group of its own, so that
// stopping it also stops what it started (a wrapper script's interpreter),
// and asks the kernel to kill it when crd-lsp dies without stopping it
// (SIGKILL, a crash): the parent-death signal survives the exec of a
// wrapper that replaces itself with the function. It follows the thread
// that started the process, which the Go runtime keeps for as long as
// crd-lsp runs (only a thread locked by an exiting goroutine ends).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
