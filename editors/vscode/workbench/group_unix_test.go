//go:build unix

package workbench

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that stopGroup
// reaches what it starts (the extension host, crd-lsp).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// stopGroup asks the group to end (SIGTERM), or ends it (SIGKILL).
func stopGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
