// This file defines the idle signal: a client that sets the experimental
// client capability {"crdLspIdle": true} gets the notification
// $/crd-lsp/idle {"received": N} whenever the server has nothing left to
// do (no message being handled, no background load, refresh or diagnosis
// pending) after handling the first N messages the client sent. Tests wait
// on it instead of quiet periods, as gopls's integration tests wait on its
// own work signals; editors ignore $/ notifications they do not know.

package lsp

import (
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"
)

// methodIdle is the idle notification.
const methodIdle = "$/crd-lsp/idle"

// IdleParams are the idle notification's params.
type IdleParams struct {
	// Received counts the client's requests and notifications the server
	// had handled, all of them, when it went idle.
	Received uint64 `json:"received"`
}

// work counts what the server has in hand.
type work struct {
	mu       sync.Mutex
	busy     int
	received uint64
	notify   bool // the client asked for the idle signal
}

// start records work begun; message is true for a client message.
func (s *server) workStart(message bool) {
	s.work.mu.Lock()
	s.work.busy++
	if message {
		s.work.received++
	}
	s.work.mu.Unlock()
}

// workDone records work finished, and signals idle when nothing is left.
func (s *server) workDone() {
	s.work.mu.Lock()
	s.work.busy--
	idle, n, notify := s.work.busy == 0, s.work.received, s.work.notify
	s.work.mu.Unlock()
	if idle && notify && s.ctx.Err() == nil {
		_ = s.conn.Notify(s.ctx, methodIdle, &IdleParams{Received: n})
	}
}

// wantsIdle reads the client's opt-in from its experimental capabilities.
func wantsIdle(caps protocol.ClientCapabilities) bool {
	var exp struct {
		CrdLspIdle bool `json:"crdLspIdle"`
	}
	return len(caps.Experimental) > 0 && json.Unmarshal(caps.Experimental, &exp) == nil && exp.CrdLspIdle
}
