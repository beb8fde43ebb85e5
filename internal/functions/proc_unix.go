//go:build unix

// This file runs each function in a process group led by a watchdog, so that
// the whole group dies with crd-lsp.

package functions

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// group is the process group a function runs in, led by a watchdog:
// /bin/sh reading a pipe whose other end only crd-lsp holds (close-on-exec:
// no other child inherits it). When that end closes (release, or crd-lsp
// exiting or dying however it dies: the kernel closes its files on
// SIGKILL too) the watchdog kills its group, itself included: the
// function and whatever it started that stayed in the group, such as the
// function a wrapper script runs without exec. A nil group (no watchdog
// could be started) leaves the function a group of its own.
type group struct {
	pgid int
	w    *os.File
	once sync.Once
}

func newGroup() (*group, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", "read x; kill -KILL 0")
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return &group{pgid: cmd.Process.Pid, w: w}, nil
}

// join makes cmd start in the group (or, without one, in a group of its
// own).
func (g *group) join(cmd *exec.Cmd) {
	pgid := 0
	if g != nil {
		pgid = g.pgid
	}
	cmd.SysProcAttr = sysProcAttr(pgid)
}

// started: a unix process joined its group as it started (join).
func (g *group) started(*exec.Cmd) {}

// kill kills the group, cmd's process with it.
func (g *group) kill(cmd *exec.Cmd) {
	if g != nil {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	} else if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// release lets the watchdog go, killing what is left of the group.
func (g *group) release() {
	if g != nil {
		g.once.Do(func() { g.w.Close() })
	}
}
