package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// idle measures what an editor session costs before it reads anything
// (issue 35): the server started in an empty folder, initialized, its
// workspace loaded ("schemas loaded" logged), and then its resident memory split as the kernel counts it — RssFile (pages
// of the binary and other files) and RssAnon (heap, stacks) — with each
// mapping of the executable's resident MiB of its size, and how the
// resident text lies: in how many 64 KiB blocks a page is mapped and in
// how many all 16 are (the kernel maps cached neighbours of a faulted
// page, fault_around_bytes, 64 KiB by default). The binary should be
// written as a release archive's extraction writes it (bench/size.sh
// copies it with cat): a file fresh from the Go linker stays in large
// page-cache folios and maps more.
func idle(args []string) error {
	fs := flag.NewFlagSet("idle", flag.ExitOnError)
	runs := fs.Int("runs", 3, "runs (each is printed, then the median VmRSS)")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("no server command after --")
	}
	exe, err := os.Readlink("/proc/self/exe") // Linux only, as /proc is
	if err != nil || exe == "" {
		return fmt.Errorf("idle needs Linux's /proc: %v", err)
	}
	var rss []int64
	for i := 0; i < *runs; i++ {
		dir, err := os.MkdirTemp("", "crdbench-idle-")
		if err != nil {
			return err
		}
		s, err := startSession(argv, dir, nil, nil)
		if err != nil {
			os.RemoveAll(dir)
			return err
		}
		// Idle means after the workspace's load (the built-in stores
		// included), not between initialized and the load.
		if _, err := s.awaitLog("schemas loaded", 2*time.Minute); err != nil {
			s.stop()
			os.RemoveAll(dir)
			return err
		}
		m, err := readMemory(s.srv.Pid())
		s.srv.Stop(10 * time.Second)
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		rss = append(rss, m.status["VmRSS"])
		fmt.Printf("idle run %d: VmRSS %d MiB (peak %d): RssFile %d, RssAnon %d; executable mapped:",
			i+1, m.status["VmRSS"]>>10, m.status["VmHWM"]>>10, m.status["RssFile"]>>10, m.status["RssAnon"]>>10)
		for _, seg := range m.segments {
			fmt.Printf(" %s %d/%d MiB", seg.perms, seg.rss>>20, seg.size>>20)
		}
		fmt.Printf("; text in 64 KiB blocks: %d touched, %d whole, of %d\n", m.touched, m.whole, m.blocks)
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	fmt.Printf("idle %-14s median VmRSS %d MiB of %d runs (load average %s)\n", argv[0], rss[len(rss)/2]>>10, len(rss), loadavg())
	return nil
}

type segment struct {
	perms     string
	lo, hi    uint64
	rss, size int64 // bytes
}

type memory struct {
	status                 map[string]int64 // KiB
	segments               []segment        // the executable's mappings
	touched, whole, blocks int              // 64 KiB blocks of the r-xp mapping
}

// readMemory reads /proc/<pid>/status, smaps and pagemap (whose
// "present" bits a process's owner may read).
func readMemory(pid int) (memory, error) {
	m := memory{status: map[string]int64{}}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		if f := strings.Fields(value); len(f) == 2 && f[1] == "kB" {
			m.status[name], _ = strconv.ParseInt(f[0], 10, 64)
		}
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return m, err
	}
	smaps, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return m, err
	}
	defer smaps.Close()
	var cur *segment
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			cur = nil
			if len(f) >= 6 && strings.Join(f[5:], " ") == exe {
				l, _ := strconv.ParseUint(lo, 16, 64)
				h, _ := strconv.ParseUint(hi, 16, 64)
				m.segments = append(m.segments, segment{perms: f[1], lo: l, hi: h, size: int64(h - l)})
				cur = &m.segments[len(m.segments)-1]
			}
			continue
		}
		if cur != nil && f[0] == "Rss:" && len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			cur.rss = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	for _, seg := range m.segments {
		if seg.perms == "r-xp" {
			m.touched, m.whole, m.blocks, err = blocks(pid, seg.lo, seg.hi)
			if err != nil {
				return m, err
			}
		}
	}
	return m, nil
}

// blocks counts the 64 KiB blocks of [lo, hi) with a page present, and
// with all of theirs present, from /proc/<pid>/pagemap (bit 63: present).
func blocks(pid int, lo, hi uint64) (touched, whole, total int, err error) {
	const page, per = 4096, 16
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	defer pm.Close()
	buf := make([]byte, (hi-lo)/page*8)
	if _, err := pm.ReadAt(buf, int64(lo/page*8)); err != nil {
		return 0, 0, 0, fmt.Errorf("pagemap: %w", err)
	}
	n := len(buf) / 8
	for b := 0; b < n; b += per {
		present := 0
		for i := b; i < b+per && i < n; i++ {
			if binary.LittleEndian.Uint64(buf[i*8:])>>63 == 1 {
				present++
			}
		}
		total++
		if present > 0 {
			touched++
		}
		if present == per || (present > 0 && present == n-b) {
			whole++
		}
	}
	return touched, whole, total, nil
}
