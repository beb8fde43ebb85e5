//go:build windows

// This file is Lock with LockFileEx: an exclusive lock on the file's first
// byte, which Windows releases when the handle closes (crd-lsp dying
// included), as flock(2) does on unix.

package flock

import (
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes an exclusive lock on path (created if needed), waiting for
// other processes, and returns the function that releases it. The lock
// file is only locked, never read or written: Windows' byte-range locks
// are mandatory, so the data the lock guards lives in other files.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}
