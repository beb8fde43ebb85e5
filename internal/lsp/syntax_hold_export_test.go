package lsp

import "time"

// SetHoldTimer makes held syntax errors wait for timer instead of a real
// one (nil: a real timer again).
func SetHoldTimer(timer func(time.Duration) (<-chan time.Time, func() bool)) {
	if timer == nil {
		testHoldTimer.Store(nil)
		return
	}
	testHoldTimer.Store(&timer)
}
