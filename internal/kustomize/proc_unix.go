//go:build unix

package kustomize

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd the leader of its own process group and, when its
// context ends, kills the group: git and the helpers it starts
// (git-remote-https, ssh, upload-pack), which would otherwise hold the
// connection open after git is killed.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
