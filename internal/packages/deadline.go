package packages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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
	return t
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
	return &transport{base: tr, answer: t.Answer, maxTags: maxTags}
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
	b := &watchedBody{rc: resp.Body, cancel: cancel, d: t.answer, silent: &silenceError{host: req.URL.Host, d: t.answer, body: true}}
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/tags/list") {
		b.limit, b.limitErr = maxTagBytes(t.maxTags), &tagLimitError{max: t.maxTags}
	}
	resp.Body = b
	return resp, nil
}

// watchedBody cancels its request when a read waits longer than d, and
// then reports silent; with a limit, reading past it fails with limitErr.
type watchedBody struct {
	rc     io.ReadCloser
	cancel context.CancelCauseFunc
	d      time.Duration
	silent *silenceError

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
	if b.timer == nil {
		b.timer = time.AfterFunc(b.d, func() {
			b.fired.Store(true)
			b.cancel(b.silent)
		})
	} else {
		b.timer.Reset(b.d)
	}
	n, err := b.rc.Read(p)
	b.timer.Stop()
	b.n += int64(n)
	if err != nil && err != io.EOF && b.fired.Load() {
		return n, b.silent
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
