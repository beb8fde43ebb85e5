// This file holds the editor's waits: for diagnostics, the idle signal,
// registrations, events and log lines the server sends.

package lsptest

import (
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// AwaitDiagnostics waits until diagnostics for path with version or later
// have been published (version 0: any publish, including one already
// received) and returns that latest set. It fails the test on timeout,
// listing everything received.
func (e *Editor) AwaitDiagnostics(path string, version int32, timeout time.Duration) []protocol.Diagnostic {
	e.t.Helper()
	u := e.URI(path)
	var got []protocol.Diagnostic
	ok := e.waitFor(timeout, func() bool {
		p, ok := e.diags[u]
		if ok && (version == 0 || (p.hasVer && p.version >= version)) {
			got = p.diags
			return true
		}
		return false
	})
	if !ok {
		e.t.Fatalf("no diagnostics for %s at version ≥ %d within %v%s\nreceived:\n%s", path, version, timeout, e.connState(), e.Dump())
	}
	return got
}

// AwaitSettled waits until the server is idle after everything sent so
// far (see AwaitIdle) and returns path's latest diagnostics.
func (e *Editor) AwaitSettled(path string, timeout time.Duration) []protocol.Diagnostic {
	e.t.Helper()
	e.AwaitIdle(timeout)
	return e.Diagnostics(path)
}

// AwaitIdle waits until the server says it is idle having handled every
// request and notification sent so far: no load, package refresh or
// diagnosis pending, every publish they lead to received.
func (e *Editor) AwaitIdle(timeout time.Duration) {
	e.t.Helper()
	n := e.sent.Load()
	if !e.waitFor(timeout, func() bool { return e.idleAt >= n }) {
		e.t.Fatalf("the server was not idle after %d messages within %v (idle after %d)%s\nreceived:\n%s", n, timeout, e.idleAt, e.connState(), e.Dump())
	}
}

// Await waits until cond holds, re-checking it whenever the server sends
// anything (cond runs without the editor's lock, so it may call the
// editor's accessors); what names the wait in the failure.
func (e *Editor) Await(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		wake := e.wake
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-wake:
		case <-e.conn.Done():
			if cond() {
				return
			}
			e.t.Fatalf("connection closed while waiting for %s%s\nreceived:\n%s", what, e.connState(), e.Dump())
		case <-timer.C:
			if cond() {
				return
			}
			e.t.Fatalf("never saw %s within %v\nreceived:\n%s", what, timeout, e.Dump())
		}
	}
}

// Diagnostics returns the latest set published for path (nil if none).
func (e *Editor) Diagnostics(path string) []protocol.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.diags[e.URI(path)].diags
}

// Published returns the latest set published for a URI of any scheme, and
// whether anything was published for it at all.
func (e *Editor) Published(u uri.URI) ([]protocol.Diagnostic, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.diags[u]
	return p.diags, ok
}

// PublishedVersions lists the version of every publish for path, in order
// (-1 for a publish without a version).
func (e *Editor) PublishedVersions(path string) []int32 {
	u := e.URI(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []int32
	for _, p := range e.publishes {
		if p.uri == u {
			v := p.version
			if !p.hasVer {
				v = -1
			}
			out = append(out, v)
		}
	}
	return out
}

// Registrations lists the server's dynamic registrations still in force.
func (e *Editor) Registrations() []protocol.Registration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Registration(nil), e.registrations...)
}

// AwaitRegistration waits for a dynamic registration of method.
func (e *Editor) AwaitRegistration(method string, timeout time.Duration) protocol.Registration {
	e.t.Helper()
	var got protocol.Registration
	ok := e.waitFor(timeout, func() bool {
		for _, r := range e.registrations {
			if r.Method == method {
				got = r
				return true
			}
		}
		return false
	})
	if !ok {
		e.t.Fatalf("no registration of %s within %v%s\nreceived:\n%s", method, timeout, e.connState(), e.Dump())
	}
	return got
}

// Events returns the server→client messages received with that method
// ("" for all), in order: publishDiagnostics, logMessage, showMessage,
// client/registerCapability, window/workDoneProgress/create, $/progress,
// workspace/configuration, ...
func (e *Editor) Events(method string) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.events {
		if method == "" || ev.Method == method {
			out = append(out, ev)
		}
	}
	return out
}

// AwaitEvent waits for the first message with method and returns it.
func (e *Editor) AwaitEvent(method string, timeout time.Duration) Event {
	e.t.Helper()
	var got Event
	ok := e.waitFor(timeout, func() bool {
		for _, ev := range e.events {
			if ev.Method == method {
				got = ev
				return true
			}
		}
		return false
	})
	if !ok {
		e.t.Fatalf("no %s within %v%s\nreceived:\n%s", method, timeout, e.connState(), e.Dump())
	}
	return got
}

// Log returns the window/logMessage texts received, and the
// window/showMessage (prefixed "showMessage: "), showMessageRequest and
// $/logTrace ones, in order.
func (e *Editor) Log() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.logs...)
}

// AwaitLog waits for a log or show message containing substr.
func (e *Editor) AwaitLog(substr string, timeout time.Duration) string {
	e.t.Helper()
	var got string
	ok := e.waitFor(timeout, func() bool {
		for _, l := range e.logs {
			if strings.Contains(l, substr) {
				got = l
				return true
			}
		}
		return false
	})
	if !ok {
		e.t.Fatalf("no log message containing %q within %v%s\nreceived:\n%s", substr, timeout, e.connState(), e.Dump())
	}
	return got
}

// AwaitSchemas waits until the server reports (window/logMessage "schemas
// loaded") that built-in and workspace schemas are loaded.
func (e *Editor) AwaitSchemas(timeout time.Duration) {
	e.t.Helper()
	e.AwaitLog("schemas loaded", timeout)
}
