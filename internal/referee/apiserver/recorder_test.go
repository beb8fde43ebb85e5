package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRecorderClientHangsUp: a client that closes an answer half read
// makes the reverse proxy abort its handler (it panics with
// http.ErrAbortHandler); the request is still counted out and recorded,
// so Requests returns instead of waiting for ever (a CI run once hung
// there for 45 minutes).
func TestRecorderClientHangsUp(t *testing.T) {
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		for i := 0; i < 1<<15 && r.Context().Err() == nil; i++ { // at most 1 GiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
			f.Flush()
		}
	}))
	defer upstream.Close()
	s := &Server{Base: upstream.URL, Client: upstream.Client()}
	rec := s.Record(t)
	resp, err := http.Get(rec.URL + "/apis")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // hang up mid-answer
	reqs := rec.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/apis" || reqs[0].Status != http.StatusOK || reqs[0].Bytes < 64<<10 {
		t.Errorf("recorded %+v", reqs)
	}
}
