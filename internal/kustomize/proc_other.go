//go:build !unix

package kustomize

import "os/exec"

// killGroup leaves cmd as it is: when its context ends, git itself is
// killed (exec.CommandContext), and WaitDelay stops waiting for its
// helpers.
func killGroup(*exec.Cmd) {}
