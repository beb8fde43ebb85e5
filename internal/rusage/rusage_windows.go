//go:build windows

// This file is Windows: a finished process's peak working set is not
// reported (os.ProcessState carries only its times); this process's CPU
// time comes from GetProcessTimes.

package rusage

import (
	"os"
	"syscall"
	"time"
)

// PeakRSS is not known on Windows.
func PeakRSS(ps *os.ProcessState) (int64, bool) { return 0, false }

// SelfCPU is the user and kernel CPU time this process has used.
func SelfCPU() (time.Duration, bool) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, false
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	// Filetimes count 100 ns; Nanoseconds() would subtract the 1601 epoch.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100), true
}
