package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/workload"
	"github.com/crd-lsp/crd-lsp/internal/rusage"
)

// A run of a checker as a child process: what getrusage says of it.
type run struct {
	cpu, wall time.Duration
	maxRSS    int64 // bytes
	exit      int
	stdout    string
}

func runChild(argv []string, env []string) (run, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(start), stdout: out.String()}
	if cmd.ProcessState == nil {
		return r, err
	}
	r.exit = cmd.ProcessState.ExitCode()
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	peak, ok := rusage.PeakRSS(cmd.ProcessState)
	if !ok {
		return r, fmt.Errorf("no peak RSS on this system")
	}
	r.maxRSS = peak
	if errb.Len() > 0 && r.exit > 1 {
		return r, fmt.Errorf("%s: exit %d: %s", argv[0], r.exit, errb.String())
	}
	return r, nil
}

// scenario is one workload checked against one set of schemas.
type scenario struct {
	name    string
	path    string
	docs    int
	schemas string // "50", "389" or "2043"
}

type tool struct {
	name string
	argv func(sc scenario) []string
	// verify checks a run's output says every document is valid.
	verify func(sc scenario, r run) error
	// env is added to the child's environment; before runs before each
	// run (crd-lsp cold: the decoded cache emptied).
	env    []string
	before func()
}

var (
	crdLspSummary = regexp.MustCompile(`(?m)^(\d+) files? checked: (\d+) errors?, (\d+) warnings?, (\d+) info$`)
	kcSummary     = regexp.MustCompile(`Summary: (\d+) resources? found in (\d+) files? - Valid: (\d+), Invalid: (\d+), Errors: (\d+), Skipped: (\d+)`)
)

// crdLspTool runs crd-lsp check with its decoded cache (issue 24) in
// cacheDir: warm (filled by the negative control and the first runs) or,
// with cold, emptied before every run.
func crdLspTool(bin string, m *workload.Manifest, cacheDir string, cold bool) tool {
	dirs := map[string]string{"50": m.Schemas50, "389": m.Subset, "2043": m.SchemasAll}
	name := "crd-lsp"
	var before func()
	if cold {
		name = "crd-lsp-cold"
		before = func() { os.RemoveAll(cacheDir) }
	}
	return tool{
		name:   name,
		env:    []string{"CRD_LSP_SCHEMA_CACHE=" + cacheDir},
		before: before,
		argv:   func(sc scenario) []string { return []string{bin, "check", "--schemas", dirs[sc.schemas], sc.path} },
		verify: func(sc scenario, r run) error {
			s := crdLspSummary.FindStringSubmatch(r.stdout)
			if s == nil {
				return fmt.Errorf("no summary in %q", tail(r.stdout))
			}
			if s[2] != "0" || s[3] != "0" || r.exit != 0 {
				return fmt.Errorf("not clean (exit %d): %s", r.exit, s[0])
			}
			return nil
		},
	}
}

func kubeconformTool(bin string, m *workload.Manifest) tool {
	dirs := map[string]string{"50": m.JSONSchema50, "2043": m.JSONSchemaAll}
	return tool{
		name: "kubeconform",
		argv: func(sc scenario) []string {
			loc := filepath.Join(dirs[sc.schemas], "{{.Group}}", "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
			return []string{bin, "-strict", "-summary", "-schema-location", loc, sc.path}
		},
		verify: func(sc scenario, r run) error {
			s := kcSummary.FindStringSubmatch(r.stdout)
			if s == nil {
				return fmt.Errorf("no summary in %q", tail(r.stdout))
			}
			if s[3] != strconv.Itoa(sc.docs) || r.exit != 0 {
				return fmt.Errorf("not every document valid (exit %d): %s", r.exit, s[0])
			}
			return nil
		},
	}
}

func tail(s string) string {
	if len(s) > 400 {
		return "…" + s[len(s)-400:]
	}
	return s
}

// check measures documents per CPU-second and peak RSS of crd-lsp check
// (and kubeconform, when given) on each workload, the median of -runs.
func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	work := fs.String("work", "", "workload folder (crdbench gen)")
	crdLsp := fs.String("crd-lsp", "", "crd-lsp binary")
	kc := fs.String("kubeconform", "", "kubeconform binary (optional: side by side)")
	runs := fs.Int("runs", 3, "runs per scenario (the median is reported)")
	floor := fs.Bool("floor", false, "also measure the library floor (floor.go) on the 50-CRD scenarios")
	cold := fs.Bool("cold", false, "also measure crd-lsp with its decoded cache emptied before every run (crd-lsp-cold)")
	only := fs.String("only", "", "measure only the scenarios whose workload/CRDs key (e.g. mrs-1000-files/50) contains this")
	_ = fs.Parse(args)
	m, err := workload.ReadManifest(*work)
	if err != nil {
		return err
	}
	wl := map[string]workload.Workload{}
	for _, w := range m.Workloads {
		wl[w.Name] = w
	}
	sc := func(w, schemas string) scenario {
		return scenario{name: w, path: wl[w].Path, docs: wl[w].Docs, schemas: schemas}
	}
	scenarios := []scenario{
		sc("mrs-1000-files", "50"),
		sc("mrs-1000-one-file", "50"),
		sc("mrs-1000-files", "389"),
		sc("mrs-1000-files", "2043"),
		sc("mrs-1000-one-file", "2043"),
		sc("mrs-10000-one-file", "50"),
		sc("mrs-10000-files", "50"),
	}
	cacheDir := filepath.Join(*work, "schema-cache")
	os.RemoveAll(cacheDir)
	tools := []tool{crdLspTool(*crdLsp, m, cacheDir, false)}
	if *cold {
		tools = append(tools, crdLspTool(*crdLsp, m, filepath.Join(*work, "schema-cache-cold"), true))
	}
	if *kc != "" {
		tools = append(tools, kubeconformTool(*kc, m))
	}
	if *floor {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		tools = append(tools, floorTool(self, m, false), floorTool(self, m, true))
	}
	if err := negativeControl(tools, m); err != nil {
		return err
	}
	fmt.Printf("# check throughput: median of %d runs; CPU = user+sys of the child (getrusage), peak RSS = ru_maxrss; load average %s\n", *runs, loadavg())
	fmt.Printf("%-12s %-19s %5s %6s %9s %12s %9s %6s %9s\n", "tool", "workload", "CRDs", "docs", "CPU", "docs/CPU-s", "wall", "CPU/wall", "peak RSS")
	results := map[string]map[string]run{}
	for _, s := range scenarios {
		if !strings.Contains(s.name+"/"+s.schemas, *only) {
			continue
		}
		for _, t := range tools {
			if t.name == "kubeconform" && s.schemas == "389" {
				continue // it reads only the used kinds' files: 50 and 2,043 tell all
			}
			if strings.HasPrefix(t.name, "floor") && s.schemas != "50" {
				continue // it builds every CRD it is given
			}
			var rs []run
			for i := 0; i < *runs; i++ {
				if t.before != nil {
					t.before()
				}
				r, err := runChild(t.argv(s), t.env)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", t.name, s.name, err)
				}
				if err := t.verify(s, r); err != nil {
					return fmt.Errorf("%s on %s with %s CRDs: %w", t.name, s.name, s.schemas, err)
				}
				rs = append(rs, r)
			}
			r := medianRun(rs)
			if results[t.name] == nil {
				results[t.name] = map[string]run{}
			}
			results[t.name][s.name+"/"+s.schemas] = r
			fmt.Printf("%-12s %-19s %5s %6d %9s %12.0f %9s %8.2f %9s\n", t.name, s.name, s.schemas, s.docs, secs(r.cpu),
				float64(s.docs)/r.cpu.Seconds(), secs(r.wall), r.cpu.Seconds()/r.wall.Seconds(), mib(r.maxRSS))
		}
	}
	fmt.Printf("# load average after: %s\n", loadavg())
	for _, t := range tools {
		if strings.HasPrefix(t.name, "floor") || *only != "" {
			continue
		}
		r := results[t.name]
		a, b := r["mrs-1000-files/50"], r["mrs-1000-files/2043"]
		fmt.Printf("%s: 1,993 unused CRDs add %+.2f CPU-s and %+.0f MiB peak RSS (1,000 files, 2,043 vs 50 CRDs; target for crd-lsp ≤ 0.2 CPU-s, ≤ 40 MiB)\n",
			t.name, (b.cpu - a.cpu).Seconds(), float64(b.maxRSS-a.maxRSS)/(1<<20))
		a, b = r["mrs-1000-one-file/50"], r["mrs-1000-one-file/2043"]
		fmt.Printf("%s: the same for one 1,000-document file: %+.2f CPU-s, %+.0f MiB\n", t.name, (b.cpu - a.cpu).Seconds(), float64(b.maxRSS-a.maxRSS)/(1<<20))
	}
	if k, ok := results["kubeconform"]; ok {
		for _, name := range []string{"crd-lsp", "crd-lsp-cold"} {
			c, ok := results[name]
			if !ok {
				continue
			}
			target := "≥ 1× warm"
			if name == "crd-lsp-cold" {
				target = "≥ 0.8× cold"
			}
			for _, key := range []string{"mrs-1000-files/50", "mrs-1000-one-file/50", "mrs-1000-files/2043", "mrs-10000-one-file/50"} {
				if _, ok := c[key]; ok {
					fmt.Printf("%s ÷ kubeconform documents per CPU-second, %s CRDs: %.2f× (target %s)\n", name, key, k[key].cpu.Seconds()/c[key].cpu.Seconds(), target)
				}
			}
		}
		c := results["crd-lsp"]
		for _, fl := range []struct{ name, what string }{
			{"floor", "schema and CEL validation only"},
			{"floor-api", "every library step of the API server's create"},
		} {
			f, ok := results[fl.name]
			if !ok {
				continue
			}
			for _, key := range []string{"mrs-1000-files/50", "mrs-1000-one-file/50", "mrs-10000-one-file/50", "mrs-10000-files/50"} {
				if _, ok := f[key]; !ok {
					continue
				}
				fmt.Printf("%s (%s) ÷ kubeconform documents per CPU-second, %s CRDs: %.2f×; crd-lsp ÷ %s: %.2f×\n",
					fl.name, fl.what, key, k[key].cpu.Seconds()/f[key].cpu.Seconds(), fl.name, f[key].cpu.Seconds()/c[key].cpu.Seconds())
			}
		}
	}
	return nil
}

// negativeControl checks each tool finds the one error of the first
// diagnostic workspace's Bucket (a string where a boolean belongs), so a
// tool that silently skipped its schemas cannot pass as fast.
func negativeControl(tools []tool, m *workload.Manifest) error {
	bucket := filepath.Join(m.FirstDiag.Dir, m.FirstDiag.File)
	for _, t := range tools {
		if strings.HasPrefix(t.name, "floor") {
			continue // it fails on a document without a CRD, so cannot skip one
		}
		argv := t.argv(scenario{path: bucket, docs: 1, schemas: "2043"})
		r, err := runChild(argv, t.env)
		if err != nil {
			return err
		}
		if t.verify(scenario{docs: 1}, r) == nil || !(strings.Contains(r.stdout, "Invalid: 1") || strings.Contains(r.stdout, "1 error")) {
			return fmt.Errorf("negative control: %s did not report the invalid Bucket: %s", t.name, tail(r.stdout))
		}
	}
	fmt.Println("# negative control: every checker reports the one error in", bucket)
	return nil
}

// medianRun is the run with the median CPU time.
func medianRun(rs []run) run { return medianBy(rs, func(r run) time.Duration { return r.cpu }) }
