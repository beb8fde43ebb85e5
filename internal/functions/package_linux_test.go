//go:build linux

package functions

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// packageRegistry is a Registry running "function-test" from a package
// whose runtime pull gives rt (or err); notes collects what is said once.
func packageRegistry(t *testing.T, rt *PackageRuntime, err error) (*Registry, *notes) {
	t.Helper()
	n := &notes{}
	r := New(Config{FromPackages: true, Functions: []Function{{Name: "function-test", Package: "example.org/fn:v1"}},
		PullRuntime: func(ctx context.Context, pkg string) (*PackageRuntime, error) {
			n.mu.Lock()
			n.pulls++
			n.mu.Unlock()
			if pkg != "example.org/fn:v1" {
				t.Errorf("pulled %q", pkg)
			}
			return rt, err
		}, Notify: n.add})
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r, n
}

type notes struct {
	mu    sync.Mutex
	lines []string
	pulls int
}

func (n *notes) add(run PackageRun) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, run.Message())
}

// all is what was said, once something was (Notify is told right after
// the calls waiting for the package go on).
func (n *notes) all() []string {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		n.mu.Lock()
		lines := append([]string(nil), n.lines...)
		n.mu.Unlock()
		if len(lines) > 0 || time.Now().After(deadline) {
			time.Sleep(10 * time.Millisecond) // (and nothing more comes)
			n.mu.Lock()
			defer n.mu.Unlock()
			return append([]string(nil), n.lines...)
		}
	}
}

// runtimeWith lays out an unpacked runtime whose entrypoint /function is
// the file body (mode 0755).
func runtimeWith(t *testing.T, body []byte) *PackageRuntime {
	t.Helper()
	root := t.TempDir()
	exe := filepath.Join(root, "function")
	if err := os.WriteFile(exe, body, 0o755); err != nil {
		t.Fatal(err)
	}
	return &PackageRuntime{Name: "example.org/fn:v1@sha256:abc", Digest: "sha256:abc", Platform: "linux/amd64", Root: root, Executable: exe,
		Entrypoint: []string{"/function"}, Env: []string{"PATH=/usr/bin:/bin"}, WorkingDir: "/"}
}

// TestPackageRuns: a Function whose package's runtime is unpacked runs
// its entrypoint as a local executable does: the step's answer is the
// function's, the digest that runs names the step's runner, it is said
// once, and the package is pulled once however many calls follow.
func TestPackageRuns(t *testing.T) {
	bin, err := os.ReadFile(fntest.TestFunction(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtimeWith(t, bin)
	r, n := packageRegistry(t, rt, nil)
	ok := script(t, "compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]")
	if _, name := r.Route(ok); name != "function-test (package example.org/fn:v1)" {
		t.Errorf("runner before the pull: %q", name)
	}
	for range 3 {
		rsp, err := r.Run(context.Background(), ok, request(t, ok))
		if err != nil || len(rsp.GetDesired().GetResources()) != 1 || len(rsp.GetResults()) != 0 {
			t.Fatalf("run: %v %v", rsp, err)
		}
	}
	if _, name := r.Route(ok); name != "function-test (package example.org/fn:v1@sha256:abc)" {
		t.Errorf("runner after the pull: %q", name)
	}
	if n.pulls != 1 {
		t.Errorf("pulled %d times", n.pulls)
	}
	said := n.all()
	if len(said) != 1 || !strings.Contains(said[0], "function function-test: running example.org/fn:v1@sha256:abc from its package (linux/amd64, entrypoint /function; pulled and unpacked in") {
		t.Errorf("said %q", said)
	}
	runs := r.PackageRuns()
	if len(runs) != 1 || !runs[0].Runs || runs[0].Runtime != rt || runs[0].NotRunnable != "" || runs[0].Err != nil {
		t.Errorf("runs: %+v", runs)
	}
	// The function's process gets the image's environment, not crd-lsp's.
	r.mu.Lock()
	proc := r.backends["function-test"].(*packageBackend).proc
	r.mu.Unlock()
	if env := strings.Join(proc.cur.cmd.Env, " "); env != "PATH=/usr/bin:/bin" {
		t.Errorf("environment %q", env)
	}
	if args := strings.Join(proc.cur.cmd.Args[1:3], " "); args != "--insecure --address" || proc.cur.cmd.Dir != rt.Root {
		t.Errorf("args %q, dir %q", proc.cur.cmd.Args, proc.cur.cmd.Dir)
	}
}

// TestPackageCannotRunHere: an entrypoint that cannot run outside its
// container (a script, a program whose loader, library or glibc version
// this machine lacks, one for another machine, a package with no runtime)
// is said once, clearly, and every step of the function passes the
// desired state through with a warning: never an error, never a crash.
func TestPackageCannotRunHere(t *testing.T) {
	host := dynamicProgram(t)
	interp, needed, version := elfStrings(t, host)
	i := strings.LastIndex(interp, "/")
	noLoader := interp[:i+1] + "x" + interp[i+2:]
	noLib := needed[:len(needed)-1] + "Z"
	noVersion := version[:len(version)-1] + "Z"
	for _, tc := range []struct {
		name string
		rt   func(t *testing.T) *PackageRuntime
		why  string
	}{
		{"shell script", func(t *testing.T) *PackageRuntime { return runtimeWith(t, []byte("#!/bin/sh\nexec /app/run \"$@\"\n")) },
			"its entrypoint /function is a shell script, which runs only inside its container"},
		{"interpreter", func(t *testing.T) *PackageRuntime {
			return runtimeWith(t, []byte("#!/usr/local/bin/python3 -u\nimport function\n"))
		}, "its entrypoint /function is a script for /usr/local/bin/python3, which runs only inside its container"},
		{"not a program", func(t *testing.T) *PackageRuntime { return runtimeWith(t, []byte("hello")) },
			"is not a Linux program"},
		{"missing loader", func(t *testing.T) *PackageRuntime { return runtimeWith(t, patch(t, host, interp, noLoader)) },
			"its entrypoint /function is dynamically linked, and its loader " + noLoader + " is not on this machine"},
		{"missing library", func(t *testing.T) *PackageRuntime { return runtimeWith(t, patch(t, host, needed, noLib)) },
			"is dynamically linked against " + noLib + ", which this machine lacks"},
		{"glibc too new", func(t *testing.T) *PackageRuntime { return runtimeWith(t, patch(t, host, version, noVersion)) },
			"which needs " + noVersion + "; this machine's"},
		{"another machine", func(t *testing.T) *PackageRuntime {
			b := bytes.Clone(host)
			b[18] ^= 0x7f // e_machine
			return runtimeWith(t, b)
		}, "is built for"},
		{"no runtime", func(t *testing.T) *PackageRuntime {
			return &PackageRuntime{Name: "example.org/fn:v1@sha256:abc", NoRuntime: "the package embeds no runtime image"}
		}, "the package embeds no runtime image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, n := packageRegistry(t, tc.rt(t), nil)
			st := script(t, "compose: [{name: a, resource: {apiVersion: v1, kind: ConfigMap}}]")
			out := Run(context.Background(), Input{Composition: map[string]any{"spec": map[string]any{"pipeline": []any{
				map[string]any{"step": "one", "functionRef": map[string]any{"name": "function-test"}, "input": st.Input},
				map[string]any{"step": "two", "functionRef": map[string]any{"name": "function-test"}, "input": st.Input},
			}}}, XR: yamlMap(t, xrYAML), Route: r.Route, Timeout: time.Minute})
			if out.Stopped != -1 || len(out.Steps) != 2 || len(out.Desired.Resources) != 0 {
				t.Fatalf("the steps did not pass through: %+v", out)
			}
			for _, sr := range out.Steps {
				if sr.Err != nil || len(sr.Results) != 1 || sr.Results[0].Severity != SeverityWarning ||
					!strings.Contains(sr.Results[0].Message, "crd-lsp did not run it: example.org/fn:v1") || !strings.Contains(sr.Results[0].Message, tc.why) ||
					!strings.Contains(sr.Results[0].Message, "the step passed the desired state through") {
					t.Errorf("step %s: %+v", sr.Step.Name, sr)
				}
			}
			said := n.all()
			if len(said) != 1 || !strings.Contains(said[0], "function function-test: crd-lsp cannot run example.org/fn:v1") || !strings.Contains(said[0], tc.why) {
				t.Errorf("said %q", said)
			}
			if runs := r.PackageRuns(); len(runs) != 1 || runs[0].Runs || !strings.Contains(runs[0].NotRunnable, tc.why) {
				t.Errorf("runs %+v", runs)
			}
		})
	}
	// The machine's own dynamically linked program runs: its loader,
	// libraries and versions are all here.
	if why := hostRunnable(writeTemp(t, host), "/function"); why != "" {
		t.Errorf("this machine's true(1): %s", why)
	}
}

// TestPackagePullFails: a package that cannot be pulled is the step's
// error (as a Docker image that cannot be pulled), said once; the next
// call within retryPull does not pull again.
func TestPackagePullFails(t *testing.T) {
	r, n := packageRegistry(t, nil, errors.New("cannot reach registry example.org"))
	st := script(t, "compose: []")
	for range 2 {
		_, err := r.Run(context.Background(), st, request(t, st))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Source != SourcePackage || !strings.Contains(err.Error(), "function function-test (package example.org/fn:v1): cannot pull its package example.org/fn:v1: cannot reach registry example.org") {
			t.Errorf("err %v", err)
		}
	}
	if n.pulls != 1 {
		t.Errorf("pulled %d times", n.pulls)
	}
	if said := n.all(); len(said) != 1 {
		t.Errorf("said %q", said)
	}
}

// TestPreparePullsBeforeTheCall: Prepare pulls ahead, so that a call with
// a short time limit does not spend it on the pull.
func TestPreparePullsBeforeTheCall(t *testing.T) {
	bin, err := os.ReadFile(fntest.TestFunction(t))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtimeWith(t, bin)
	slow := make(chan struct{})
	told := make(chan PackageRun, 1)
	r := New(Config{FromPackages: true, Functions: []Function{{Name: "function-test", Package: "example.org/fn:v1"}},
		PullRuntime: func(ctx context.Context, pkg string) (*PackageRuntime, error) {
			<-slow
			return rt, nil
		}, Notify: func(run PackageRun) { told <- run }})
	defer r.Close()
	st := script(t, "compose: []")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = r.Run(ctx, st, request(t, st))
	cancel()
	if err == nil || !strings.Contains(err.Error(), "still being pulled") {
		t.Errorf("a call during the pull: %v", err)
	}
	close(slow)
	r.Prepare(context.Background(), []string{"function-test", "not-a-package-function"})
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.Run(ctx, st, request(t, st)); err != nil {
		t.Errorf("after Prepare: %v", err)
	}
	// The front end hears that a call gave up waiting (the editor then
	// diagnoses again).
	if run := testfixtures.Await(t, told, "the front end to be told the call gave up waiting"); !run.Missed || !run.Runs {
		t.Errorf("told %+v", run)
	}
}

// dynamicProgram is a copy of this machine's own dynamically linked
// /bin/true (its loader and libraries are here).
func dynamicProgram(t *testing.T) []byte {
	t.Helper()
	p, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// elfStrings reads a dynamically linked program's loader, its first
// library and its first needed symbol version.
func elfStrings(t *testing.T, b []byte) (interp, lib, version string) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			s, _ := io.ReadAll(p.Open())
			interp = strings.TrimRight(string(s), "\x00")
		}
	}
	libs, _ := f.ImportedLibraries()
	needs, _ := f.DynamicVersionNeeds()
	if interp == "" || len(libs) == 0 || len(needs) == 0 || len(needs[0].Needs) == 0 {
		t.Skip("true(1) is not dynamically linked with versioned symbols here")
	}
	return interp, libs[0], needs[0].Needs[0].Dep
}

// patch replaces every occurrence of old (a NUL-terminated string in the
// program) with new, of the same length.
func patch(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if len(old) != len(new) {
		t.Fatalf("patch %q → %q: lengths differ", old, new)
	}
	out := bytes.ReplaceAll(b, []byte(old+"\x00"), []byte(new+"\x00"))
	if bytes.Equal(out, b) {
		t.Fatalf("%q is not in the program", old)
	}
	return out
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "program")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
