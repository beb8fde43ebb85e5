//go:build !linux

// This file is where functions do not run from their packages: platformNote
// says so before anything is pulled.

package functions

// hostRunnable is not reached off Linux (platformNote stops first).
func hostRunnable(exe, entry string) string { return platformNote() }
