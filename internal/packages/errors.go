// This file classifies pull failures into errors an editor shows on the
// dependsOn entry (Kind, stale warnings).

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
	"unicode/utf8"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Kind classifies an Error so an editor can show it on the dependsOn entry.
type Kind string

const (
	KindConstraint   Kind = "constraint"      // the version is not a semver constraint or digest
	KindNoMatch      Kind = "no-match"        // no tag satisfies the constraint
	KindNotFound     Kind = "not-found"       // the repository, tag or digest does not exist
	KindUnauthorized Kind = "unauthorized"    // the registry refused the credentials (or there were none)
	KindNetwork      Kind = "network"         // the registry could not be reached or failed
	KindConflict     Kind = "conflict"        // constraints on one package that no version satisfies together
	KindInvalid      Kind = "invalid-package" // the image is not a valid xpkg (digest, layer, tar, package.yaml)
	KindNotCached    Kind = "not-cached"      // Cached: nothing usable in the cache
	KindCanceled     Kind = "canceled"        // the context was cancelled
	KindTooDeep      Kind = "too-deep"        // a warning: a Configuration too deep in a chain to follow its dependencies
)

// Error is the error of a Result. Stale errors are warnings: the Result
// still carries a Package, served from the cache; so are KindTooDeep ones
// (the Package is used, its own dependencies were not followed).
type Error struct {
	Kind       Kind
	Package    string   // fully qualified repository
	Registry   string   // registry host
	Constraint string   // the version constraint involved
	Tags       []string // KindNoMatch: the newest tags, newest first
	Stale      bool     // the cached Package is still used
	Msg        string   // the human message (without the cause)
	Err        error    // the cause, if any
	Note       string   // appended after the cause ("using the cached v1.2.0")
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil && e.Kind != KindNotFound {
		msg += ": " + e.Err.Error()
	}
	if e.Note != "" {
		msg += "; " + e.Note
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Warning reports whether the error does not stop the dependency from
// being used (the package was served from the cache).
func (e *Error) Warning() bool { return e.Stale || e.Kind == KindTooDeep }

// IsWarning reports whether err is an *Error that is only a warning.
func IsWarning(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Warning()
}

// KindOf returns the kind of an *Error in err's chain, or "".
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// causeOf returns why ctx ended (the pull deadline, or a cancellation)
// when it did, else err: an error seen after the context ended is only
// its echo.
func causeOf(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			return fmt.Errorf("%w (%v)", context.Canceled, c)
		}
		return context.Canceled
	}
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return ctx.Err()
}

// classify turns an error from the registry client into an *Error.
func classify(err error, pkg, reg, what string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	out := &Error{Package: pkg, Registry: reg, Err: err}
	var resp *errcode.ErrorResponse
	var nerr net.Error
	var silent *silenceError
	var slow *slowError
	var late *pullDeadlineError
	var conn *connectError
	var tags *tagLimitError
	switch {
	case errors.As(err, &late):
		out.Kind, out.Msg, out.Err = KindNetwork, what+" "+pkg+" from registry "+reg+" "+late.Error()+" (the pull deadline)", nil
	case errors.As(err, &silent):
		out.Kind, out.Msg, out.Err = KindNetwork, silent.Error()+" ("+what+" "+pkg+")", nil
	case errors.As(err, &slow):
		out.Kind, out.Msg, out.Err = KindNetwork, "registry "+slow.host+" sent too slowly while "+what+" "+pkg+": "+slow.rate(), nil
	case errors.As(err, &conn):
		out.Kind, out.Msg, out.Err = KindNetwork, "cannot reach registry "+reg+" for "+pkg+": "+conn.Error(), nil
	case errors.As(err, &tags):
		out.Kind, out.Msg, out.Err = KindNetwork, "tag list of "+pkg+" from registry "+reg+" exceeds the "+strconv.Itoa(tags.max)+"-entry limit", nil
	case errors.Is(err, errdef.ErrTooManyPages):
		out.Kind, out.Msg, out.Err = KindNetwork, "tag list of "+pkg+" from registry "+reg+" exceeds the "+strconv.Itoa(maxTagPages)+"-page limit", nil
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		out.Kind, out.Msg, out.Err = KindCanceled, what+" "+pkg+" was cancelled", nil
		if errors.Is(err, context.DeadlineExceeded) {
			out.Kind, out.Msg = KindNetwork, "registry "+reg+" did not answer in time for "+pkg
		}
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		out.Kind, out.Msg = KindUnauthorized, "not authorized to pull "+pkg+" from "+reg+" (no credentials for it; check docker login or the credential helper)"
		out.Err = nil
	case errors.As(err, &resp):
		out.Err = errors.New(shortResponse(resp))
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || hasCode(resp, errcode.ErrorCodeUnauthorized, errcode.ErrorCodeDenied):
			out.Kind, out.Msg = KindUnauthorized, "not authorized to pull "+pkg+" from "+reg+" (check docker login or the credential helper)"
		case resp.StatusCode == http.StatusNotFound || hasCode(resp, errcode.ErrorCodeNameUnknown, errcode.ErrorCodeManifestUnknown, errcode.ErrorCodeBlobUnknown):
			out.Kind, out.Msg = KindNotFound, pkg+" not found in registry "+reg
		default:
			out.Kind, out.Msg = KindNetwork, "registry "+reg+" failed "+what+" "+pkg
		}
	case errors.Is(err, errdef.ErrNotFound):
		out.Kind, out.Msg = KindNotFound, pkg+" not found in registry "+reg
	case errors.As(err, &nerr) || isNetErr(err):
		out.Kind, out.Msg = KindNetwork, "cannot reach registry "+reg+" for "+pkg
		out.Err = errors.New(netCause(err))
	default:
		out.Kind, out.Msg = KindInvalid, "invalid package "+pkg
	}
	return out
}

// transferFailure explains a body (what: "layer sha256:…") of pkg that
// stopped after n of size bytes, err being why.
func transferFailure(err error, pkg, reg, what string, n, size int64) *Error {
	at := fmt.Sprintf("at %d of %d bytes", n, size)
	out := &Error{Package: pkg, Registry: reg}
	var silent *silenceError
	var slow *slowError
	var late *pullDeadlineError
	switch {
	case errors.As(err, &late):
		out.Kind, out.Msg = KindNetwork, "pulling "+pkg+" from registry "+reg+" "+late.Error()+" (the pull deadline; "+what+" "+at+")"
	case errors.As(err, &silent):
		out.Kind, out.Msg = KindNetwork, "registry "+reg+" stopped sending "+what+" of "+pkg+" for "+fmtDur(silent.d)+" ("+at+")"
	case errors.As(err, &slow):
		out.Kind, out.Msg = KindNetwork, "registry "+reg+" sent "+what+" of "+pkg+" too slowly: "+slow.rate()+" ("+at+")"
	case errors.Is(err, context.Canceled):
		out.Kind, out.Msg = KindCanceled, "pulling "+pkg+" was cancelled ("+what+" "+at+")"
	case errors.Is(err, io.ErrUnexpectedEOF):
		out.Kind, out.Msg = KindNetwork, what+" of "+pkg+" was truncated "+at+" (registry "+reg+" closed the connection)"
	default:
		out.Kind, out.Msg, out.Err = KindNetwork, "registry "+reg+" broke off "+what+" of "+pkg+" "+at, errors.New(netCause(err))
	}
	return out
}

func hasCode(resp *errcode.ErrorResponse, codes ...string) bool {
	for _, e := range resp.Errors {
		for _, c := range codes {
			if e.Code == c {
				return true
			}
		}
	}
	return false
}

// shortResponse drops the URL (which may carry query parameters) from a
// registry error response.
func shortResponse(resp *errcode.ErrorResponse) string {
	if len(resp.Errors) > 0 {
		return fmt.Sprintf("status %d: %s", resp.StatusCode, escapeControls(resp.Errors.Error()))
	}
	return fmt.Sprintf("status %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

func isNetErr(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns)
}

// escapeControls escapes what a registry wrote (its error messages) for
// printing: control characters, newlines included, and bytes that are not
// UTF-8 as \xNN (C1 controls as \u00NN), so that no terminal is
// recoloured and no output line is forged.
func escapeControls(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// netCause is the innermost useful text of a network error: "connection
// refused", "no such host", a TLS error.
func netCause(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		s := op.Err.Error()
		if i := strings.LastIndex(s, ": "); i >= 0 && strings.Contains(s, "connect") {
			s = s[i+2:]
		}
		return s
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	s := err.Error()
	// url.Error: `Get "https://…": cause`; keep the cause.
	if i := strings.Index(s, "\": "); i >= 0 {
		return s[i+3:]
	}
	return s
}
