//go:build unix && !linux

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
