//go:build !linux && !darwin && !windows

// This file is every other system: nothing is said.

package rusage

import (
	"os"
	"time"
)

// PeakRSS is not known here.
func PeakRSS(ps *os.ProcessState) (int64, bool) { return 0, false }

// SelfCPU is not known here.
func SelfCPU() (time.Duration, bool) { return 0, false }
