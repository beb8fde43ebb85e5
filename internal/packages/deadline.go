// This file bounds how long a registry can keep a pull waiting (connect,
// silence, rate floor, the whole pull) and words each timeout.

package packages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Timeouts bound how long a registry can keep a pull waiting. Zero fields
// get the defaults.
type Timeouts struct {
	// Connect bounds opening a connection to a registry (TCP connect and
	// TLS handshake). Default 10s.
	Connect time.Duration
	// Answer bounds how long a registry may stay silent: from sending a
	// request to the response headers, and while waiting for the next
	// bytes of a body. Default 30s.
	Answer time.Duration
	// Pull bounds everything done for one package: listing its tags,
	// fetching its manifests and its base layer. Default 5m.
	Pull time.Duration
	// MinRate is the slowest a registry may send a body, in bytes per
	// second, averaged over RateWindow of waiting for its bytes: a
	// registry trickling a byte at a time never falls silent, so without
	// it only Pull would end the wait. Default 1 KiB/s; negative: no floor.
	MinRate int64
	// RateWindow is how long a body's bytes are waited for before MinRate
	// is checked (and again after each such window). Default Answer.
	RateWindow time.Duration
}

// fmtDur writes d as a person would: "30s", "5m", "1m30s", "200ms".
func fmtDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Connect <= 0 {
		t.Connect = 10 * time.Second
	}
	if t.Answer <= 0 {
		t.Answer = 30 * time.Second
	}
	if t.Pull <= 0 {
		t.Pull = 5 * time.Minute
	}
	if t.MinRate == 0 {
		t.MinRate = 1 << 10
	}
	if t.RateWindow <= 0 {
		t.RateWindow = t.Answer
	}
	return t
}

// slowError: the registry sent a body slower than Timeouts.MinRate over a
// window of Timeouts.RateWindow.
type slowError struct {
	host  string
	n     int64         // bytes received in the window
	d     time.Duration // the window
	floor int64         // bytes per second
}

func (e *slowError) Error() string {
	return fmt.Sprintf("registry %s sent %s", e.host, e.rate())
}

// rate says how slow: "12 bytes in 30s, below the floor of 1 KiB/s".
func (e *slowError) rate() string {
	return fmt.Sprintf("%d bytes in %s, below the floor of %s/s", e.n, fmtDur(e.d), fmtBytes(e.floor))
}

// fmtBytes writes n as "512 B", "1 KiB", "1.5 MiB".
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', -1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// silenceError: the registry sent nothing for longer than Timeouts.Answer,
// before answering (body false) or in the middle of a body (body true).
type silenceError struct {
	host string
	d    time.Duration
	body bool
}

func (e *silenceError) Error() string {
	if e.body {
		return fmt.Sprintf("registry %s stopped sending for %s", e.host, fmtDur(e.d))
	}
	return fmt.Sprintf("registry %s did not answer within %s", e.host, fmtDur(e.d))
}

// connectError: no connection to the registry within Timeouts.Connect.
type connectError struct {
	host string
	d    time.Duration
}

func (e *connectError) Error() string {
	return fmt.Sprintf("no connection within %s", fmtDur(e.d))
}

// pullDeadlineError: one package's pull took longer than Timeouts.Pull.
type pullDeadlineError struct {
	d time.Duration
}

func (e *pullDeadlineError) Error() string {
	return fmt.Sprintf("did not finish within %s", fmtDur(e.d))
}

// tagLimitError: a tag list longer than Limits.MaxTags entries (or a page
// too large to hold no more than that many valid tags).
type tagLimitError struct {
	max int
}

func (e *tagLimitError) Error() string {
	return fmt.Sprintf("tag list exceeds the %d-entry limit", e.max)
}

// maxTagBytes is the most a tag list page of n valid tags takes: a tag is
// at most 128 characters, plus quotes and a comma, plus the JSON around.
func maxTagBytes(n int) int64 { return int64(n)*131 + 4096 }

// transport enforces Timeouts on every request a Client makes: Connect on
// the dialer and TLS handshake, Answer until the response headers arrive
// and then during each read of the body, where a registry falling silent
// cancels the request with a silenceError. Tag list bodies are capped so
// that a page cannot hold more than Limits.MaxTags valid tags.
type transport struct {
	base    http.RoundTripper
	answer  time.Duration
	minRate int64
	window  time.Duration
	maxTags int
}

func newTransport(t Timeouts, maxTags int) *transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		var ne net.Error
		if err != nil && ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
			return nil, &connectError{host: addr, d: t.Connect}
		}
		return conn, err
	}
	tr.TLSHandshakeTimeout = t.Connect
	return &transport{base: tr, answer: t.Answer, minRate: t.MinRate, window: t.RateWindow, maxTags: maxTags}
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	silent := &silenceError{host: req.URL.Host, d: t.answer}
	timer := time.AfterFunc(t.answer, func() { cancel(silent) })
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	timer.Stop()
	if err != nil {
		cause := context.Cause(ctx)
		cancel(nil)
		if cause == silent {
			return nil, silent
		}
		return nil, err
	}
	b := &watchedBody{rc: resp.Body, cancel: cancel, d: t.answer, silent: &silenceError{host: req.URL.Host, d: t.answer, body: true},
		host: req.URL.Host, minRate: t.minRate, window: t.window}
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/tags/list") {
		b.limit, b.limitErr = maxTagBytes(t.maxTags), &tagLimitError{max: t.maxTags}
	}
	resp.Body = b
	return resp, nil
}

// watchedBody cancels its request when a read waits longer than d, and
// then reports silent; when the reads of a window (time spent waiting in
// Read, so that the reader's own work does not count against the
// registry) bring fewer than minRate bytes a second, it cancels the
// request and reports a slowError; with a limit, reading past it fails
// with limitErr.
type watchedBody struct {
	rc     io.ReadCloser
	cancel context.CancelCauseFunc
	d      time.Duration
	silent *silenceError

	host     string
	minRate  int64
	window   time.Duration
	waited   time.Duration // in Read, this window
	received int64         // bytes, this window
	slow     *slowError

	limit    int64
	limitErr error
	n        int64

	timer *time.Timer
	fired atomic.Bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.limit > 0 {
		if b.n > b.limit {
			return 0, b.limitErr
		}
		if rest := b.limit - b.n + 1; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	if b.slow != nil {
		return 0, b.slow
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.d, func() {
			b.fired.Store(true)
			b.cancel(b.silent)
		})
	} else {
		b.timer.Reset(b.d)
	}
	start := time.Now()
	n, err := b.rc.Read(p)
	b.timer.Stop()
	b.n += int64(n)
	if err != nil && err != io.EOF && b.fired.Load() {
		return n, b.silent
	}
	if err == nil && b.minRate > 0 {
		b.waited += time.Since(start)
		b.received += int64(n)
		if b.waited >= b.window {
			if float64(b.received) < float64(b.minRate)*b.waited.Seconds() {
				b.slow = &slowError{host: b.host, n: b.received, d: b.window, floor: b.minRate}
				b.cancel(b.slow)
				return n, b.slow
			}
			b.waited, b.received = 0, 0
		}
	}
	if b.limit > 0 && b.n > b.limit {
		return n, b.limitErr
	}
	return n, err
}

func (b *watchedBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.rc.Close()
	b.cancel(nil)
	return err
}
