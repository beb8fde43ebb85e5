//go:build !linux && !darwin && !windows

// This file is every other system, where functions do not run from their
// packages: platformNote says so before anything is pulled.

package functions

import "runtime"

// platformNote says why, before anything is pulled.
func platformNote() string {
	return "crd-lsp runs functions from their packages on Linux only (this is " + runtime.GOOS + ")"
}

// hostRunnable is not reached here (platformNote stops first).
func hostRunnable(exe, entry string) string { return platformNote() }
