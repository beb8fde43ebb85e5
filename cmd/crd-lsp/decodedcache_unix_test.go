//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCheckDecodedCache runs the real binary's check on a real
// repository (configuration-gcp-database: XRDs, Compositions, GCP provider
// CRDs) with the decoded cache emptied before every run (cold), filled
// (warm) and turned off, and reports the child's CPU time (user+sys): the
// machine is shared, so wall time says little. bench/crdbench check -cold
// measures the same side by side with kubeconform.
//
//	go test -run '^$' -bench CheckDecodedCache -benchtime 5x ./cmd/crd-lsp
func BenchmarkCheckDecodedCache(b *testing.B) {
	dir := filepath.Join(corpus(b), "workspaces", "configuration-gcp-database")
	bin := builtBinary(b)
	pkgCache := b.TempDir()
	for _, mode := range []string{"cold", "warm", "off"} {
		b.Run(mode, func(b *testing.B) {
			cacheDir := filepath.Join(b.TempDir(), "schemas")
			env := "CRD_LSP_SCHEMA_CACHE=" + cacheDir
			if mode == "off" {
				env = "CRD_LSP_SCHEMA_CACHE=off"
			}
			run := func() time.Duration {
				cmd := exec.Command(bin, "check", "--cache-dir", pkgCache, "--schemas", filepath.Join(dir, "schemas"), dir)
				cmd.Env = append(os.Environ(), env)
				_ = cmd.Run() // exit 1: the examples have findings
				if cmd.ProcessState == nil {
					b.Fatal("crd-lsp did not run")
				}
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			if mode == "warm" {
				run()
			}
			var cpu time.Duration
			b.ResetTimer()
			for range b.N {
				if mode == "cold" {
					os.RemoveAll(cacheDir)
				}
				cpu += run()
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
