//go:build linux

// This file reads Linux's getrusage: ru_maxrss is in KiB.

package rusage

import (
	"os"
	"syscall"
	"time"
)

// PeakRSS is the peak resident set of a finished process, in bytes.
func PeakRSS(ps *os.ProcessState) (int64, bool) {
	if ps == nil {
		return 0, false
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss << 10, true
}

// SelfCPU is the user and system CPU time this process has used.
func SelfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
