// This file reads what a function process writes to stdout and stderr:
// at a bounded rate, so that a function flooding its output is slowed by
// its own blocked writes instead of keeping crd-lsp (and itself) busy;
// keeping only what can be shown (the tail, and the first fatal line of a
// crash, which a goroutine dump would push out of the tail); and logging
// its lines at a bounded rate.

package functions

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Limits on reading a function process's output (see output).
const (
	// outputRate is the most a function's output is read, in bytes a
	// second, after a burst of outputBurst bytes.
	outputRate  = 256 << 10
	outputBurst = 1 << 20
	// outputTail is how much of the end of the output is kept.
	outputTail = 8 << 10
	// maxOutputLine is how much of one line is kept (for the fatal line
	// and the log).
	maxOutputLine = 1 << 10
	// logLineRate lines a second are logged, after a burst of
	// logLineBurst; the rest are counted.
	logLineRate  = 20
	logLineBurst = 200
	// After the process exited, what is left in the pipe (or still written
	// by what it started) is read for at most drainTime or drainMax bytes.
	drainTime = time.Second
	drainMax  = 1 << 20
)

// output reads one process's stdout and stderr (one pipe).
type output struct {
	name        string
	logf        func(string, ...any)
	rate, burst float64 // bytes a second; tests make them small

	r      *os.File
	exited chan struct{} // closed when the process exited
	done   chan struct{} // closed when reading ended

	mu      sync.Mutex
	tail    []byte
	total   int64
	line    []byte // the line being read (its first maxOutputLine bytes)
	runtime string // the first of the "runtime: …" lines just read
	fatal   string // the first "panic: " or "fatal error: " line, after its runtime line

	logTokens float64
	logAt     time.Time
	dropped   int
}

func newOutput(r *os.File, name string, logf func(string, ...any)) *output {
	return &output{name: name, logf: logf, rate: outputRate, burst: outputBurst, r: r,
		exited: make(chan struct{}), done: make(chan struct{}), logTokens: logLineBurst, logAt: time.Now()}
}

// run reads until the pipe ends (every writer is gone) or, after exit,
// drainTime or drainMax bytes.
func (o *output) run() {
	defer close(o.done)
	defer o.r.Close()
	buf := make([]byte, 32<<10)
	tokens, at := o.burst, time.Now()
	var after int64
	for {
		n := len(buf)
		select {
		case <-o.exited:
			if after >= drainMax {
				return
			}
		default:
			now := time.Now()
			tokens = min(o.burst, tokens+now.Sub(at).Seconds()*o.rate)
			at = now
			// Wait for a useful amount (a page, or the whole burst when
			// smaller): a flood is then read in few large reads.
			want := min(o.burst, 4096)
			if tokens < want {
				t := time.NewTimer(time.Duration((want - tokens) / o.rate * float64(time.Second)))
				select {
				case <-t.C:
				case <-o.exited:
					t.Stop()
				}
				continue
			}
			n = min(n, int(tokens))
		}
		n, err := o.r.Read(buf[:n])
		tokens -= float64(n)
		select {
		case <-o.exited:
			after += int64(n)
		default:
		}
		o.write(buf[:n])
		if err != nil {
			return
		}
	}
}

// finish is called once the process exited: what is left is read without
// waiting, for at most drainTime (a pipe's read deadline; should the
// deadline not hold, finish stops waiting a moment later all the same).
func (o *output) finish() {
	_ = o.r.SetReadDeadline(time.Now().Add(drainTime))
	close(o.exited)
	t := time.NewTimer(drainTime + 250*time.Millisecond)
	select {
	case <-o.done:
	case <-t.C:
	}
	t.Stop()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.line) > 0 {
		o.endLine()
	}
	if o.dropped > 0 && o.logf != nil {
		o.logf("function %s: (%d more lines of output not logged)", o.name, o.dropped)
		o.dropped = 0
	}
}

func (o *output) write(p []byte) {
	if len(p) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(len(p))
	if len(p) >= outputTail {
		o.tail = append(o.tail[:0], p[len(p)-outputTail:]...)
	} else {
		if over := len(o.tail) + len(p) - outputTail; over > 0 {
			o.tail = o.tail[:copy(o.tail, o.tail[over:])]
		}
		o.tail = append(o.tail, p...)
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := maxOutputLine - len(o.line); room > 0 {
			o.line = append(o.line, part[:min(room, len(part))]...)
		}
		if i < 0 {
			return
		}
		o.endLine()
		p = p[i+1:]
	}
}

// endLine looks at the line just read: the first crash line is kept, with
// the runtime's own line before it ("runtime: out of memory: cannot
// allocate …" before "fatal error: out of memory"); the line is logged
// while the log's budget lasts.
func (o *output) endLine() {
	l := strings.TrimRight(string(o.line), "\r")
	o.line = o.line[:0]
	switch {
	case o.fatal != "":
	case strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: "):
		o.fatal = l
		if o.runtime != "" {
			o.fatal = o.runtime + "\n" + l
		}
	case strings.HasPrefix(l, "runtime: "):
		if o.runtime == "" {
			o.runtime = l
		}
	default:
		o.runtime = ""
	}
	if o.logf == nil || l == "" {
		return
	}
	now := time.Now()
	o.logTokens = min(logLineBurst, o.logTokens+now.Sub(o.logAt).Seconds()*logLineRate)
	o.logAt = now
	if o.logTokens < 1 {
		o.dropped++
		return
	}
	o.logTokens--
	if o.dropped > 0 {
		o.logf("function %s: (%d lines of output not logged)", o.name, o.dropped)
		o.dropped = 0
	}
	o.logf("function %s: %s", o.name, l)
}

// String is what the process wrote that is worth showing: its first
// crash line (when the tail no longer holds it) and the tail.
func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail := string(o.tail)
	if o.fatal != "" && !strings.Contains(tail, o.fatal) {
		return o.fatal + "\n" + fmt.Sprintf("[… %d bytes …]", o.total-int64(len(o.tail))) + "\n" + tail
	}
	return tail
}

// bytesRead reports how many bytes were read so far.
func (o *output) bytesRead() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}
