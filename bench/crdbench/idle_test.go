package main

import (
	"os"
	"runtime"
	"testing"
)

// The test binary's own text is mapped and running: its mapping has
// resident pages, and pagemap finds them in at least one 64 KiB block.
func TestReadMemorySelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/smaps and pagemap are Linux's")
	}
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.status["VmRSS"] <= 0 || m.status["RssFile"] <= 0 {
		t.Errorf("status: %v", m.status)
	}
	var text *segment
	for i := range m.segments {
		if m.segments[i].perms == "r-xp" {
			text = &m.segments[i]
		}
	}
	if text == nil || text.rss <= 0 || text.rss > text.size {
		t.Fatalf("executable mappings: %+v", m.segments)
	}
	if m.touched <= 0 || m.whole > m.touched || m.touched > m.blocks || uint64(m.blocks) != (text.hi-text.lo+65535)/65536 {
		t.Errorf("64 KiB blocks: %d touched, %d whole, of %d (mapping of %d bytes)", m.touched, m.whole, m.blocks, text.size)
	}
	// Every resident page lies in a touched block.
	if int64(m.touched)*65536 < text.rss {
		t.Errorf("%d touched blocks hold less than the mapping's %d resident bytes", m.touched, text.rss)
	}
}
