//go:build !unix && !windows

// This file is the process group of a function on systems that have
// neither unix process groups nor Windows job objects: only the process
// itself is stopped.

package functions

import "os/exec"

// group: without unix process groups, only the process itself is stopped.
type group struct{}

func newGroup() (*group, error) { return nil, nil }

func (*group) join(*exec.Cmd) {}

func (*group) started(*exec.Cmd) {}

func (*group) kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func (*group) release() {}
