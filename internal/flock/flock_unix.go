//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

// This file is Lock with flock(2).

package flock

import (
	"os"
	"syscall"
)

// Lock takes an exclusive flock on path (created if needed), waiting
// for other processes, and returns the function that releases it.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
