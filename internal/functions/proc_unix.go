//go:build unix

package functions

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the function in a process group of its own, so that
// stopping it also stops what it started (a wrapper script's interpreter).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
