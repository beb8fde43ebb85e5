// Command crdbench measures crd-lsp from outside, as a user meets it, and
// side by side with kubeconform and yaml-language-server on the same
// inputs (issue 15). bench/run.sh and bench/side-by-side.sh drive it; it is
// a bench tool, not shipped, and never runs in CI.
//
//	crdbench gen        -work DIR -corpus DIR        generate the workloads (cached by stamp)
//	crdbench check      -work DIR -crd-lsp BIN [-kubeconform BIN] [-floor]
//	                                                 documents per CPU-second, peak RSS;
//	                                                 -floor adds the library floor (floor.go)
//	crdbench keystroke  -work DIR [-yamlls] -- SERVER ARGV...
//	                                                 keystroke → publishDiagnostics latency
//	crdbench firstdiag  -work DIR -- SERVER ARGV...  first schema-dependent diagnostic with
//	                                                 2,043 CRDs in the workspace, and RSS
//	crdbench builtindiag [-runs N] -- SERVER ARGV... first diagnostics on issue 32's
//	                                                 Deployment (built-in kinds only)
//	crdbench idle [-runs N] -- SERVER ARGV...       an initialized server's resident memory:
//	                                                 RssFile/RssAnon, the binary's mapped share
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	args := os.Args[2:]
	switch os.Args[1] {
	case "gen":
		err = gen(args)
	case "check":
		err = check(args)
	case "keystroke":
		err = keystroke(args)
	case "firstdiag":
		err = firstDiag(args)
	case "builtindiag":
		err = builtinDiag(args)
	case "idle":
		err = idle(args)
	case "floor-child":
		err = floorChild(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crdbench "+os.Args[1]+":", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: crdbench gen|check|keystroke|firstdiag|builtindiag|idle [flags] (see the package comment)")
	os.Exit(2)
}

// loadavg is the machine's load average line (1, 5, 15 minutes).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// medianBy is the run whose key is the median of the runs' keys.
func medianBy[T any](rs []T, key func(T) time.Duration) T {
	ks := make([]time.Duration, len(rs))
	for i, r := range rs {
		ks[i] = key(r)
	}
	m := median(ks)
	for _, r := range rs {
		if key(r) == m {
			return r
		}
	}
	return rs[0]
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// percentile is the nearest-rank percentile (p in 0..100).
func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(p/100*float64(len(s))+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(s) {
		rank = len(s) - 1
	}
	return s[rank]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}
func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
