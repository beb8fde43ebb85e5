// This file makes a test registry misbehave on demand (hang, trickle, stall,
// truncate).

package xpkgtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is how a faulty registry answers one request.
type Fault func(c *Call)

// Call is one faulted request.
type Call struct {
	W    http.ResponseWriter
	R    *http.Request
	next http.Handler
	once sync.Once
	hit  func()
}

// Real serves the request from the real registry into a recorder: the
// true answer.
func (c *Call) Real() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	c.next.ServeHTTP(rec, c.R)
	return rec
}

// Ready reports the call on Hits: the fault has done what it does before
// it waits (Wrap reports it when the fault returns otherwise).
func (c *Call) Ready() { c.once.Do(c.hit) }

// Faults makes a registry misbehave: requests for chosen blobs or
// manifests (by digest) or for tag lists ("tags") get a Fault instead of
// the real answer. Use Wrap as MemRegistry's wrapper. Only GET requests
// are faulted, so pushing works.
type Faults struct {
	mu     sync.Mutex
	faults map[string]Fault
	hits   chan string
}

// NewFaults returns a Faults with no fault set.
func NewFaults() *Faults {
	return &Faults{faults: map[string]Fault{}, hits: make(chan string, 1000)}
}

// Set makes requests for key (a digest, or "tags") answer with f; a nil f
// restores the real answer.
func (f *Faults) Set(key string, fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault == nil {
		delete(f.faults, key)
		return
	}
	f.faults[key] = fault
}

// Hits delivers the key of each faulted request once its fault is under
// way (see Call.Ready): tests wait on it to act in the middle of a fault.
func (f *Faults) Hits() <-chan string { return f.hits }

// Wrap returns the misbehaving handler around the real registry.
func (f *Faults) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ""
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/tags/list"):
			key = "tags"
		case strings.Contains(p, "/blobs/"):
			key = p[strings.LastIndex(p, "/blobs/")+len("/blobs/"):]
		case strings.Contains(p, "/manifests/"):
			key = p[strings.LastIndex(p, "/manifests/")+len("/manifests/"):]
		}
		f.mu.Lock()
		fault := f.faults[key]
		f.mu.Unlock()
		if r.Method != http.MethodGet || fault == nil {
			next.ServeHTTP(w, r)
			return
		}
		c := &Call{W: w, R: r, next: next, hit: func() {
			select {
			case f.hits <- key:
			default:
			}
		}}
		fault(c)
		c.Ready()
	})
}

// CopyHeader writes the real answer's headers and status.
func CopyHeader(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
}

// Hang never answers: the request stays open until the client gives up.
func Hang() Fault {
	return func(c *Call) {
		c.Ready()
		<-c.R.Context().Done()
	}
}

// Trickle sends the real headers, then the body one byte per interval,
// for as long as the client listens.
func Trickle(interval time.Duration) Fault {
	return func(c *Call) {
		w, r := c.W, c.R
		rec := c.Real()
		CopyHeader(w, rec)
		c.Ready()
		t := time.NewTicker(interval)
		defer t.Stop()
		for _, b := range rec.Body.Bytes() {
			select {
			case <-r.Context().Done():
				return
			case <-t.C:
			}
			if _, err := w.Write([]byte{b}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// Stall sends the real headers and the first half of the body, then
// nothing until the client gives up.
func Stall() Fault {
	return func(c *Call) {
		rec := c.Real()
		CopyHeader(c.W, rec)
		b := rec.Body.Bytes()
		_, _ = c.W.Write(b[:len(b)/2])
		c.W.(http.Flusher).Flush()
		c.Ready()
		<-c.R.Context().Done()
	}
}

// Truncate sends the real headers (Content-Length included) and the first
// half of the body, then closes the connection.
func Truncate() Fault {
	return func(c *Call) {
		w := c.W
		rec := c.Real()
		b := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = buf.Flush()
			conn.Close()
		}
	}
}

// Missing answers 404 BLOB_UNKNOWN (or MANIFEST_UNKNOWN for a manifest),
// as a registry that lost the content.
func Missing() Fault {
	return func(c *Call) {
		w := c.W
		code := "BLOB_UNKNOWN"
		if strings.Contains(c.R.URL.Path, "/manifests/") {
			code = "MANIFEST_UNKNOWN"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"errors":[{"code":%q,"message":"unknown"}]}`, code)
	}
}

// ManyTags answers a tag list with n tags ("v0.0.0", "v0.0.1", …), perPage
// to a page (0: all in one page) linked with Link headers as the
// distribution spec says.
func ManyTags(n, perPage int) Fault {
	return func(c *Call) {
		w, r := c.W, c.R
		start, _ := strconv.Atoi(r.URL.Query().Get("last"))
		if r.URL.Query().Get("last") != "" {
			start++
		}
		end := n
		if perPage > 0 && start+perPage < n {
			end = start + perPage
			w.Header().Set("Link", fmt.Sprintf(`<%s?n=%d&last=%d>; rel="next"`, r.URL.Path, perPage, end-1))
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"name":"x","tags":[`)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"v0.%d.%d"`, i/1000, i%1000)
		}
		b.WriteString("]}")
		_, _ = w.Write([]byte(b.String()))
	}
}
