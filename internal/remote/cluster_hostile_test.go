//go:build unix

package remote

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Hostile live clusters (issue 35, round 4): API servers and kubeconfig
// exec plugins that misbehave. Each read must end (within the source's
// Timeout and a margin, never hanging), allocate boundedly, and fail with
// a message naming the context and what went wrong.

// readBounded runs ReadCluster, failing the test if it has not returned
// within limit (a hang), and reports the peak heap in use meanwhile
// (sampled every 5 ms, a measurement: nothing waits on it).
func readBounded(t *testing.T, src ClusterSource, limit time.Duration) (*ClusterSnapshot, error, uint64) {
	t.Helper()
	type result struct {
		snap *ClusterSnapshot
		err  error
	}
	runtime.GC()
	var ms runtime.MemStats
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	done := make(chan result, 1)
	go func() {
		s, err := src.ReadCluster(context.Background())
		done <- result{s, err}
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			sample()
			return r.snap, r.err, peak
		case <-tick.C:
			sample()
		case <-timer.C:
			t.Fatalf("ReadCluster still running after %s (Timeout %s): it hangs", limit, src.Timeout)
			return nil, nil, 0
		}
	}
}

// answering is an API server with one CRD and a version.
func answering(t *testing.T, seen *atomic.Int64) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen.Add(1)
		}
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
		case crdsPath:
			w.Write([]byte(`{"kind":"CustomResourceDefinitionList","metadata":{},"items":[{"metadata":{"name":"as.example.org","resourceVersion":"1"},"spec":{"group":"example.org"}}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestClusterExecPluginHostile: a kubeconfig exec credential plugin that
// hangs, floods stdout with 300 MB, or exits non-zero. The read ends
// within its Timeout (the hanging plugin is killed, not left running),
// allocates far less than the flood, and the error names the context, the
// plugin and, for a failing one, what it wrote on stderr.
func TestClusterExecPluginHostile(t *testing.T) {
	var seen atomic.Int64
	srv := answering(t, &seen)
	for _, tc := range []struct {
		name, script string
		want         []string
		mode         string // interactiveMode, default Never
	}{
		{"hang", "#!/bin/sh\necho $$ > \"$0.pid\"\nexec sleep 3600\n", []string{"no credentials within 1s"}, ""},
		{"flood", "#!/bin/sh\nexec head -c 300000000 /dev/zero\n", []string{"wrote more than"}, ""},
		{"exit", "#!/bin/sh\necho 'error: the SSO session has expired; run: aws sso login' >&2\nexit 3\n", []string{"exit status 3", "the SSO session has expired; run: aws sso login"}, ""},
		{"terminal", "#!/bin/sh\necho \"$0\" ran >&2\nexit 1\n", []string{"asks for a terminal (interactiveMode: Always)"}, "Always"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plugin := filepath.Join(t.TempDir(), "cred-plugin")
			if err := os.WriteFile(plugin, []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // should the read leave the hanging plugin running
				if b, err := os.ReadFile(plugin + ".pid"); err == nil {
					var pid int
					fmt.Sscan(string(b), &pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			mode := cmp.Or(tc.mode, "Never")
			kc := hostileKubeconfig(t, srv.URL, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: "+mode+"\n")
			src := ClusterSource{Kubeconfig: kc, CacheDir: t.TempDir(), Timeout: time.Second}
			seen.Store(0)
			_, err, alloc := readBounded(t, src, 20*time.Second)
			t.Logf("peak heap %d MiB; error: %v", alloc>>20, err)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, want := range append([]string{`cluster context "hostile" (` + srv.URL + `)`, plugin}, tc.want...) {
				if !strings.Contains(msg, want) {
					t.Errorf("the error lacks %q: %s", want, msg)
				}
			}
			if alloc > 64<<20 {
				t.Errorf("the read needed a heap of %d MiB", alloc>>20)
			}
			if n := seen.Load(); n != 0 {
				t.Errorf("the API server got %d requests without credentials", n)
			}
			if tc.name == "hang" {
				b, err := os.ReadFile(plugin + ".pid")
				if err != nil {
					t.Fatal(err)
				}
				var pid int
				fmt.Sscan(string(b), &pid)
				// Killed and reaped by the read: the process is gone.
				if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
					p.Kill()
					t.Errorf("the hanging plugin (pid %d) is still running", pid)
				}
			}
		})
	}
}

// TestClusterRedirectRefused: an API server that redirects its answers
// elsewhere — to another server on loopback, or off loopback — is not
// followed: the other server never sees the kubeconfig's token, and the
// error names the context and the redirect's target.
func TestClusterRedirectRefused(t *testing.T) {
	var stolen atomic.Int64
	thief := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("the redirect's target got the Authorization %q", a)
		}
		w.Write([]byte(`{"gitVersion":"v1.35.0","kind":"CustomResourceDefinitionList","items":[]}`))
	}))
	defer thief.Close()
	for _, target := range []string{thief.URL, "https://192.0.2.1:6443"} {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusFound)
		}))
		kc := hostileKubeconfig(t, srv.URL, "    token: s3cr3t\n")
		src := ClusterSource{Kubeconfig: kc, CacheDir: t.TempDir(), Timeout: 5 * time.Second}
		_, err, _ := readBounded(t, src, 30*time.Second)
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), `cluster context "hostile" (`+srv.URL+`)`) || !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), target) {
			t.Errorf("redirect to %s: %v", target, err)
		}
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// TestClusterExecPluginAfterToken: a kubeconfig user with a token and an
// exec plugin authenticates with the token and never runs the plugin, as
// client-go does.
func TestClusterExecPluginAfterToken(t *testing.T) {
	srv := answering(t, nil)
	plugin := filepath.Join(t.TempDir(), "cred-plugin")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\necho ran > \"$0.ran\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kc := hostileKubeconfig(t, srv.URL, "    token: t0k3n\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: Never\n")
	snap, err, _ := readBounded(t, ClusterSource{Kubeconfig: kc, CacheDir: t.TempDir(), Timeout: 5 * time.Second}, 30*time.Second)
	if err != nil || len(snap.CRDs) != 1 {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(plugin + ".ran"); err == nil {
		t.Error("the plugin ran although the kubeconfig has a token")
	}
}
