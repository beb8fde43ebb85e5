package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/lspclient"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// builtinDiag measures the first diagnostic on a built-in kind (issue 32):
// a workspace holding only issue 32's Deployment, opened right after
// initialized; the time from starting the server process to the first
// publishDiagnostics for the file, how many findings it carries, the
// server's CPU time and RSS (VmRSS, VmHWM) then. It needs no workload:
// crd-lsp's built-in schemas are all it reads, so the figure is what a user
// opening a Deployment in a fresh editor waits for. Run it against two
// binaries to compare releases (the median of -runs is reported).
func builtinDiag(args []string) error {
	fs := flag.NewFlagSet("builtindiag", flag.ExitOnError)
	runs := fs.Int("runs", 5, "runs (the median is reported)")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("no server command after --")
	}
	dir, err := os.MkdirTemp("", "crdbench-builtin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "deployment.yaml")
	if err := os.WriteFile(file, []byte(testfixtures.Issue32Deployment), 0o644); err != nil {
		return err
	}
	type result struct {
		wall, cpu time.Duration
		rss, hwm  int64
		findings  int
	}
	var rs []result
	for i := 0; i < *runs; i++ {
		s, err := startSession(argv, dir, map[string]any{"crdLsp": map[string]any{}}, map[string]any{})
		if err != nil {
			return err
		}
		uri := fileURI(file)
		diags := s.channel(uri)
		if err := s.open(uri, testfixtures.Issue32Deployment); err != nil {
			s.stop()
			return err
		}
		var r result
		t := time.NewTimer(5 * time.Minute)
		select {
		case p, ok := <-diags:
			if !ok {
				err = fmt.Errorf("server ended")
				break
			}
			proc := lspclient.ReadProc(s.srv.Pid())
			r = result{wall: p.at.Sub(s.srv.Started), cpu: proc.CPU, rss: proc.RSS, hwm: proc.HWM, findings: len(p.Diagnostics)}
		case <-t.C:
			err = fmt.Errorf("no diagnostics for %s within 5 minutes", uri)
		}
		t.Stop()
		s.stop()
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	r := medianBy(rs, func(r result) time.Duration { return r.wall })
	fmt.Printf("# first diagnostics on issue 32's Deployment, nothing else in the workspace (median of %d; load average %s)\n", *runs, loadavg())
	fmt.Printf("builtindiag %-14s %s after start (server CPU %s), %d findings, RSS %s (peak %s) then\n",
		filepath.Base(argv[0]), secs(r.wall), secs(r.cpu), r.findings, mib(r.rss), mib(r.hwm))
	return nil
}
