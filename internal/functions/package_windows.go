//go:build windows

// This file is Windows, where functions do not run from their packages: a
// Function's runtime image is a Linux container image, its entrypoint a
// Linux program Windows cannot execute.

package functions

// platformNote says why, before anything is pulled.
func platformNote() string {
	return "crd-lsp runs functions from their packages on Linux only: the package's runtime is a Linux program, which Windows cannot run (run the function in Docker with --functions-docker, or as a Development target; or run crd-lsp in WSL)"
}

// hostRunnable is not reached on Windows (platformNote stops first).
func hostRunnable(exe, entry string) string { return platformNote() }
