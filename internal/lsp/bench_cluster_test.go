package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/rusage"
)

// BenchmarkCluster: a real API server (etcd and the apiextensions-apiserver
// on loopback) serving the first N of provider-upjet-aws v2.6.0's real
// CRDs from the corpus (CRD_LSP_CLUSTER_CRDS, default 500; created once
// per benchmark process, which takes a while), read by crd-lsp as
// crdLsp.cluster / check --cluster:
//
//   - editor-cold / editor-warm: the real binary started on a workspace
//     with one custom resource of a cluster kind (an unknown field),
//     without / with the cluster's cached copy: the time from starting
//     the process to the diagnostic the cluster's schema gives
//     (first-diag-ms), and the process's peak RSS (peak-RSS-MiB; the same
//     editor without a cluster for comparison: no-cluster-peak-RSS-MiB).
//   - check-cold / check-warm: `crd-lsp check --cluster` on that
//     workspace: wall time (check-ms), the process's CPU time
//     (check-CPU-ms: user and system, steadier than wall time on a busy
//     machine) and its peak RSS.
//   - read-cold / read-warm: remote.ClusterSource.ReadCluster alone
//     (what a refresh costs), without / with the cached copy: read-ms and
//     the bytes the cluster sent (KiB-sent, through a recording proxy).
//   - heap: the in-process server after the cluster was read and the
//     document diagnosed: the Go heap after a GC, above what the same
//     editor without a cluster holds (cluster-heap-MiB).
//
// Run it with:
//
//	go test ./internal/lsp -run '^$' -bench Cluster -benchtime 3x -timeout 30m
func BenchmarkCluster(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	n := 500
	if v, err := strconv.Atoi(os.Getenv("CRD_LSP_CLUSTER_CRDS")); err == nil && v > 0 {
		n = v
	}
	dir := filepath.Join(corpusdir.Dir(b), "crds", "provider-aws-full", "v2.6.0", "crds")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) < n {
		b.Fatalf("%d CRDs in the corpus, want %d", len(names), n)
	}
	if !strings.Contains(strings.Join(names[:n], " "), "accessanalyzer.aws.upbound.io_analyzers.yaml") {
		b.Fatal("the benchmark's document needs accessanalyzer.aws.upbound.io's Analyzer among the CRDs")
	}
	crds := make([]string, n)
	size := 0
	for i, name := range names[:n] {
		c, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		crds[i] = string(c)
		size += len(c)
	}
	s := apiserver.Start(b)
	start := time.Now()
	s.CreateCRDs(b, crds)
	b.Logf("created %d real CRDs (%d MiB of YAML) in the API server in %v", n, size>>20, time.Since(start).Round(time.Second))
	crds = nil

	tmp := b.TempDir()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	s.Kubeconfig(b, kubeconfig, "bench")
	ws := filepath.Join(tmp, "ws")
	analyzer := "apiVersion: accessanalyzer.aws.upbound.io/v1beta1\nkind: Analyzer\nmetadata:\n  name: a\nspec:\n  forProvider:\n    region: us-east-1\n    analyzerNme: x\n"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "analyzer.yaml"), []byte(analyzer), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := lsptest.BuildBinary(b) // before XDG_CACHE_HOME changes: go build's cache may live there
	cache := filepath.Join(tmp, "cache")
	b.Setenv("XDG_CACHE_HOME", cache)
	clusters := filepath.Join(cache, "crd-lsp", "clusters")
	withCluster := map[string]any{"cluster": map[string]any{"enabled": true, "kubeconfig": kubeconfig, "context": "bench", "timeout": "5m"}}
	found := func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-field", "analyzerNme") != nil }

	// editor runs the binary until the cluster's diagnostic; it returns
	// the time from the start and the process's peak RSS.
	editor := func(b *testing.B, settings map[string]any, want func([]protocol.Diagnostic) bool) (time.Duration, int64) {
		start := time.Now()
		e := lsptest.StartBinary(b, lsptest.Config{Dir: ws, Settings: settings})
		e.Open("analyzer.yaml", analyzer)
		e.Await("the diagnostic", 5*time.Minute, func() bool { return want(e.Diagnostics("analyzer.yaml")) })
		took := time.Since(start)
		if settings != nil {
			e.AwaitLog(`crd-lsp: cluster "bench": `+strconv.Itoa(n)+` CRDs read`, 5*time.Minute) // the refresh done
		}
		rss := childPeakRSS(b, bin)
		e.Shutdown()
		e.Exit()
		return took, rss
	}
	b.Run("editor-cold", func(b *testing.B) {
		var took time.Duration
		var rss int64
		for range b.N {
			if err := os.RemoveAll(clusters); err != nil {
				b.Fatal(err)
			}
			d, r := editor(b, withCluster, found)
			took, rss = took+d, max(rss, r)
		}
		_, base := editor(b, nil, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-kind", "Analyzer") != nil })
		b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "first-diag-ms")
		b.ReportMetric(float64(rss>>20), "peak-RSS-MiB")
		b.ReportMetric(float64(base>>20), "no-cluster-peak-RSS-MiB")
	})
	b.Run("editor-warm", func(b *testing.B) {
		if _, err := os.Stat(clusters); err != nil {
			editor(b, withCluster, found) // the cached copy
		}
		var took time.Duration
		var rss int64
		for range b.N {
			d, r := editor(b, withCluster, found)
			took, rss = took+d, max(rss, r)
		}
		b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "first-diag-ms")
		b.ReportMetric(float64(rss>>20), "peak-RSS-MiB")
	})
	check := func(b *testing.B, cold bool) {
		var took, cpu time.Duration
		var rss int64
		for range b.N {
			if cold {
				if err := os.RemoveAll(clusters); err != nil {
					b.Fatal(err)
				}
			}
			cmd := exec.Command(bin, "check", "--cluster", "--kubeconfig", kubeconfig, "--context", "bench", "--cluster-timeout", "5m", ws)
			start := time.Now()
			out, err := cmd.Output()
			took += time.Since(start)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), `unknown field "analyzerNme"`) {
				b.Fatalf("check: %v\n%s", err, out)
			}
			peak, _ := rusage.PeakRSS(cmd.ProcessState)
			rss = max(rss, peak)
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "check-ms")
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "check-CPU-ms")
		b.ReportMetric(float64(rss>>20), "peak-RSS-MiB")
	}
	b.Run("check-cold", func(b *testing.B) { check(b, true) })
	b.Run("check-warm", func(b *testing.B) { check(b, false) })
	// read-cold / read-warm: packages.ReadCluster alone, through a
	// recording proxy: its time and the bytes the cluster sent.
	rec := s.Record(b)
	recKubeconfig := filepath.Join(tmp, "kubeconfig-rec")
	rec.Kubeconfig(b, recKubeconfig, "bench-rec")
	readCluster := func(b *testing.B, cold bool) {
		src := remote.ClusterSource{Kubeconfig: recKubeconfig, CacheDir: filepath.Join(tmp, "read-cache"), Timeout: 5 * time.Minute}
		if !cold {
			if _, err := src.ReadCluster(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		rec.Requests()
		var took time.Duration
		var sent int64
		for range b.N {
			if cold {
				if err := os.RemoveAll(src.CacheDir); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			snap, err := src.ReadCluster(context.Background())
			took += time.Since(start)
			if err != nil || len(snap.CRDs) != n || (len(snap.Downloaded) == n) != cold {
				b.Fatalf("read: %v, %d CRDs, %d downloaded", err, len(snap.CRDs), len(snap.Downloaded))
			}
			for _, r := range rec.Requests() {
				sent += r.Bytes
			}
		}
		b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "read-ms")
		b.ReportMetric(float64(sent>>10)/float64(b.N), "KiB-sent")
	}
	b.Run("read-cold", func(b *testing.B) { readCluster(b, true) })
	b.Run("read-warm", func(b *testing.B) { readCluster(b, false) })

	b.Run("heap", func(b *testing.B) {
		heap := func(settings map[string]any, want func([]protocol.Diagnostic) bool) uint64 {
			e := lsptest.StartInProcess(b, lsptest.Config{Dir: ws, Settings: settings})
			e.Open("analyzer.yaml", analyzer)
			e.Await("the diagnostic", 5*time.Minute, func() bool { return want(e.Diagnostics("analyzer.yaml")) })
			if settings != nil {
				e.AwaitLog(`crd-lsp: cluster "bench": `+strconv.Itoa(n)+` CRDs read`, 5*time.Minute)
			}
			e.Hover("analyzer.yaml", 7, 6)
			runtime.GC()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			e.Shutdown()
			return ms.HeapAlloc
		}
		var with, without uint64
		for range b.N {
			if err := os.RemoveAll(clusters); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			without = max(without, heap(nil, func(ds []protocol.Diagnostic) bool { return hasDiag(ds, "unknown-kind", "Analyzer") != nil }))
			runtime.GC()
			with = max(with, heap(withCluster, found))
		}
		b.ReportMetric(float64(with>>20), "heap-MiB")
		b.ReportMetric(float64(without>>20), "no-cluster-heap-MiB")
		b.ReportMetric(float64((with-min(with, without))>>20), "cluster-heap-MiB")
	})
}
