package functions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFloodedOutputIsReadAtABoundedRate: a function writing to stderr
// without end is read no faster than the output rate (its writes block
// meanwhile, so neither it nor crd-lsp keeps a core busy), logs a bounded
// number of its lines, and still answers.
func TestFloodedOutputIsReadAtABoundedRate(t *testing.T) {
	r, logs := testRegistry(t)
	b, err := r.backend("function-test")
	if err != nil {
		t.Fatal(err)
	}
	const rate, burst = 128 << 10, 32 << 10
	pb := b.(*processBackend)
	pb.outRate, pb.outBurst = rate, burst
	start := time.Now()
	flood := script(t, "flood: true")
	if _, err := r.Run(context.Background(), flood, request(t, flood)); err != nil {
		t.Fatal(err)
	}
	pb.mu.Lock()
	out := pb.cur.out
	pb.mu.Unlock()
	// Wait until 288 KiB were read: at 128 KiB/s after 32 KiB, not before
	// 2s from the start (unbounded, it takes milliseconds).
	const want = 288 << 10
	deadline := time.Now().Add(time.Minute)
	for out.bytesRead() < want {
		if time.Now().After(deadline) {
			t.Fatalf("read %d bytes of the flood in a minute", out.bytesRead())
		}
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	if min := time.Duration(float64(want-burst) / rate * float64(time.Second)); elapsed < min {
		t.Errorf("read %d bytes in %s, faster than %d bytes a second allow (%s)", out.bytesRead(), elapsed, rate, min)
	}
	logged := 0
	logs.mu.Lock()
	for _, l := range logs.lines {
		if strings.Contains(l, "flooding x") {
			logged++
		}
	}
	logs.mu.Unlock()
	if most := logLineBurst + int(time.Since(start).Seconds()*logLineRate) + 1; logged > most {
		t.Errorf("logged %d lines of the flood in %s, more than %d", logged, time.Since(start), most)
	}
	ok := script(t, "compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]")
	if rsp, err := r.Run(context.Background(), ok, request(t, ok)); err != nil || len(rsp.GetDesired().GetResources()) != 1 {
		t.Errorf("a call while the function floods its output: %v %v", rsp, err)
	}
}

// TestOutOfMemoryShowsTheFatalLine: a Go function that runs out of memory
// dies with a fatal error and a goroutine dump longer than the output
// kept; the message shows the first fatal line (with the runtime's reason
// before it), not the dump's last line.
func TestOutOfMemoryShowsTheFatalLine(t *testing.T) {
	r, _ := testRegistry(t)
	oom := script(t, "oom: true")
	out := Run(context.Background(), Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
		map[string]any{"step": "greedy", "functionRef": map[string]any{"name": "function-test"}, "input": oom.Input},
	}}}, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: time.Minute})
	err := out.Steps[0].Err
	var ce *CallError
	if !errors.As(err, &ce) || ce.Exit != "exit status 2" {
		t.Fatalf("err %v, want the process's exit", err)
	}
	if len(ce.Output) < outputTail {
		t.Errorf("output of %d bytes: the goroutine dump should fill the tail", len(ce.Output))
	}
	want := "it exited (exit status 2); it wrote: runtime: out of memory: cannot allocate 1073741824-byte block ("
	if msg := err.Error(); !strings.Contains(msg, want) || !strings.HasSuffix(msg, " in use); fatal error: out of memory") {
		t.Errorf("message: %s\nwant …%s… in use); fatal error: out of memory", msg, want)
	}
}

// The telling line of output is escaped: no terminal control reaches a
// message, and a crash line wins over what follows it.
func TestSummary(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"starting\nlistening\n", "listening"},
		{"panic: first\n\ngoroutine 1 [running]:\n\tpanic: second [recovered]\nmain.main()\n", "panic: first"},
		{"runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc0 stack=[0xc0, 0xc1]\nfatal error: stack overflow\n\nruntime stack:\n", "runtime: goroutine stack exceeds 1000000000-byte limit; fatal error: stack overflow"},
		{"ok\n\x1b[2J\x1b[31mred\rover", `\x1b[2J\x1b[31mred\rover`},
		{"panic: \x1b]0;title\x07\xff", `panic: \x1b]0;title\x07\xff`},
	} {
		if got := summary(tc.out); got != tc.want {
			t.Errorf("summary(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// A function's error answer reaches the message escaped.
func TestFunctionErrorEscaped(t *testing.T) {
	r, _ := testRegistry(t)
	fail := script(t, `fail: "\e[2Jbroken\nfile.yaml:1:1: error: forged"`)
	_, err := r.Run(context.Background(), fail, request(t, fail))
	want := `it failed: Unknown: \x1b[2Jbroken\nfile.yaml:1:1: error: forged`
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want …%s", err, want)
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in     string
		keepNL bool
		want   string
	}{
		{"plain text, tabs\tand ünïcode", false, "plain text, tabs\tand ünïcode"},
		{"a\nb\r\x1b[0m\x7f\u0085\u202e\xff", false, `a\nb\r\x1b[0m\x7f\u0085\u202e\xff`},
		{"a\nb\x1b", true, "a\nb\\x1b"},
	} {
		if got := Escape(tc.in, tc.keepNL); got != tc.want {
			t.Errorf("Escape(%q, %v) = %q, want %q", tc.in, tc.keepNL, got, tc.want)
		}
	}
}
