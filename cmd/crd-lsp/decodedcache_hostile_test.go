package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecodedCacheHostile (issue 35): four `crd-lsp check` processes
// started at once on one decoded cache each report what a run without
// the cache reports; then the folder is filled with valid entries under
// the wrong names (every entry's bytes moved to another's name, as a
// hand-filled or badly restored folder would be) and some truncated: a
// run still reports the same, and rewrites them.
func TestDecodedCacheHostile(t *testing.T) {
	bin := builtBinary(t)
	dir := filepath.Join(corpus(t), "workspaces", "crossplane-e2e")
	args := []string{"check", "--cache-dir", t.TempDir(), dir}
	_, off, _ := runBin(t, []string{"CRD_LSP_SCHEMA_CACHE=off"}, "", args...)
	if !strings.Contains(off, " checked: ") || !strings.Contains(off, ": error: ") {
		t.Fatalf("no findings to compare:\n%.2000s", off)
	}
	cacheDir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for range 4 {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.WaitDelay = 10 * time.Second
		cmd.Env = append(os.Environ(), "CRD_LSP_SCHEMA_CACHE="+cacheDir)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		_ = cmd.Wait() // findings: exit 1
		if ctx.Err() != nil {
			t.Fatalf("process %d of 4 sharing the cache still running after 5 minutes; killed", i)
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("process %d exited %d", i, code)
		}
		if outs[i].String() != off {
			t.Errorf("process %d of 4 sharing the cache reports differently:\n%s\nwant:\n%s", i, outs[i], off)
		}
	}
	des, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var contents [][]byte
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", de.Name())
		}
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(cacheDir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		names, contents = append(names, de.Name()), append(contents, b)
	}
	if len(names) < 2 {
		t.Fatalf("%d entries in the shared cache", len(names))
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d (%d entries)", seed, len(names))
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	old := time.Now().Add(-time.Minute)
	for i, name := range names {
		b := contents[(i+1+rng.IntN(len(names)-1))%len(names)] // another entry's
		if rng.IntN(4) == 0 {
			b = b[:rng.IntN(len(b))]
		}
		p := filepath.Join(cacheDir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Chtimes(p, old, old)
	}
	_, got, _ := runBin(t, []string{"CRD_LSP_SCHEMA_CACHE=" + cacheDir}, "", args...)
	if got != off {
		t.Errorf("with entries under the wrong names the findings differ:\n%s\nwant:\n%s", got, off)
	}
	rewritten := 0
	for _, name := range names {
		if fi, err := os.Stat(filepath.Join(cacheDir, name)); err == nil && fi.ModTime().After(old) {
			rewritten++
		}
	}
	if rewritten == 0 {
		t.Error("no misplaced entry was written again")
	}
}
