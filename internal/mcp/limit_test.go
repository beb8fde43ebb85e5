package mcp

import (
	"context"
	"errors"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool calls past Evaluating wait for a place; one cancelled while it
// waits is answered with its cancellation, without running.
func TestLimitEvaluating(t *testing.T) {
	const k, calls = 2, 12
	sem := make(chan struct{}, k)
	var mu sync.Mutex
	running, peak := 0, 0
	entered := make(chan struct{}, calls)
	release := make(chan struct{})
	h := limit(sem, func(ctx context.Context, _ *sdk.CallToolRequest, in int) (*sdk.CallToolResult, int, error) {
		if in < 0 {
			return &sdk.CallToolResult{}, in, nil // the cancelled call: it should not run
		}
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		entered <- struct{}{}
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return &sdk.CallToolResult{}, in, nil
	})
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if _, out, err := h(context.Background(), nil, i); err != nil || out != i {
				t.Errorf("call %d: %d, %v", i, out, err)
			}
		})
	}
	// k calls run; the others wait for a place.
	for range k {
		<-entered
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		_, _, err := h(ctx, nil, -1)
		waited <- err
	}()
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Errorf("a call cancelled while waiting: %v", err)
	}
	close(release)
	wg.Wait()
	if peak != k {
		t.Errorf("%d calls ran at once, want %d", peak, k)
	}
	if got := Evaluating(); got < 1 {
		t.Errorf("Evaluating() = %d", got)
	}
}
