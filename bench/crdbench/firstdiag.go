package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	yamlv3 "gopkg.in/yaml.v3"

	"github.com/crd-lsp/crd-lsp/bench/lspclient"
	"github.com/crd-lsp/crd-lsp/bench/workload"
	"github.com/crd-lsp/crd-lsp/internal/rusage"
)

// firstDiag starts the server in a workspace holding every upjet AWS CRD
// and one S3 Bucket whose only error needs the Bucket CRD's schema, opens
// the Bucket right after initialized, and measures the time from starting
// the process to the first publish carrying that error, the server's CPU
// time then, and its RSS (VmRSS, VmHWM) then and once it logs that the
// schemas are loaded. The floor it is compared with is a bare yaml.v3
// parse of the same CRD files in this process, one after the other.
func firstDiag(args []string) error {
	fs := flag.NewFlagSet("firstdiag", flag.ExitOnError)
	work := fs.String("work", "", "workload folder (crdbench gen)")
	runs := fs.Int("runs", 3, "runs (the median is reported)")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("no server command after --")
	}
	m, err := workload.ReadManifest(*work)
	if err != nil {
		return err
	}
	fd := m.FirstDiag
	crds := filepath.Join(fd.Dir, "crds")
	type result struct {
		wall, cpu  time.Duration
		rss, hwm   int64
		loadedRSS  int64
		loadedHWM  int64
		loadedWall time.Duration
	}
	var rs []result
	var floorWall, floorCPU []time.Duration
	for i := 0; i < *runs; i++ {
		w, c, err := parseFloor(crds)
		if err != nil {
			return err
		}
		floorWall, floorCPU = append(floorWall, w), append(floorCPU, c)
		var r result
		s, err := startSession(argv, fd.Dir, map[string]any{"crdLsp": map[string]any{}}, map[string]any{})
		if err != nil {
			return err
		}
		uri := fileURI(filepath.Join(fd.Dir, fd.File))
		diags := s.channel(uri)
		text, err := os.ReadFile(filepath.Join(fd.Dir, fd.File))
		if err != nil {
			return err
		}
		if err := s.open(uri, string(text)); err != nil {
			return err
		}
		err = func() error {
			t := time.NewTimer(5 * time.Minute)
			defer t.Stop()
			for {
				select {
				case p, ok := <-diags:
					if !ok {
						return fmt.Errorf("server ended")
					}
					for _, d := range p.Diagnostics {
						if d.Severity == 1 && d.Range.Start.Line == fd.Line {
							proc := lspclient.ReadProc(s.srv.Pid())
							r.wall, r.cpu, r.rss, r.hwm = p.at.Sub(s.srv.Started), proc.CPU, proc.RSS, proc.HWM
							return nil
						}
					}
				case <-t.C:
					return fmt.Errorf("no schema-dependent diagnostic within 5 minutes")
				}
			}
		}()
		if err == nil {
			_, err = s.awaitLog("schemas loaded", 5*time.Minute)
			proc := lspclient.ReadProc(s.srv.Pid())
			r.loadedWall, r.loadedRSS, r.loadedHWM = time.Since(s.srv.Started), proc.RSS, proc.HWM
		}
		s.stop()
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	r := medianBy(rs, func(r result) time.Duration { return r.wall })
	fw, fc := median(floorWall), median(floorCPU)
	fmt.Printf("# first schema-dependent diagnostic, %d CRDs in the workspace (median of %d; load average %s)\n", fd.CRDs, *runs, loadavg())
	fmt.Printf("firstdiag %-14s %s after start (server CPU %s), RSS %s (peak %s) then; schemas loaded after %s, RSS %s (peak %s)\n",
		filepath.Base(argv[0]), secs(r.wall), secs(r.cpu), mib(r.rss), mib(r.hwm), secs(r.loadedWall), mib(r.loadedRSS), mib(r.loadedHWM))
	fmt.Printf("floor     bare yaml.v3 parse of the %d CRD files: %s wall, %s CPU\n", fd.CRDs, secs(fw), secs(fc))
	fmt.Printf("ratio     first diagnostic ÷ floor: %.2f× by wall time, %.2f× by CPU time (target ≤ 0.25×; RSS target ≤ 150 MiB)\n",
		r.wall.Seconds()/fw.Seconds(), r.cpu.Seconds()/fc.Seconds())
	return nil
}

// parseFloor parses every YAML file in dir with yaml.v3 into node trees,
// one at a time, returning wall and CPU time (this process's user+sys).
func parseFloor(dir string) (wall, cpu time.Duration, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	before, _ := rusage.SelfCPU()
	start := time.Now()
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, 0, err
		}
		var n yamlv3.Node
		if err := yamlv3.Unmarshal(b, &n); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	wall = time.Since(start)
	after, _ := rusage.SelfCPU()
	cpu = after - before
	return wall, cpu, nil
}
